// cli/: what the commands that do not measure say about `--backend sim` (the
// simulated PMU): `events` lists its catalog, `demo` leaves its own defaults to it.
// Measuring under it is run/backend.h's.
#pragma once

#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "cli/options.h"
#include "events/event.h"
#include "observe/sim.h"
#include "record/request.h"

namespace obscheck {

bool sim_backend(const Options& o);  // --backend sim

// `obscheck events --backend sim`: the simulated events as catalog entries (always
// available: they depend on cachegrind alone, never on the host's PMU).
std::vector<CatalogEntry> sim_catalog();

}  // namespace obscheck
