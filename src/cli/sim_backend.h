// cli/: what every command shares about `--backend sim` (DESIGN.md "simulated PMU"):
// the geometry from --sim-cache or the host, its record in a journal's manifest, the
// lines a report prints about it, and the observers that cannot act under it.
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

// --sim-cache over this host's geometry (host_sim_geometry), or the host's alone.
// Checks up front that valgrind is installed (find_valgrind's Error(host)), so a check
// fails before it writes a journal. Throws Error(usage) for a bad --sim-cache.
SimGeometry sim_geometry_from(const Options& o);

// What a report says about the backend, one line each: the simulator and its
// determinism, the geometry and where it came from, cachegrind's adjustments, and the
// cycle model when an estimated event is among `events`.
std::vector<std::string> sim_backend_lines(const SimGeometry& g, const std::vector<SimEvent>& events);

// Throws Error(usage) when the chosen observer cannot act on a simulated program
// (observe/sim.h require_sim_observer): uprobes, breakpoints, sampling, a profiler.
void require_sim_observer_of(const Options& o);

// `obscheck events --backend sim`: the simulated events as catalog entries (always
// available: they depend on cachegrind alone, never on the host's PMU).
std::vector<CatalogEntry> sim_catalog();

}  // namespace obscheck
