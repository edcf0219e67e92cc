// launch/: start a target exactly as asked, held (corked) until observers attach.
//
// Cork protocol (as perf): clone → the child resets its signals, sets its process
// group, personality, CPU affinity and stdio, then waits in the cork → the parent
// attaches counters to the child's pid (enable_on_exec) → release() → the child takes
// on LaunchSpec::run_as, if set → the child execve()s. The target is never run through
// a shell.
//
// The cork, when the child shares the driver's memory (clone with CLONE_VM: every run
// but under valgrind, or where a sandbox refuses it): a futex word in that memory, on
// which the child sleeps until release() stores 1 and wakes it. A set-up or exec failure
// ({stage, errno}) and the child's usage before its execve are written into the same
// memory; the kernel clears a second word and wakes its futex when the child stops
// running on that memory, at its execve or its exit (CLONE_CHILD_CLEARTID), and
// release() sleeps on it: no descriptor, no message. Otherwise (LaunchSpec::own_memory,
// or the fallback): a close-on-exec socketpair, one byte sent to release, EOF on exec,
// the failure or the usage sent on it. Either way the parent learns
// ENOENT/ENOEXEC/EACCES precisely. The child asks to be SIGKILLed when the spawning
// thread's process dies (PR_SET_PDEATHSIG, kept across exec), so a target never
// outlives a driver killed with SIGKILL; a child still corked also gives up when it
// finds, on a one-second tick, that the driver is no longer its parent.
#pragma once

#include <sys/resource.h>
#include <sys/types.h>

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "util/fd.h"

namespace obscheck {

// The child's environment, byte-exact. size_bytes() counts what the kernel copies
// onto the new stack: each "NAME=value" plus its NUL.
// Variables a shell sets about itself, not about the experiment: `_` (the last
// command's path: "/usr/bin/timeout" under timeout, "/usr/bin/sudo" under sudo),
// OLDPWD (the previous directory) and SHLVL (the nesting depth). Two shells started
// the same way give them different values and sizes, so a target that kept them would
// see its stack move between a check and its resume. The target never gets them.
inline constexpr const char* kShellBookkeeping[] = {"_", "OLDPWD", "SHLVL"};

class EnvBlock {
 public:
  EnvBlock() = default;
  explicit EnvBlock(std::vector<std::string> vars) : vars_(std::move(vars)) {}
  static EnvBlock from_current();  // this process's environ
  // this process's environ without the invoking shell's bookkeeping variables
  // (kShellBookkeeping): what every measuring command gives its target.
  static EnvBlock for_target();

  void set(const std::string& name, const std::string& value);  // replaces or appends
  void unset(const std::string& name);
  // Adds (or resizes, in place) the padding variable so that size_bytes() == total.
  // The padding variable counts: "NAME=" + filler + NUL, so the smallest block that
  // can be padded is size_bytes() (without the pad) + pad_name.size() + 2. Throws
  // Error(usage) when total is below that, or when the padding variable would be longer
  // than kMaxArgStringBytes (no exec would take it), before allocating it.
  void pad_to(std::size_t total, const std::string& pad_name = "OBSCHECK_PAD");
  std::size_t size_bytes() const;
  const std::vector<std::string>& vars() const { return vars_; }

