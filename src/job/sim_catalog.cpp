#include "job/sim_catalog.h"

#include "observe/sim.h"

namespace obscheck {

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
