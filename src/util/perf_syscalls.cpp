#include "util/perf_syscalls.h"

#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <unistd.h>

namespace obscheck {
namespace {

class KernelPerfSyscalls final : public PerfSyscalls {
 public:
  int open(perf_event_attr* attr, pid_t pid, int cpu, int group_fd, unsigned long flags) override {
    return static_cast<int>(::syscall(SYS_perf_event_open, attr, pid, cpu, group_fd, flags));
  }
  ssize_t read(int fd, void* buf, std::size_t len) override { return ::read(fd, buf, len); }
  int ioctl(int fd, unsigned long request, unsigned long arg) override { return ::ioctl(fd, request, arg); }
  void* mmap(int fd, std::size_t len) override {
    return ::mmap(nullptr, len, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
  }
  int munmap(void* addr, std::size_t len) override { return ::munmap(addr, len); }
};

KernelPerfSyscalls& kernel() {
  static KernelPerfSyscalls k;
  return k;
}

PerfSyscalls* current = nullptr;  // nullptr: the kernel

}  // namespace

PerfSyscalls& perf_syscalls() { return current != nullptr ? *current : kernel(); }

ScopedPerfSyscalls::ScopedPerfSyscalls(PerfSyscalls& replacement) : previous_(current) { current = &replacement; }
ScopedPerfSyscalls::~ScopedPerfSyscalls() { current = previous_; }

}  // namespace obscheck
