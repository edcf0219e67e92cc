#include "cli/sim_backend.h"

#include <fmt/core.h>

#include "util/error.h"

namespace obscheck {

bool sim_backend(const Options& o) { return o.backend == BackendKind::sim; }

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
