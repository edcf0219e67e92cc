#include "cli/commands.h"
#include "events/event.h"
#include "job/job_backend.h"
#include "job/sim_catalog.h"
#include "observe/sim.h"
#include "run/backend.h"
#include "report/events_report.h"
#include "util/error.h"

namespace obscheck {

int cmd_events(const Options& o) {
  if (!o.encode.empty()) {
    const EventSet set = parse_events(o.encode);
    emit(o, o.json ? events_encode_json(o.encode, set) : events_encode_text(set));
    return 0;
  }
  if (o.request.backend == BackendKind::sim) {
    // The catalog does not depend on the host; the geometry a check would use does.
    const auto catalog = sim_catalog();
    std::vector<std::string> notes;
    try {
      const std::shared_ptr<const Backend> backend = job_backend(o.request.backend, o.request.sim_cache);
      backend->require_here();
      const SimGeometry g = *backend->geometry();
      notes.push_back("geometry a check would simulate here: " + format_sim_geometry(g) + " (" + g.source + ")");
      for (const std::string& n : g.notes) notes.push_back("  " + n);
    } catch (const Error& e) {
      if (e.kind() == ErrorKind::usage) throw;  // a bad --sim-cache is the user's to fix
      notes.push_back(std::string("cannot simulate on this host yet: ") + e.what() +
                      (e.hint().empty() ? "" : " (" + e.hint() + ")"));
    }
    emit(o, o.json ? events_json(catalog) : events_sim_text(catalog, notes, o.color));
    return 0;
  }
  const auto catalog = event_catalog(o.all);
  emit(o, o.json ? events_json(catalog) : events_text(catalog, o.color));
  return 0;
}

}  // namespace obscheck
