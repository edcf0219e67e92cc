#include "job/commands/sim_catalog.h"

#include "job/common/job_backend.h"
#include "observe/sim.h"
#include "run/backend.h"
#include "util/error.h"

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

std::vector<std::string> sim_geometry_notes(BackendKind kind, const std::string& sim_cache) {
  std::vector<std::string> notes;
  try {
    const std::shared_ptr<const Backend> backend = job_backend(kind, sim_cache);
    backend->require_here();
    const SimGeometry g = *backend->geometry();
    notes.push_back("geometry a check would simulate here: " + format_sim_geometry(g) + " (" +
                    g.source + ")");
    for (const std::string& n : g.notes) notes.push_back("  " + n);
  } catch (const Error& e) {
    if (e.kind() == ErrorKind::usage) throw;  // a bad --sim-cache is the user's to fix
    notes.push_back(std::string("cannot simulate on this host yet: ") + e.what() +
                    (e.hint().empty() ? "" : " (" + e.hint() + ")"));
  }
  return notes;
}

}  // namespace obscheck
