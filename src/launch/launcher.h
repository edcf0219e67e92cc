// launch/: start a target exactly as asked, held (corked) until observers attach.
//
// Cork protocol (as perf): fork → the child sets its process group, personality, CPU
// affinity and stdio, then blocks reading a pipe → the parent attaches counters to
// the child's pid (enable_on_exec) → release() → the child execve()s. An exec
// failure is sent back on a close-on-exec pipe, so the parent learns ENOENT/ENOEXEC/
// EACCES precisely. The target is never run through a shell.
#pragma once

#include <sys/resource.h>
#include <sys/types.h>

#include <cstdint>
#include <string>
#include <vector>

#include "util/fd.h"

namespace obscheck {

// The child's environment, byte-exact. size_bytes() counts what the kernel copies
// onto the new stack: each "NAME=value" plus its NUL.
class EnvBlock {
 public:
  EnvBlock() = default;
  explicit EnvBlock(std::vector<std::string> vars) : vars_(std::move(vars)) {}
  static EnvBlock from_current();  // this process's environ

  void set(const std::string& name, const std::string& value);  // replaces or appends
  void unset(const std::string& name);
  // Adds (or resizes) the padding variable so that size_bytes() == total. Throws
  // Error(usage) when the block is already larger than total.
  void pad_to(std::size_t total, const std::string& pad_name = "OBSCHECK_PAD");
  std::size_t size_bytes() const;
  const std::vector<std::string>& vars() const { return vars_; }

 private:
  std::vector<std::string> vars_;
};

enum class Stdio { discard, capture, inherit };

struct LaunchSpec {
  std::string path;                 // resolved executable path (see resolve_target)
  std::vector<std::string> argv;    // argv[0] included
  EnvBlock env;
  std::string cwd;                  // empty: inherit
  bool aslr = false;                // false: personality(ADDR_NO_RANDOMIZE)
  int cpu = -1;                     // >= 0: pin to this CPU
  double timeout_s = 0;             // > 0: SIGKILL the process group after this long
  Stdio out = Stdio::discard;       // stdout and stderr together
};

struct ExitInfo {
  int exit_code = -1;       // valid when !signaled
  int signal = 0;           // terminating signal, 0 if exited
  bool timed_out = false;   // killed by the timeout
  std::uint64_t wall_ns = 0;        // release() to reaped, CLOCK_MONOTONIC
  struct rusage usage {};           // from wait4
  std::string output_digest;        // sha256 of captured stdout+stderr (capture only)
  std::uint64_t output_bytes = 0;
  std::string output;               // first 64 KiB of captured output (capture only)
  bool ok() const { return signal == 0 && !timed_out && exit_code == 0; }
};

// PATH lookup as execvp does, without a shell. Throws Error(target) with the exact
// reason: not found, a directory, not executable, not an executable format.
std::string resolve_target(const std::string& prog);

// Move-only handle on a corked child. Destroying it before wait() kills the child's
// whole process group and reaps it.
class CorkedChild {
 public:
  static CorkedChild spawn(const LaunchSpec& spec);  // throws Error(target|host)
  CorkedChild(CorkedChild&&) noexcept;
  CorkedChild& operator=(CorkedChild&&) noexcept;
  CorkedChild(const CorkedChild&) = delete;
  CorkedChild& operator=(const CorkedChild&) = delete;
  ~CorkedChild();

  pid_t pid() const { return pid_; }
  // Lets the child exec. Throws Error(target) if exec failed (reason from the child).
  void release();
  // Reaps the child (honouring the timeout); returns status, rusage, wall time.
  ExitInfo wait();
  // Kills the process group now (SIGKILL); used on Ctrl-C.
  void kill_group();

 private:
  CorkedChild() = default;
  pid_t pid_ = -1;
  UniqueFd release_fd_;   // parent writes one byte to let the child go
  UniqueFd exec_err_fd_;  // child writes errno here if execve fails (CLOEXEC)
  UniqueFd output_fd_;    // read end of captured stdout/stderr
  double timeout_s_ = 0;
  std::uint64_t t_release_ns_ = 0;
  bool reaped_ = false;
  bool capture_ = false;
};

}  // namespace obscheck
