// observe/: perf_event counters attached to a corked child.
#pragma once

#include <sys/types.h>

#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "events/event.h"
#include "observe/reading.h"
#include "util/fd.h"

namespace obscheck {

// Every counter is opened as events/counting_attr() says (the one definition that
// `events --encode` prints too), through util/perf_syscalls.h.

// Parses a read(2) buffer of a counter opened with `read_format` into readings,
// applying multiplex scaling. `nr_expected` is the number of events in the group
// (1 for a lone counter). Throws Error(internal) on a short or inconsistent buffer.
struct RawCount {
  std::uint64_t value = 0, time_enabled = 0, time_running = 0;
};
std::vector<RawCount> parse_read_buffer(std::span<const std::uint64_t> words,
                                        std::uint64_t read_format, std::size_t nr_expected);
// `counts_whenever_running`: the event cannot read 0 over a run in which it ran
// (always_counts()), so 0 is a fault. See Reading::fault.
Reading scale_reading(const std::string& name, const RawCount& c, bool counts_whenever_running = false);

// Events that count on every run in which they ran: cycles, instructions, ref-cycles,
// task-clock and cpu-clock. Others (cache misses, faults, switches, probes) may
// honestly read 0.
bool always_counts(const EventDesc& e);

// The counters of one run, opened on a corked child (pid) before it execs, grouped as
// `events.groups` says (empty: each event alone). Opening fails as a whole: a counter
// that cannot be opened throws Error(event) naming it, the errno and the reason —
// never silently dropped.
//
// Per-run cost: the first software event of a kind (page-faults, context-switches...)
// also leaves one disabled, never-enabled counter of that kind open on the driver for
// the rest of its life, so later runs do not switch the kernel's static key for it on
// and off (see counters.cpp). It counts nothing and is not inherited by targets.
class CounterSet {
 public:
  CounterSet() = default;
  static CounterSet open(pid_t child, const EventSet& events);
  // One Reading per event, in the EventSet's event order (not group order). Throws
  // Error(host) if a counter cannot be read. A faulty count is a Reading with a fault.
  // `wall_ns`, the run's wall time (exec to exit), is duration_time's value (exact);
  // without it a duration_time reading is a fault.
  std::vector<Reading> read(std::optional<std::uint64_t> wall_ns = std::nullopt) const;  // after the child exited
  std::size_t size() const { return names_.size(); }

 private:
  struct Group {
    std::vector<UniqueFd> fds;  // fds[0] is the leader
    std::vector<std::size_t> event_index;
    bool group_read = true;  // read through the leader with PERF_FORMAT_GROUP
    std::uint64_t read_format = 0;  // as opened (members' without GROUP when !group_read)
  };
  static Group open_group(pid_t child, const EventSet& events, const std::vector<std::size_t>& members);
  Reading read_one(std::size_t event, const RawCount& c) const;
  std::vector<Group> groups_;
  std::vector<std::string> names_;
  std::vector<bool> always_counts_;
  std::vector<bool> duration_time_;
};

}  // namespace obscheck
