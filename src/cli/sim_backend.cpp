#include "cli/sim_backend.h"

#include <fmt/core.h>

#include "util/error.h"

namespace obscheck {

bool sim_backend(const Options& o) { return o.backend == "sim"; }

SimGeometry sim_geometry_from(const Options& o) {
  find_valgrind();
  const SimGeometry host = host_sim_geometry();
  return o.sim_cache.empty() ? host : parse_sim_cache(o.sim_cache, host);
}

std::vector<std::string> sim_backend_lines(const SimGeometry& g, const std::vector<SimEvent>& events) {
  std::vector<std::string> out;
  out.push_back("simulated PMU: valgrind --tool=cachegrind (cache and branch simulation); deterministic, one run per "
                "configuration, a second to confirm");
  out.push_back(fmt::format("geometry: {} ({})", format_sim_geometry(g), g.source));
  for (const std::string& n : g.notes) out.push_back("geometry: " + n);
  for (const SimEvent& e : events)
    if (e.estimated) {
      out.push_back(fmt::format("{} is estimated, not measured: {}", e.name, kSimCyclesModel));
      break;
    }
  return out;
}

void require_sim_observer_of(const Options& o) {
  if (!o.probes.empty()) require_sim_observer("uprobes");
  if (!o.breakpoints.empty()) require_sim_observer("breakpoints");
  if (!o.sample_freq.empty()) require_sim_observer("sampling");
  if (!o.observer_cmd.empty()) require_sim_observer("profiler");
  if (!o.build.empty()) require_sim_observer("compile-time");
  require_sim_observer("counters");
}

std::vector<CatalogEntry> sim_catalog() {
  std::vector<CatalogEntry> out;
  for (const SimEvent& e : sim_events()) {
    CatalogEntry c;
    c.name = e.name;
    c.description = e.description + (e.estimated ? ": " : " = ") + e.formula;
    c.source = "sim";
    c.availability.available = true;
    out.push_back(std::move(c));
  }
  return out;
}

}  // namespace obscheck
