// A programmable stand-in for the kernel's perf_event interface, for tests only.
//
// Installed with util/perf_syscalls.h's ScopedPerfSyscalls, it answers every
// perf_event_open, read and ioctl the product issues on counters, so the product's own
// code (observe/counters, events/availability, the run's measurer) runs on a model of a
// hardware PMU on a host that has none. Nothing in the installed tool can reach it.
//
// The model, deterministic unless noise is asked for:
//   - Each target (the pid counters are opened on) is one run. Its counters are
//     enabled for `run_ns` of task time (they open disabled with enable_on_exec: the
//     target's execve enables them), in ticks of `tick_ns` (the kernel's multiplexing
//     interval, perf_event_mux_interval_ms).
//   - Hardware events need one of `slots` counters. Software events always run. At each
//     tick the groups are rotated by one (the kernel's rotation of flexible groups) and
//     put on the PMU in that order until one does not fit; after a misfit no further
//     hardware group goes on in that tick (the kernel's can_add_hw). A group counts
//     only the ticks it was on: time_running < time_enabled when it was multiplexed.
//   - A counter counts rate x (its running time) events, times (1 + noise x u) with u
//     uniform in [-1, 1) from a seeded generator, one draw per counter and run.
//   - Faults: an open refused with a chosen errno; a group with more hardware events
//     than slots refused with EINVAL (x86's validate_group); PERF_FORMAT_GROUP with
//     inherit refused with EINVAL (kernels before 4.13, when asked); a counter that
//     stops counting after `stops_at_ns` of task time ("disappears": time_running
//     stops growing); an offset added to its count (modulo 2^64: a negative reading).
//   - read(2) follows perf_event_open(2): the read_format layout, PERF_FORMAT_GROUP
//     returns the whole group also on a member, ENOSPC for a short buffer.
//   - Sampling (attr.freq with a sample_freq): the target runs on CPU `sampling.cpu`
//     only, so the event opened on that CPU runs for the whole run and the others never
//     do. mmap(2) of its descriptor gives a ring that holds what the run wrote, as
//     perf_event_open(2)'s "MMAP layout" lays it out: per tick, sample_freq x tick
//     samples, or, above `sampling.throttle_hz` (the kernel's max_samples_per_tick x
//     HZ), throttle_hz x tick samples and one PERF_RECORD_THROTTLE then one
//     PERF_RECORD_UNTHROTTLE (the kernel throttles the event for the rest of the tick).
//     What does not fit the ring is lost: one PERF_RECORD_LOST with the count, and the
//     same count in the PERF_FORMAT_LOST word of read(2).
//   - Descriptors are eventfds, so that a caller can wait on them with epoll.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <set>
#include <utility>
#include <vector>

#include "util/perf_syscalls.h"

namespace obscheck::test {

// (perf_event_attr.type, .config)
using EventKey = std::pair<std::uint32_t, std::uint64_t>;

struct TestEventModel {
  double rate_per_ns = 1.0;                  // counts per ns of running time
  std::optional<std::uint64_t> stops_at_ns;  // stops counting after this much task time
  std::int64_t offset = 0;                   // added to every count (mod 2^64)
};

struct TestSamplingModel {
  unsigned cpu = 0;                          // the CPU the target runs on
  std::uint64_t throttle_hz = 100'000;       // above this the kernel throttles every tick
};

struct TestPmuConfig {
  unsigned slots = 4;                        // hardware counters
  std::uint64_t run_ns = 4'000'000;          // task time of every run
  std::uint64_t tick_ns = 1'000'000;         // multiplexing interval
  double noise = 0;                          // relative, 0 = exact
  std::uint64_t seed = 1;
  bool refuse_group_with_inherit = false;    // EINVAL for PERF_FORMAT_GROUP + inherit
  std::map<EventKey, TestEventModel> events;  // unknown software events count at rate 1/ns
  std::map<EventKey, int> refuse;            // perf_event_open fails with this errno
  std::set<std::uint32_t> hardware_types = {0, 3, 4};  // PERF_TYPE_HARDWARE, HW_CACHE, RAW
  TestSamplingModel sampling;
};

class TestPmu final : public PerfSyscalls {
 public:
  explicit TestPmu(TestPmuConfig config) : config_(std::move(config)) {}
  ~TestPmu() override;

  int open(perf_event_attr* attr, pid_t pid, int cpu, int group_fd, unsigned long flags) override;
  ssize_t read(int fd, void* buf, std::size_t len) override;
  int ioctl(int fd, unsigned long request, unsigned long arg) override;
  void* mmap(int fd, std::size_t len) override;
  int munmap(void* addr, std::size_t len) override;

  // What was asked of it, for tests to inspect: every attr opened, in order.
  struct Opened {
    perf_event_attr attr;
    pid_t pid;
    int group_fd;
  };
  const std::vector<Opened>& opened() const { return opened_; }
  std::size_t runs() const { return runs_.size(); }

 private:
  struct Counter {
    perf_event_attr attr{};
    pid_t pid = 0;
    int cpu = -1;
    int leader = -1;  // own fd when it leads
    std::uint64_t lost = 0;  // samples its ring could not hold (PERF_FORMAT_LOST)
    std::uint64_t id = 0;
    std::size_t run = 0;
    double noise_factor = 1.0;
  };
  bool hardware(const perf_event_attr& a) const { return config_.hardware_types.count(a.type) > 0; }
  int refuse_errno(const perf_event_attr& a, int group_fd) const;
  std::vector<int> group_of(int leader) const;
  std::uint64_t running_ns(int leader) const;
  std::uint64_t count(const Counter& c, std::uint64_t running) const;
  std::uint64_t enabled_ns(const Counter& c) const;
  bool sampling(const Counter& c) const { return c.attr.freq && c.attr.sample_freq > 0; }
  bool runs_here(const Counter& c) const { return !sampling(c) || c.cpu < 0 || c.cpu == static_cast<int>(config_.sampling.cpu); }
  void write_ring(Counter& c, unsigned char* base, std::size_t len);

  TestPmuConfig config_;
  std::map<int, Counter> counters_;            // by fd
  std::map<pid_t, std::vector<int>> runs_;     // leaders of each run, in open order
  std::vector<Opened> opened_;
  std::uint64_t next_id_ = 1;
  std::uint64_t rng_;
  bool seeded_ = false;
};

}  // namespace obscheck::test
