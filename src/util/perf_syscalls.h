// util/: the seam every perf_event counter of the product goes through.
//
// Counting's and sampling's perf_event_open (observe/counters, events/availability,
// observe/sampling), and read(2) / ioctl(2) / mmap(2) / munmap(2) on the descriptors
// it returns, are issued through perf_syscalls(). (The in-process library, probes/,
// still calls the kernel directly: it runs inside the target.) In the product that is always the kernel: nothing in the
// tool (no option, environment variable or file) can replace it. Tests replace it with
// a programmable stand-in PMU (tests/support/test_pmu.h) through ScopedPerfSyscalls,
// so that a counter's whole path after the open (group reads, time enabled versus
// running, scaling, faults) runs on a host without a hardware PMU — through the very
// code a real counter takes.
//
// Not for a child that shares the driver's memory (util/raw_syscall.h): these calls
// may set errno. Descriptors a replacement returns must be real ones the process owns
// (the stand-in uses /dev/null), because their owners close them with close(2).
#pragma once

#include <linux/perf_event.h>
#include <sys/types.h>

#include <cstddef>

namespace obscheck {

class PerfSyscalls {
 public:
  virtual ~PerfSyscalls() = default;
  // As the system calls: a result < 0 means failure, with errno set.
  virtual int open(perf_event_attr* attr, pid_t pid, int cpu, int group_fd, unsigned long flags) = 0;
  virtual ssize_t read(int fd, void* buf, std::size_t len) = 0;
  virtual int ioctl(int fd, unsigned long request, unsigned long arg) = 0;
  // A sampling event's ring: mmap(fd, len, PROT_READ | PROT_WRITE, MAP_SHARED) at
  // offset 0 (MAP_FAILED with errno on failure), and its release.
  virtual void* mmap(int fd, std::size_t len) = 0;
  virtual int munmap(void* addr, std::size_t len) = 0;
};

// The kernel, or the stand-in a test installed.
PerfSyscalls& perf_syscalls();

// Installs `replacement` for its lifetime (tests only; not thread-safe against
// concurrent counter use). Restores the previous one on destruction.
class ScopedPerfSyscalls {
 public:
  explicit ScopedPerfSyscalls(PerfSyscalls& replacement);
  ~ScopedPerfSyscalls();
  ScopedPerfSyscalls(const ScopedPerfSyscalls&) = delete;
  ScopedPerfSyscalls& operator=(const ScopedPerfSyscalls&) = delete;

 private:
  PerfSyscalls* previous_;
};

}  // namespace obscheck
