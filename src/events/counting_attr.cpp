#include "events/event.h"

namespace obscheck {

perf_event_attr counting_attr(const EventDesc& e, bool group_leader, bool in_group) {
  perf_event_attr a = e.attr;
  a.size = sizeof(perf_event_attr);
  a.read_format = in_group ? kGroupReadFormat : kCountingReadFormat;
  // Only the leader is switched on at exec; members follow it.
  a.disabled = group_leader ? 1 : 0;
  a.enable_on_exec = group_leader ? 1 : 0;
  a.inherit = 1;
  return a;
}

perf_event_attr counting_attr(const EventSet& set, std::size_t index) {
  for (const auto& g : set.groups)
    for (std::size_t idx : g)
      if (idx == index) return counting_attr(set.events.at(index), g.front() == index, g.size() > 1);
  return counting_attr(set.events.at(index), true, false);
}

}  // namespace obscheck
