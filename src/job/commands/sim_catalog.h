// job/: what `obscheck events --backend sim` lists: the simulated PMU's events as
// catalog entries. Measuring under it is run/backend.h's.
#pragma once

#include <string>
#include <vector>

#include "events/event.h"
#include "record/request.h"

namespace obscheck {

// The simulated events as catalog entries (always available: they depend on
// cachegrind alone, never on the host's PMU).
std::vector<CatalogEntry> sim_catalog();

// What a check with `backend` (the simulated one, as `events --backend sim` asks) would
// simulate on this host with `sim_cache` (--sim-cache, empty: the host's caches), as
// lines for the listing: the geometry and its source, then its notes; or why it cannot
// simulate here yet. Throws Error(usage) for a bad --sim-cache, the user's to fix.
std::vector<std::string> sim_geometry_notes(BackendKind backend, const std::string& sim_cache);

}  // namespace obscheck
