#include "cli/sim_backend.h"

#include <fmt/core.h>

#include "util/error.h"

namespace obscheck {
namespace {

nlohmann::json cache_json(const SimCache& c) { return {{"size", c.size}, {"assoc", c.assoc}, {"line", c.line}}; }

SimCache cache_from_json(const nlohmann::json& j) {
  return {j.at("size").get<std::size_t>(), j.at("assoc").get<std::size_t>(), j.at("line").get<std::size_t>()};
}

}  // namespace

bool sim_backend(const Options& o) { return o.backend == "sim"; }

SimGeometry sim_geometry_from(const Options& o) {
  find_valgrind();
  const SimGeometry host = host_sim_geometry();
  return o.sim_cache.empty() ? host : parse_sim_cache(o.sim_cache, host);
}

nlohmann::json sim_geometry_json(const SimGeometry& g) {
  return {{"I1", cache_json(g.i1)}, {"D1", cache_json(g.d1)}, {"LL", cache_json(g.ll)},
          {"source", g.source},     {"notes", g.notes}};
}

SimGeometry sim_geometry_from_json(const nlohmann::json& j) {
  try {
    SimGeometry g;
    g.i1 = cache_from_json(j.at("I1"));
    g.d1 = cache_from_json(j.at("D1"));
    g.ll = cache_from_json(j.at("LL"));
    g.source = j.at("source").get<std::string>();
    g.notes = j.value("notes", std::vector<std::string>{});
    return g;
  } catch (const nlohmann::json::exception& e) {
    throw Error(ErrorKind::io, std::string("the journal's simulated cache geometry is malformed: ") + e.what());
  }
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
