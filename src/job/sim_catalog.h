// job/: what `obscheck events --backend sim` lists: the simulated PMU's events as
// catalog entries. Measuring under it is run/backend.h's.
#pragma once

#include <vector>

#include "events/event.h"

namespace obscheck {

// The simulated events as catalog entries (always available: they depend on
// cachegrind alone, never on the host's PMU).
std::vector<CatalogEntry> sim_catalog();

}  // namespace obscheck
