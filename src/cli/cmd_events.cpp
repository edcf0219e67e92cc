#include "cli/commands.h"
#include "events/event.h"
#include "job/commands/sim_catalog.h"
#include "report/events_report.h"

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
    const std::vector<std::string> notes =
        sim_geometry_notes(o.request.backend, o.request.sim_cache);
    emit(o, o.json ? events_json(catalog) : events_sim_text(catalog, notes, o.color));
    return 0;
  }
  const auto catalog = event_catalog(o.all);
  emit(o, o.json ? events_json(catalog) : events_text(catalog, o.color));
  return 0;
}

}  // namespace obscheck
