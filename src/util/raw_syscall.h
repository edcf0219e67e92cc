// System calls for a child that shares the driver's memory (clone with CLONE_VM): such
// a child must not touch errno or any other thread-local state of the thread it was
// cloned from, so it calls the kernel directly and gets -errno back. Without an
// inline-assembly path (or under valgrind, which emulates clone only as fork or as a
// thread) the child must be a plain fork-like clone instead, where syscall(2) is safe:
// shared_vm_child() says which.
#pragma once

#include <sys/syscall.h>
#include <unistd.h>

#include <cerrno>

#if __has_include(<valgrind/valgrind.h>)
#include <valgrind/valgrind.h>
#else
#define RUNNING_ON_VALGRIND 0
#endif

namespace obscheck {

#if defined(__x86_64__)
inline constexpr bool kRawSyscalls = true;
inline long raw_syscall(long n, long a = 0, long b = 0, long c = 0, long d = 0) {
  long ret;
  register long r10 asm("r10") = d;
  asm volatile("syscall" : "=a"(ret) : "a"(n), "D"(a), "S"(b), "d"(c), "r"(r10) : "rcx", "r11", "memory");
  return ret;
}
#else
inline constexpr bool kRawSyscalls = false;
inline long raw_syscall(long n, long a = 0, long b = 0, long c = 0, long d = 0) {
  const long r = ::syscall(n, a, b, c, d);
  return r == -1 ? -errno : r;
}
#endif

// Whether a child may share this process's memory (see above).
inline bool shared_vm_child() { return kRawSyscalls && RUNNING_ON_VALGRIND == 0; }

}  // namespace obscheck