 private:
  std::vector<std::string> vars_;
};

enum class Stdio { discard, capture, inherit };

// The identity a target runs as (--run-as USER): the user's uid, primary gid and
// supplementary groups, as login(1) would give them. The corked child takes it on
// after it leaves the cork, that is after the observers are attached to it, right
// before execve: only the target loses root's privileges, never obscheck and its
// observers. The environment is left exactly as given (as setpriv(1) does), so the
// target's environment block has the same bytes, and the same size, with and without
// --run-as: the layout a check holds constant does not move.
struct Credentials {
  std::string user;             // the name (as looked up), for messages and the journal
  uid_t uid = 0;
  gid_t gid = 0;
  std::vector<gid_t> groups;    // supplementary groups, the primary gid included
};

// The credentials of USER (a name, or a numeric uid that has a passwd entry), from
// the passwd and group databases (getpwnam_r, getgrouplist). Throws Error(usage) for a
// user that does not exist.
Credentials credentials_of(const std::string& user);

struct LaunchSpec {
  std::string path;                 // resolved executable path (see resolve_target)
  std::vector<std::string> argv;    // argv[0] included
  EnvBlock env;
  std::string cwd;                  // empty: inherit
  bool aslr = false;                // false: personality(ADDR_NO_RANDOMIZE)
  int cpu = -1;                     // >= 0: pin to this CPU
  double timeout_s = 0;             // > 0: SIGKILL the process group after this long
  Stdio out = Stdio::discard;       // stdout and stderr together
  // Descriptors handed to the target: the parent's `fd` becomes `target` (>= 3) in
  // the child, without close-on-exec. Every other fd above 2 is closed at exec. The
  // parent keeps its own copy; closing it after spawn() is the caller's business.
  struct PassFd {
    int fd;
    int target;
  };
  std::vector<PassFd> pass_fds;
  // Set: the target runs as this user (see Credentials); dropping them needs root or
  // CAP_SETUID and CAP_SETGID, else release() throws Error(host).
  std::optional<Credentials> run_as;
  // Signals the child resets to their default disposition before exec: what
  // non_default_signals() returned while the dispositions were what they are at
  // spawn. Empty optional: every signal, one rt_sigaction each in the child (64 calls,
  // about 6 us here, on the way to every run).
  std::optional<std::vector<int>> reset_signals;
  // True: the corked child gets a copy of the driver's memory (a fork-like clone, the
  // cork a socket) even where it could share it, as it must under valgrind or in a
  // sandbox that refuses CLONE_VM; a page-table copy and a socket more a run. For
  // tests of that path; false everywhere else.
  bool own_memory = false;
};

// The signals (SIGKILL and SIGSTOP aside) whose disposition in this process is not the
// default, handled or ignored, now, read from the kernel (glibc's own included): a
// child cloned from it has every other signal at its default already. A caller that
// spawns many children while its dispositions stay as they are (a sweep, with its
// Ctrl-C handler installed) takes this once for LaunchSpec::reset_signals.
std::vector<int> non_default_signals();

struct ExitInfo {
  int exit_code = -1;       // valid when !signaled
  int signal = 0;           // terminating signal, 0 if exited
  bool timed_out = false;   // killed by the timeout
  std::uint64_t wall_ns = 0;        // the child leaving the cork (else release()) to reaped, CLOCK_MONOTONIC
  // The target's usage from its exec to its exit: wait4's, less what the corked child
  // used before its execve (its wait in the cork while the observers were attached is
  // obscheck's, and grows with the dose: a counter list that takes longer to open gives
  // the child another voluntary switch). ru_maxrss is wait4's as it is: a peak cannot
  // be subtracted (see rusage_since), and the kernel keeps, at execve, the peak of the
  // memory the child left (fs/exec.c: setmax_mm_hiwater_rss into signal->maxrss),
  // which is the driver's (the child shares it, or copied it), so it is the larger of
  // the target's peak and the driver's own peak at the exec: see pre_exec_maxrss_kb.
  struct rusage usage {};
  // The corked child's ru_maxrss (KiB) read just before its execve: the driver's peak
  // the kernel carries across the exec, a floor under usage.ru_maxrss whatever the
  // target does. When usage.ru_maxrss does not exceed it, the target's own peak is
  // hidden (only known to be <= usage.ru_maxrss); when it does, usage.ru_maxrss is the
  // target's. Unset when the child could not report its usage (getrusage failed, or
  // the run was not launched through a corked child).
  std::optional<std::uint64_t> pre_exec_maxrss_kb;
  std::string output_digest;        // sha256 of captured stdout+stderr (capture only)
  std::uint64_t output_bytes = 0;
  std::string output;               // first 64 KiB of captured output (capture only)
  bool ok() const { return signal == 0 && !timed_out && exit_code == 0; }
};

// `total` less `before`, field by field, for the fields that count (times, faults,
// switches, blocks, signals, messages); never below zero. ru_maxrss is total's: a peak
// over the process's life is not a sum, so nothing can be taken from it (the caller
// keeps before.ru_maxrss as ExitInfo::pre_exec_maxrss_kb, to tell a hidden peak). Pure.
struct rusage rusage_since(const struct rusage& total, const struct rusage& before);

// The longest single argument or environment string execve takes, its NUL included:
// Linux's MAX_ARG_STRLEN, 32 pages of 4 KiB (include/uapi/linux/binfmts.h). A longer
// one fails the exec with E2BIG, so padding beyond it is refused before any run.
inline constexpr std::size_t kMaxArgStringBytes = 32 * 4096;

// Bytes the kernel copies for "NAME=value": the string plus its NUL.
inline std::size_t env_entry_bytes(const std::string& entry) { return entry.size() + 1; }

// PATH lookup as execvp does, without a shell. Throws Error(target) with the exact
// reason: not found, a directory, not executable, not an executable format.
std::string resolve_target(const std::string& prog);

// Move-only handle on a corked child. Destroying it before wait() kills the child's
// whole process group and reaps it.
//
// The child is its own process group (pgid == pid), has every signal at its default
// disposition and none blocked, stdin on /dev/null, and only fds 0-2 open after exec.
// Setup failures in the child (chdir, affinity, personality) and exec failures are
// reported by release(). The corked child shares the parent's memory until it execs
// (as posix_spawn's vfork does, but without suspending the parent), so spawning costs
// no page-table copy; everything it needs is prepared before it starts.
class CorkedChild {
 public:
  // Throws Error(usage) for a cwd that is not a directory, a CPU outside this
  // process's affinity mask or a pass_fds target below 3 or given twice, Error(host)
  // when the child cannot be created.
  static CorkedChild spawn(const LaunchSpec& spec);
  CorkedChild(CorkedChild&&) noexcept;
  CorkedChild& operator=(CorkedChild&&) noexcept;
  CorkedChild(const CorkedChild&) = delete;
  CorkedChild& operator=(const CorkedChild&) = delete;
  ~CorkedChild();

