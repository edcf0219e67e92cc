// observe/: when one process execs and when it exits, by the kernel's own clock. Under
// a profiler command the target's wall time is the time from its exec to its exit, and
// neither the driver's clock nor a task counter can give it exactly: the driver learns
// of the exit only when a thread of its own is scheduled, and a task counter's
// time_enabled runs only while the task is on a CPU. A "dummy" software event on the
// process with comm_exec and task records (perf_event_open(2)) gets a PERF_RECORD_COMM
// marked COMM_EXEC at its exec and a PERF_RECORD_EXIT at its exit, each stamped with
// CLOCK_MONOTONIC by the kernel; nothing is counted or sampled.
#pragma once

#include <sys/types.h>

#include <cstdint>
#include <memory>
#include <optional>

namespace obscheck {

class LifetimeWatch {
 public:
  LifetimeWatch();  // inactive
  LifetimeWatch(LifetimeWatch&&) noexcept;
  LifetimeWatch& operator=(LifetimeWatch&&) noexcept;
  ~LifetimeWatch();

  // Opens the event on `pid` (before it execs the program to time). Never throws: an
  // event the kernel refuses, or a ring that cannot be mapped, gives an inactive watch.
  static LifetimeWatch open(pid_t pid);
  bool active() const { return state_ != nullptr; }

  // Once the process has exited: nanoseconds from its first exec after open() to its
  // exit; nullopt when inactive or when either record is missing (the ring filled with
  // the records of a process that forks thousands of times, and the exit was lost).
  std::optional<std::uint64_t> exec_to_exit() const;

 private:
  struct State;
  std::unique_ptr<State> state_;
};

}  // namespace obscheck
