#include "observe/counters.h"

#include <sys/syscall.h>
#include <unistd.h>

#include <fmt/core.h>

#include <cerrno>
#include <cmath>
#include <cstring>
#include <limits>
#include <mutex>
#include <set>

#include "util/error.h"
#include "util/perf_syscalls.h"

namespace obscheck {
namespace {

// Words in a read(2) of one counter / one group, per read_format (perf_event_open(2)).
std::size_t words_per_value(std::uint64_t fmt) {
  return 1 + ((fmt & PERF_FORMAT_ID) ? 1 : 0) + ((fmt & PERF_FORMAT_LOST) ? 1 : 0);
}
std::size_t time_words(std::uint64_t fmt) {
  return ((fmt & PERF_FORMAT_TOTAL_TIME_ENABLED) ? 1 : 0) + ((fmt & PERF_FORMAT_TOTAL_TIME_RUNNING) ? 1 : 0);
}

int perf_event_open(perf_event_attr* attr, pid_t pid, int group_fd) {
  return perf_syscalls().open(attr, pid, -1, group_fd, PERF_FLAG_FD_CLOEXEC);
}

// The same reason and hint `obscheck events` gives for the same errno (one diagnosis).
[[noreturn]] void throw_open_failure(const EventDesc& e, int err, bool in_group) {
  const Availability a = diagnose_open_error(e, err, read_host_perf_facts(), in_group);
  throw Error(ErrorKind::event, a.reason, a.hint);
}

bool is_uprobe(const EventDesc& e) {
  return (e.source == "uprobe" || e.pmu == "uprobe") && !e.probe_path.empty();
}

// Opens one counter. For a uprobe, config1 must point at the path while the kernel
// copies it; the attr here is a local copy, so the pointer lives long enough.
int open_one(const EventDesc& e, bool leader, bool in_group, pid_t pid, int group_fd,
             std::uint64_t drop_format = 0) {
  perf_event_attr attr = counting_attr(e, leader, in_group);
  attr.read_format &= ~drop_format;
  if (is_uprobe(e)) attr.config1 = reinterpret_cast<std::uint64_t>(e.probe_path.c_str());
  return perf_event_open(&attr, pid, group_fd);
}

// Software events counted through the kernel's swevent table (everything in
// PERF_TYPE_SOFTWARE but the clocks, which are PMUs of their own, and the
// pseudo-events). The first such event of a kind switches a kernel static key on and
// the last one switches it off again: text patching with IPIs to every CPU.
bool is_swevent(const EventDesc& e) {
  if (e.attr.type != PERF_TYPE_SOFTWARE) return false;
  switch (e.attr.config) {
    case PERF_COUNT_SW_CPU_CLOCK:
    case PERF_COUNT_SW_TASK_CLOCK:
    case PERF_COUNT_SW_DUMMY:
    case PERF_COUNT_SW_BPF_OUTPUT:
      return false;
    default:
      return true;
  }
}

// Holds one disabled counter per swevent kind on the driver itself, for the life of
// the process, so that opening and closing a run's counters does not toggle the
// kernel's static key each time (measured on the 2-CPU VM this was written on: ~60 us
// per run for page-faults, 8 % of spawning /bin/true). The counter is never enabled
// and not inherited, so it counts nothing and the target never sees it. Failing to
// open it only loses the saving.
void keep_swevent_warm(const EventDesc& e) {
  static std::mutex mu;
  static std::set<std::uint64_t> warm;
  static std::vector<UniqueFd> fds;
  if (!is_swevent(e)) return;
  std::lock_guard lock(mu);
  if (!warm.insert(e.attr.config).second) return;
  perf_event_attr a{};
  a.size = sizeof a;
  a.type = PERF_TYPE_SOFTWARE;
  a.config = e.attr.config;
  a.disabled = 1;
  const int fd = perf_event_open(&a, 0, -1);
  if (fd >= 0) fds.emplace_back(fd);
}

}  // namespace

std::vector<RawCount> parse_read_buffer(std::span<const std::uint64_t> words, std::uint64_t read_format,
                                        std::size_t nr_expected) {
  const bool enabled = (read_format & PERF_FORMAT_TOTAL_TIME_ENABLED) != 0;
  const bool running = (read_format & PERF_FORMAT_TOTAL_TIME_RUNNING) != 0;
  const std::size_t per_value = words_per_value(read_format);
  std::vector<RawCount> out;
  if ((read_format & PERF_FORMAT_GROUP) != 0) {
    // { nr; time_enabled?; time_running?; { value; id?; lost?; } cntr[nr]; }
    const std::size_t head = 1 + time_words(read_format);
    if (words.size() < head)
      throw Error(ErrorKind::internal, fmt::format("counter group read: {} words, the header needs {}",
                                                   words.size(), head));
    const std::uint64_t nr = words[0];
    if (nr != nr_expected)
      throw Error(ErrorKind::internal,
                  fmt::format("counter group read: {} counters, expected {}", nr, nr_expected));
    const std::size_t need = head + nr * per_value;
    if (words.size() < need)
      throw Error(ErrorKind::internal,
                  fmt::format("counter group read: {} words, {} counters need {}", words.size(), nr, need));
    std::size_t i = 1;
    const std::uint64_t te = enabled ? words[i++] : 0;
    const std::uint64_t tr = running ? words[i++] : 0;
    for (std::uint64_t k = 0; k < nr; ++k, i += per_value) out.push_back({words[i], te, tr});
    return out;
  }
  // { value; time_enabled?; time_running?; id?; lost?; }
  if (nr_expected != 1)
    throw Error(ErrorKind::internal,
                fmt::format("counter read: {} counters expected from a non-group read", nr_expected));
  const std::size_t need = per_value + time_words(read_format);
  if (words.size() < need)
    throw Error(ErrorKind::internal, fmt::format("counter read: {} words, expected {}", words.size(), need));
  std::size_t i = 1;
  const std::uint64_t te = enabled ? words[i++] : 0;
  const std::uint64_t tr = running ? words[i++] : 0;
  out.push_back({words[0], te, tr});
  return out;
}

bool always_counts(const EventDesc& e) {
  if (e.attr.type == PERF_TYPE_HARDWARE)
    return e.attr.config == PERF_COUNT_HW_CPU_CYCLES || e.attr.config == PERF_COUNT_HW_INSTRUCTIONS ||
           e.attr.config == PERF_COUNT_HW_REF_CPU_CYCLES;
  if (e.attr.type == PERF_TYPE_SOFTWARE)
    return e.attr.config == PERF_COUNT_SW_TASK_CLOCK || e.attr.config == PERF_COUNT_SW_CPU_CLOCK;
  return false;
}

Reading scale_reading(const std::string& name, const RawCount& c, bool counts_whenever_running) {
  constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();
  Reading r;
  r.name = name;
  r.raw = c.value;
  r.time_enabled = c.time_enabled;
  r.time_running = c.time_running;
  if (c.time_running == 0) {
    r.value = kNaN;
    r.multiplexed = true;
    r.scale = 0;  // no finite factor exists; see reading.h
    r.fault = fmt::format("{} never ran: time running 0 of {} ns enabled (multiplexed out, or the PMU stopped "
                          "counting it)", name, c.time_enabled);
    return r;
  }
  if (c.time_running < c.time_enabled) {
    r.scale = static_cast<double>(c.time_enabled) / static_cast<double>(c.time_running);
    r.multiplexed = true;
  }
  r.value = static_cast<double>(c.value) * r.scale;
  if (static_cast<std::int64_t>(c.value) < 0) {
    r.value = kNaN;
    r.fault = fmt::format("{} reads negative ({} as a signed 64-bit count): a wrapped or broken counter", name,
                          static_cast<std::int64_t>(c.value));
  } else if (c.value == 0 && counts_whenever_running) {
    r.value = kNaN;
    r.fault = fmt::format("{} reads 0 although it ran {} ns: the PMU did not count it", name, c.time_running);
  }
  return r;
}

Reading CounterSet::read_one(std::size_t event, const RawCount& c) const {
  return scale_reading(names_[event], c, always_counts_[event]);
}

CounterSet CounterSet::open(pid_t child, const EventSet& events) {
  CounterSet set;
  set.names_.reserve(events.events.size());
  for (const auto& e : events.events) {
    set.names_.push_back(e.name);
    set.always_counts_.push_back(always_counts(e));
    set.duration_time_.push_back(e.duration_time);
  }

  std::vector<std::vector<std::size_t>> groups = events.groups;
  if (groups.empty())  // no grouping given: each event alone
    for (std::size_t i = 0; i < events.events.size(); ++i) groups.push_back({i});

  for (const auto& members : groups) {
    if (members.empty()) continue;
    for (std::size_t idx : members)
      if (idx >= events.events.size())
        throw Error(ErrorKind::internal, fmt::format("event group refers to event {} of {}", idx,
                                                     events.events.size()));
    for (std::size_t idx : members) keep_swevent_warm(events.events[idx]);
    set.groups_.push_back(open_group(child, events, members));
  }
  return set;
}

CounterSet::Group CounterSet::open_group(pid_t child, const EventSet& events, const std::vector<std::size_t>& members) {
  Group g;
  g.event_index = members;
  const bool in_group = members.size() > 1;
  const EventDesc& lead = events.events[members[0]];
  std::uint64_t drop = 0;
  int fd = open_one(lead, true, in_group, child, -1);
  if (fd < 0 && in_group && errno == EINVAL) {
    // Older kernels (before 4.13) refuse PERF_FORMAT_GROUP together with inherit: read
    // each member on its own instead. They are still scheduled as one group, and they
    // are read after the target has exited, when no count moves any more, so the values
    // are those one group read gives (nothing for a report to say).
    drop = PERF_FORMAT_GROUP;
    fd = open_one(lead, true, in_group, child, -1, drop);
  }
  if (fd < 0) throw_open_failure(lead, errno, in_group);
  g.group_read = in_group && drop == 0;
  g.read_format = counting_attr(lead, true, in_group).read_format & ~drop;
  g.fds.emplace_back(fd);
  for (std::size_t k = 1; k < members.size(); ++k) {
    const EventDesc& e = events.events[members[k]];
    const int mfd = open_one(e, false, true, child, g.fds[0].get(), drop);
    if (mfd < 0) throw_open_failure(e, errno, true);
    g.fds.emplace_back(mfd);
  }
  return g;
}

std::vector<Reading> CounterSet::read(std::optional<std::uint64_t> wall_ns) const {
  std::vector<Reading> out(names_.size());
  std::vector<std::uint64_t> buf;
  for (const auto& g : groups_) {
    const std::size_t nr = g.group_read ? g.fds.size() : 1;
    // Big enough for one read of this group: header + values (+ ids) per read_format.
    buf.assign(1 + time_words(g.read_format) + nr * words_per_value(g.read_format), 0);
    for (std::size_t k = 0; k < (g.group_read ? 1 : g.fds.size()); ++k) {
      const ssize_t n = perf_syscalls().read(g.fds[k].get(), buf.data(), buf.size() * sizeof(std::uint64_t));
      if (n < 0)
        throw Error(ErrorKind::host, fmt::format("{}: reading the counter{} failed: {}", names_[g.event_index[k]],
                                                 g.group_read ? " group" : "", std::strerror(errno)));
      const auto raw =
          parse_read_buffer({buf.data(), static_cast<std::size_t>(n) / sizeof(std::uint64_t)}, g.read_format, nr);
      for (std::size_t j = 0; j < raw.size(); ++j) {
        const std::size_t event = g.event_index[g.group_read ? j : k];
        out[event] = read_one(event, raw[j]);
      }
    }
  }
  for (std::size_t i = 0; i < out.size(); ++i) {
    if (!duration_time_[i]) continue;
    // Not a counter: the driver's clock, like perf's duration_time.
    if (wall_ns) {
      out[i] = scale_reading(names_[i], {*wall_ns, *wall_ns, *wall_ns});
    } else {
      out[i].value = std::numeric_limits<double>::quiet_NaN();
      out[i].fault = fmt::format("{}: the run's wall time was not measured", names_[i]);
    }
  }
  return out;
}

}  // namespace obscheck