  pid_t pid() const { return pid_; }  // also the process group id
  bool released() const { return released_; }
  // Lets the child exec and returns once it has (or failed to). Throws Error(target)
  // if exec failed (ENOENT, EACCES, ENOEXEC... from the child), Error(usage) or
  // Error(host) if the child's setup failed; the child is reaped in either case.
  // A second call does nothing.
  void release();
  // Reaps the child (honouring the timeout, counted from release()); returns status,
  // rusage, wall time and, with Stdio::capture, the output digest. Captured output is
  // drained while waiting, so a chatty target cannot block on a full pipe; after the
  // child is reaped only what is already buffered is read, so a daemonized grandchild
  // holding the pipe cannot stall it. Calling it again returns the same ExitInfo.
  // Throws Error(internal) before release().
  ExitInfo wait();
  // release() then wait(), for a caller with nothing to do in between: the child is
  // reaped without first waiting for its exec to be confirmed, which spares the driver
  // one sleep and wake-up per run; a set-up or exec failure is read (from the shared
  // memory, or the cork socket) once the child is reaped and thrown as release() throws it.
  ExitInfo release_and_wait();
  // Kills the process group now (SIGKILL); used on Ctrl-C. Does nothing once reaped.
  void kill_group();

  struct Image;       // what the child needs, prepared before it starts (launcher.cpp)
  struct OutputSink;  // digest and first bytes of captured output

 private:
  CorkedChild();
  void reap_blocking();
  // release()'s two halves: the child let go (the futex word, or the go byte on the
  // socket), then its report once it has exec'd or exited (a set-up or exec failure,
  // thrown). recv_flags (socket only): MSG_DONTWAIT when the child is already reaped.
  void send_go();
  void take_report(int recv_flags);
  bool has_exited();
  // The corked child's usage before its execve, from the shared memory (when it
  // shares ours), then taken from wait4's once the child is reaped (once).
  void take_shared_usage();
  void settle_usage();
  void drain_output();
  void cleanup() noexcept;

  pid_t pid_ = -1;
  UniqueFd cork_fd_;      // socketpair end, only for a child with a memory of its own:
                          // one byte sent to release; EOF when exec succeeded, {stage,
                          // errno} when it failed
  UniqueFd pidfd_;        // clone(CLONE_PIDFD), only with a timeout or capture: poll()able exit
  UniqueFd output_fd_;    // read end of captured stdout/stderr
  std::unique_ptr<Image> image_;  // alive until the child has exec'd or died
  double timeout_s_ = 0;
  std::uint64_t t_release_ns_ = 0;  // the target's clock start: release(), then the child leaving the cork
  bool released_ = false;
  bool reaped_ = false;
  bool capture_ = false;
  int status_ = 0;
  std::optional<struct rusage> pre_exec_;  // the child's usage before execve, once known
  bool usage_settled_ = false;             // info_.usage is the target's (pre_exec_ taken off)
  ExitInfo info_;
  std::unique_ptr<OutputSink> sink_;      // digest + first bytes (capture only)
};

}  // namespace obscheck
