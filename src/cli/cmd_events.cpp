#include "cli/commands.h"
#include "events/event.h"
#include "report/events_report.h"

namespace obscheck {

int cmd_events(const Options& o) {
  const auto catalog = event_catalog(o.all);
  emit(o, o.json ? events_json(catalog) : events_text(catalog, o.color));
  return 0;
}

}  // namespace obscheck
