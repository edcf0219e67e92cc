#include "launch/launcher.h"

#include <fcntl.h>
#include <linux/close_range.h>
#include <linux/futex.h>
#include <poll.h>
#include <sched.h>
#include <signal.h>
#include <sys/personality.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <fmt/core.h>

#include <algorithm>
#include <array>
#include <atomic>
#include <cerrno>
#include <cstring>

#include "launch/child_report.h"
#include "util/digest.h"
#include "util/error.h"
#include "util/raw_syscall.h"

namespace obscheck {
using launch_detail::ChildReport;
using launch_detail::child_failure;
using namespace launch_detail;  // the Stage enumerators

namespace {

// The corked child runs only a handful of system calls before execve; 64 KiB is far
// more stack than its frames need.
constexpr std::size_t kChildStackBytes = 64 * 1024;
// Captured output kept verbatim in ExitInfo::output (all of it is hashed).
constexpr std::size_t kCaptureKeepBytes = 64 * 1024;
constexpr std::size_t kReadChunk = 16 * 1024;
// Exit status of a child whose setup or exec failed (as the shells use for "cannot
// execute"); the reason is in the shared memory, or on the cork socket.
constexpr int kChildFailedStatus = 127;
// The child exits with this when the parent went away without releasing it.
constexpr int kChildAbandonedStatus = 125;
constexpr long kNsPerSec = 1'000'000'000L;
// A child waiting on the futex cork looks this often whether the driver is still its
// parent (PR_SET_PDEATHSIG kills it first; this is in case it did not).
constexpr long kCorkCheckSeconds = 1;
// How often release() looks whether a child that shares our memory has exited without
// the kernel clearing its word (a core dump): in nanoseconds.
constexpr long kExecCheckNs = 100'000'000;
// Only without a pidfd: how often wait() looks whether the child has exited.
constexpr std::uint64_t kNoPidfdTickNs = 10'000'000;

// The corked child shares the parent's memory: raw system calls only (util/raw_syscall.h).
long sys(long n, long a = 0, long b = 0, long c = 0, long d = 0) { return raw_syscall(n, a, b, c, d); }

// The kernel's struct sigaction for rt_sigaction (handler, flags, restorer, mask).
struct KernelSigaction {
  void* handler = nullptr;  // SIG_DFL
  unsigned long flags = 0;
  void* restorer = nullptr;
  std::uint64_t mask = 0;
};
constexpr int kKernelNsig = 64;

std::uint64_t now_ns() {
  timespec ts{};
  ::clock_gettime(CLOCK_MONOTONIC, &ts);
  return static_cast<std::uint64_t>(ts.tv_sec) * kNsPerSec + static_cast<std::uint64_t>(ts.tv_nsec);
}

std::string errno_text(int err) { return fmt::format("{} (errno {})", std::strerror(err), err); }

// Keeps the driver's own descriptors off 0-2 so the child's stdio moves cannot
// clobber them (only happens when the driver was started with stdio closed).
int above_stdio(int fd) {
  if (fd >= 0 && fd < 3) {
    const int moved = ::fcntl(fd, F_DUPFD_CLOEXEC, 3);
    ::close(fd);
    return moved;
  }
  return fd;
}

}  // namespace

struct CorkedChild::Image {
  std::string path;
  std::vector<std::string> args;
  std::vector<std::string> env;
  std::vector<char*> argv;
  std::vector<char*> envp;
  std::string cwd;
  bool aslr = false;
  // The driver's personality as read once (driver_personality), or -1: the child then
  // reads its own. The child inherits it, so it need not read it again each run.
  long persona = -1;
  // The driver's /dev/null (driver_null), or -1: the child then opens its own.
  int nul = -1;
  bool pin = false;
  cpu_set_t cpus{};
  Stdio out = Stdio::discard;
  pid_t parent = -1;  // the driver: the child dies with it (PR_SET_PDEATHSIG)
  int cork = -1;    // the child's end of the cork socket (only when it has a memory of its own)
  int out_wr = -1;  // write end of the capture pipe
  std::vector<LaunchSpec::PassFd> pass;  // sources clear of every target (see spawn)
  bool reset_all_signals = true;
  std::vector<int> reset_signals;  // when not all: the ones not at their default
  bool drop = false;               // take on uid/gid/groups below before exec
  std::string user;                // their name, for messages
  uid_t uid = 0;
  gid_t gid = 0;
  std::vector<gid_t> groups;
  // The cork when the child shares our memory: it sleeps on this futex word until the
  // parent stores 1 and wakes it (FUTEX_*_PRIVATE: one address space).
  mutable std::atomic<std::uint32_t> go{0};
  // 1 from before clone until the child stops running on our memory: the kernel stores 0
  // and wakes this futex (CLONE_CHILD_CLEARTID; a shared futex, as the kernel's wake is
  // not private) when the child execs (fs/exec.c: exec_mm_release, past the point of no
  // return) or exits (kernel/fork.c: mm_release, done while the parent still holds the
  // memory). release() sleeps on it.
  mutable std::atomic<std::uint32_t> on_our_memory{1};
  // A set-up or exec failure, written by the child (sharing our memory) before it exits:
  // fail_err first, then fail_stage (0: none).
  mutable int fail_err = 0;
  mutable std::atomic<int> fail_stage{0};
  // Written by the child (through the shared memory) when it leaves the cork: the
  // target's clock starts there, not at release(), so neither the rest of the child's
  // set-up nor its wake-up is counted (both depend on how long the counters took to
  // open, that is on the dose). 0 when the child does not share our memory.
  mutable std::atomic<std::uint64_t> left_cork_ns{0};
  // The child's own usage right before its execve (getrusage RUSAGE_SELF), to be taken
  // from wait4's: valid once pre_exec_ready is set. Only when the child shares our
  // memory; a child with a memory of its own sends it on the cork socket.
  bool shared = false;
  mutable struct rusage pre_exec {};
  mutable std::atomic<bool> pre_exec_ready{false};
  alignas(64) std::array<char, kChildStackBytes> stack;
};

struct CorkedChild::OutputSink {
  Sha256 hash;
  std::string head;
  std::uint64_t bytes = 0;
  void add(const char* p, std::size_t n) {
    hash.update(p, n);
    bytes += n;
    if (head.size() < kCaptureKeepBytes) head.append(p, std::min(n, kCaptureKeepBytes - head.size()));
  }
};

namespace {

[[noreturn]] void child_exit(int code) {
  for (;;) sys(SYS_exit_group, code);
}

// A set-up or exec failure (err: a raw system call's -errno): into the shared memory,
// or on the cork socket when the child has a memory of its own.
void child_report(const CorkedChild::Image& im, int stage, long err) {
  if (im.shared) {
    im.fail_err = static_cast<int>(-err);
    im.fail_stage.store(stage, std::memory_order_release);
    return;
  }
  const ChildReport r{stage, static_cast<int>(-err)};
  sys(SYS_write, im.cork, reinterpret_cast<long>(&r), sizeof r);
}

// Waits in the cork until the parent lets the child go: on the futex word Image::go
// when it shares our memory (spurious wake-ups and signals only loop), else for the
// byte on the cork socket. False when the parent went away without releasing it.
bool child_wait_in_cork(const CorkedChild::Image& im) {
  if (im.shared) {
    const timespec tick{kCorkCheckSeconds, 0};
    while (im.go.load(std::memory_order_acquire) == 0) {
      const long r = sys(SYS_futex, reinterpret_cast<long>(&im.go), FUTEX_WAIT_PRIVATE, 0, reinterpret_cast<long>(&tick));
      if (r == -ETIMEDOUT && sys(SYS_getppid) != im.parent) return false;
    }
    return true;
  }
  char go = 0;
  long n;
  do n = sys(SYS_read, im.cork, reinterpret_cast<long>(&go), 1);
  while (n == -EINTR);
  return n == 1;
}

long move_fd(int from, int to) {
  if (from == to) return sys(SYS_fcntl, to, F_SETFD, 0);
  return sys(SYS_dup3, from, to, 0);
}

long child_stdio(const CorkedChild::Image& im) {
  long r = 0;
  if (im.out == Stdio::capture) {
    if ((r = move_fd(im.out_wr, 1)) < 0 || (r = move_fd(im.out_wr, 2)) < 0) return r;
  }
  // The driver's own /dev/null when it has one (above 2, close-on-exec: dup3 onto 0-2
  // gives the target copies without the flag), else one opened here and closed after.
  const long nul = im.nul >= 0 ? im.nul : sys(SYS_openat, AT_FDCWD, reinterpret_cast<long>("/dev/null"), O_RDWR);
  if (nul < 0) return nul;
  if (im.out == Stdio::discard) {
    if ((r = move_fd(static_cast<int>(nul), 1)) < 0 || (r = move_fd(static_cast<int>(nul), 2)) < 0) return r;
  }
  if ((r = move_fd(static_cast<int>(nul), 0)) < 0) return r;
  if (nul > 2 && im.nul < 0) sys(SYS_close, nul);
  return 0;
}

// CLOCK_MONOTONIC by a raw system call (the child must not use the vDSO's data through
// libc); 0 if it fails.
std::uint64_t raw_now_ns() {
  timespec ts{};
  if (sys(SYS_clock_gettime, CLOCK_MONOTONIC, reinterpret_cast<long>(&ts)) != 0) return 0;
  return static_cast<std::uint64_t>(ts.tv_sec) * kNsPerSec + static_cast<std::uint64_t>(ts.tv_nsec);
}

// Gives up root for the target's user, in the only order that works: supplementary
// groups and the gid while still privileged, the uid last (after it, nothing else
// could be changed). Real, effective and saved ids all change, so the target cannot
// take root back; that is then checked (CERT POS37-C). 0 or the failing stage.
int child_drop_privileges(const CorkedChild::Image& im, long& r) {
  r = sys(SYS_setgroups, static_cast<long>(im.groups.size()), reinterpret_cast<long>(im.groups.data()));
  if (r < 0) return stage_setgroups;
  r = sys(SYS_setresgid, im.gid, im.gid, im.gid);
  if (r < 0) return stage_setgid;
  r = sys(SYS_setresuid, im.uid, im.uid, im.uid);
  if (r < 0) return stage_setuid;
  if (im.uid != 0 && sys(SYS_setuid, 0) == 0) {
    r = -EPERM;
    return stage_regain;
  }
  // The kernel clears the parent-death signal when the credentials change
  // (commit_creds), so a target started --run-as would outlive a kill -9 of the
  // driver: set it again, then check the driver did not die in between (the parent
  // would then be a reaper, and the signal would never come).
  sys(SYS_prctl, PR_SET_PDEATHSIG, SIGKILL);
  if (sys(SYS_getppid) != im.parent) child_exit(kChildAbandonedStatus);
  return 0;
}

// The child's usage so far (its set-up, and its wait in the cork while the observers
// were attached), the last thing before execve: through the shared memory, or on the
// cork socket when the child has a memory of its own. Nothing when getrusage fails:
// wait4's usage is then kept whole.
void child_report_usage(const CorkedChild::Image& im) {
  struct rusage ru {};
  if (sys(SYS_getrusage, RUSAGE_SELF, reinterpret_cast<long>(&ru)) != 0) return;
  if (im.shared) {
    im.pre_exec = ru;
    im.pre_exec_ready.store(true, std::memory_order_release);
    return;
  }
  struct {
    ChildReport head{stage_usage, 0};
    struct rusage usage;
  } msg;
  msg.usage = ru;
  sys(SYS_write, im.cork, reinterpret_cast<long>(&msg), sizeof msg);
}

// Runs between clone and execve: raw system calls only (see sys()).
int child_main(void* arg) {
  const auto& im = *static_cast<const CorkedChild::Image*>(arg);
  // Every signal back to its default action, then none blocked: the target must not
  // inherit the driver's SIGINT handler, an ignored SIGPIPE or a blocked mask.
  const KernelSigaction dfl{};
  const auto reset = [&](int sig) { sys(SYS_rt_sigaction, sig, reinterpret_cast<long>(&dfl), 0, sizeof dfl.mask); };
  if (im.reset_all_signals) {
    for (int sig = 1; sig <= kKernelNsig; ++sig)
      if (sig != SIGKILL && sig != SIGSTOP) reset(sig);
  } else {
    for (int sig : im.reset_signals) reset(sig);
  }
  const std::uint64_t no_signals = 0;
  sys(SYS_rt_sigprocmask, SIG_SETMASK, reinterpret_cast<long>(&no_signals), 0, sizeof no_signals);

  // The target dies with the driver, even under kill -9 of the driver: a run nobody
  // waits for is no measurement and would load the machine. Set after the signals are
  // reset (it survives exec, except of a set-user-ID program); a driver that died
  // before it was set is seen by the parent having changed.
  sys(SYS_prctl, PR_SET_PDEATHSIG, SIGKILL);
  if (sys(SYS_getppid) != im.parent) child_exit(kChildAbandonedStatus);

  int stage = 0;
  long r = sys(SYS_setpgid, 0, 0);
  if (r < 0) stage = stage_pgid;
  if (stage == 0) {
    const long cur = im.persona >= 0 ? im.persona : sys(SYS_personality, 0xffffffffL);
    r = cur;
    if (cur >= 0) {
      const long want = im.aslr ? (cur & ~static_cast<long>(ADDR_NO_RANDOMIZE)) : (cur | ADDR_NO_RANDOMIZE);
      if (want != cur) r = sys(SYS_personality, want);
    }
    if (r < 0) stage = stage_personality;
  }
  if (stage == 0 && im.pin) {
    r = sys(SYS_sched_setaffinity, 0, sizeof im.cpus, reinterpret_cast<long>(&im.cpus));
    if (r < 0) stage = stage_affinity;
  }
  if (stage == 0 && !im.cwd.empty()) {
    r = sys(SYS_chdir, reinterpret_cast<long>(im.cwd.c_str()));
    if (r < 0) stage = stage_chdir;
  }
  if (stage == 0) {
    r = child_stdio(im);
    if (r < 0) stage = stage_stdio;
  }
  // Only 0-2 and the passed fds survive the exec; descriptors the driver leaked
  // without O_CLOEXEC would otherwise differ between runs. (ENOSYS before 5.11:
  // nothing more to do.) The passed fds are placed after, without close-on-exec.
  sys(SYS_close_range, 3, ~0U, CLOSE_RANGE_CLOEXEC);
  for (const auto& p : im.pass) {
    if (stage == 0 && (r = move_fd(p.fd, p.target)) < 0) stage = stage_stdio;
  }

  if (!child_wait_in_cork(im)) child_exit(kChildAbandonedStatus);
  // The observers are attached now: only the target gives up root.
  if (stage == 0 && im.drop) stage = child_drop_privileges(im, r);
  if (stage != 0) {
    child_report(im, stage, r);
    child_exit(kChildFailedStatus);
  }
  im.left_cork_ns.store(raw_now_ns(), std::memory_order_release);
  child_report_usage(im);
  r = sys(SYS_execve, reinterpret_cast<long>(im.path.c_str()), reinterpret_cast<long>(im.argv.data()),
          reinterpret_cast<long>(im.envp.data()));
  child_report(im, stage_exec, r);
  child_exit(kChildFailedStatus);
}

// The driver's personality, read once: nothing in obscheck changes its own, and every
// child inherits it, so the child is handed it instead of asking the kernel each run.
// -1 when it cannot be read (the child then reads, and reports, its own).
long driver_personality() {
  static const long persona = ::personality(0xffffffff);
  return persona;
}

// /dev/null opened once for every child's stdio (read-write, close-on-exec, above 2 so
// that no stdio move can clobber it), instead of an open and a close in each child;
// kept open for the driver's life. -1 when it cannot be opened: each child then opens
// its own and reports the failure as before.
int driver_null() {
  static const int fd = above_stdio(::open("/dev/null", O_RDWR | O_CLOEXEC));
  return fd;
}

// clone() of the corked child, with every signal blocked around it: no signal handler
// of the driver may run in a child that shares its memory (the child resets every
// disposition and unblocks all signals itself). share_vm: CLONE_VM, and
// CLONE_CHILD_CLEARTID on Image::on_our_memory, for release() to learn when the child
// has exec'd. The child's pid, or -1 with its errno in `err`.
pid_t clone_corked(CorkedChild::Image& im, int flags, bool share_vm, int* pidfd, int& err) {
  static_assert(sizeof im.on_our_memory == sizeof(pid_t) && std::atomic<std::uint32_t>::is_always_lock_free,
                "the kernel clears the child-tid word as a plain 32-bit int");
  im.shared = share_vm;
  im.on_our_memory.store(1, std::memory_order_relaxed);
  if (share_vm) flags |= CLONE_VM | CLONE_CHILD_CLEARTID;
  sigset_t all, old;
  sigfillset(&all);
  ::pthread_sigmask(SIG_SETMASK, &all, &old);
  char* const stack_top = im.stack.data() + im.stack.size();
  auto* const ctid = reinterpret_cast<pid_t*>(&im.on_our_memory);
  const pid_t pid = ::clone(child_main, stack_top, flags, &im, pidfd, nullptr, ctid);
  err = errno;
  ::pthread_sigmask(SIG_SETMASK, &old, nullptr);
  return pid;
}

int max_pass_target(const LaunchSpec& spec) {
  int m = 2;
  for (const auto& p : spec.pass_fds) m = std::max(m, p.target);
  return m;
}

void check_pass_fds(const LaunchSpec& spec) {
  for (std::size_t i = 0; i < spec.pass_fds.size(); ++i) {
    const auto& p = spec.pass_fds[i];
    if (p.target < 3 || p.fd < 0)
      throw Error(ErrorKind::usage, fmt::format("cannot pass fd {} as fd {}: the target number must be 3 or more "
                                                "and the fd open", p.fd, p.target));
    for (std::size_t j = 0; j < i; ++j)
      if (spec.pass_fds[j].target == p.target)
        throw Error(ErrorKind::usage, fmt::format("fd {} is passed to the target twice", p.target));
  }
}

std::unique_ptr<CorkedChild::Image> prepare_image(const LaunchSpec& spec) {
  if (spec.path.empty()) throw Error(ErrorKind::usage, "no program to run: the path is empty");
  check_pass_fds(spec);
  if (!spec.cwd.empty()) {
    struct stat st {};
    if (::stat(spec.cwd.c_str(), &st) != 0)
      throw Error(ErrorKind::usage, fmt::format("working directory {}: {}", spec.cwd, std::strerror(errno)));
    if (!S_ISDIR(st.st_mode))
      throw Error(ErrorKind::usage, fmt::format("working directory {}: not a directory", spec.cwd));
  }
  // Default-initialised on purpose: make_unique would zero the 64 KiB stack per run.
  std::unique_ptr<CorkedChild::Image> im(new CorkedChild::Image);
  im->path = spec.path;
  im->args = spec.argv.empty() ? std::vector<std::string>{spec.path} : spec.argv;
  im->env = spec.env.vars();
  im->argv.reserve(im->args.size() + 1);
  for (auto& a : im->args) im->argv.push_back(a.data());
  im->argv.push_back(nullptr);
  im->envp.reserve(im->env.size() + 1);
  for (auto& e : im->env) im->envp.push_back(e.data());
  im->envp.push_back(nullptr);
  im->cwd = spec.cwd;
  im->parent = ::getpid();
  if (spec.reset_signals) {
    im->reset_all_signals = false;
    im->reset_signals = *spec.reset_signals;
  }
  im->aslr = spec.aslr;
  im->persona = driver_personality();
  im->nul = driver_null();
  im->out = spec.out;
  if (spec.run_as) {
    im->drop = true;
    im->user = spec.run_as->user;
    im->uid = spec.run_as->uid;
    im->gid = spec.run_as->gid;
    im->groups = spec.run_as->groups;
  }
  if (spec.cpu >= 0) {
    cpu_set_t allowed;
    CPU_ZERO(&allowed);
    if (::sched_getaffinity(0, sizeof allowed, &allowed) != 0 || spec.cpu >= CPU_SETSIZE ||
        !CPU_ISSET(spec.cpu, &allowed))
      throw Error(ErrorKind::usage,
                  fmt::format("--cpu {}: CPU {} is not available to this process", spec.cpu, spec.cpu),
                  fmt::format("choose one of the {} CPUs this process may run on (see taskset -p {})",
                              CPU_COUNT(&allowed), ::getpid()));
    im->pin = true;
    CPU_ZERO(&im->cpus);
    CPU_SET(spec.cpu, &im->cpus);
  }
  return im;
}

}  // namespace

std::vector<int> non_default_signals() {
  std::vector<int> out;
  for (int sig = 1; sig <= kKernelNsig; ++sig) {
    if (sig == SIGKILL || sig == SIGSTOP) continue;
    KernelSigaction now{};
    // The system call, not sigaction(3): glibc refuses to show its own signals.
    if (::syscall(SYS_rt_sigaction, sig, nullptr, &now, sizeof now.mask) != 0 || now.handler != nullptr)
      out.push_back(sig);
  }
  return out;
}

CorkedChild::CorkedChild() = default;

CorkedChild CorkedChild::spawn(const LaunchSpec& spec) {
  CorkedChild c;
  c.image_ = prepare_image(spec);
  c.timeout_s_ = spec.timeout_s;
  c.capture_ = spec.out == Stdio::capture;

  UniqueFd out_wr;
  if (c.capture_) {
    int p[2];
    if (::pipe2(p, O_CLOEXEC) != 0)
      throw Error(ErrorKind::host, "cannot create the output pipe: " + errno_text(errno));
    c.output_fd_.reset(above_stdio(p[0]));
    out_wr.reset(above_stdio(p[1]));
    // Read end only: after the child is reaped, draining must never block.
    ::fcntl(c.output_fd_.get(), F_SETFL, O_NONBLOCK);
    c.sink_ = std::make_unique<OutputSink>();
  }
  // No descriptor the child still needs may sit on a number a passed fd moves onto.
  std::vector<UniqueFd> moved;
  const auto clear_of_targets = [&](int fd) {
    const auto& pass = spec.pass_fds;
    if (std::none_of(pass.begin(), pass.end(), [&](const LaunchSpec::PassFd& p) { return p.target == fd; }))
      return fd;
    const int high = ::fcntl(fd, F_DUPFD_CLOEXEC, max_pass_target(spec) + 1);
    if (high < 0) throw Error(ErrorKind::host, "cannot move a descriptor for the target: " + errno_text(errno));
    moved.emplace_back(high);
    return high;
  };
  // The cork socket, only for a child with a memory of its own (the parent keeps one end).
  UniqueFd child_cork;
  const auto open_cork_socket = [&] {
    int sv[2];
    if (::socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sv) != 0)
      throw Error(ErrorKind::host, "cannot create the cork socket: " + errno_text(errno));
    c.cork_fd_.reset(above_stdio(sv[0]));
    child_cork.reset(above_stdio(sv[1]));
    c.image_->cork = clear_of_targets(child_cork.get());
  };
  // Valgrind supports clone() only as fork or threads: under it, a plain fork-like
  // clone and pidfd_open (so the driver's own tests can run under memcheck).
  const bool emulated = RUNNING_ON_VALGRIND != 0;
  const bool share_vm = shared_vm_child() && !spec.own_memory;
  if (!share_vm) open_cork_socket();
  c.image_->out_wr = c.capture_ ? clear_of_targets(out_wr.get()) : -1;
  for (const auto& p : spec.pass_fds) {
    // A source that is another entry's target would be overwritten before its move.
    const bool clobbered = std::any_of(spec.pass_fds.begin(), spec.pass_fds.end(), [&](const auto& q) {
      return q.target == p.fd && q.target != p.target;
    });
    c.image_->pass.push_back({clobbered ? clear_of_targets(p.fd) : p.fd, p.target});
  }

  int pidfd = -1;
  // A pidfd only when wait() must poll (timeout or capture); else wait4 blocks.
  const bool need_pidfd = c.capture_ || c.timeout_s_ > 0;
  const int flags = (need_pidfd && !emulated ? CLONE_PIDFD : 0) | SIGCHLD;
  int clone_errno = 0;
  pid_t pid = clone_corked(*c.image_, flags, share_vm, &pidfd, clone_errno);
  if (pid < 0 && clone_errno == EINVAL && share_vm) {
    // Sandboxes (gVisor) may refuse CLONE_VM without CLONE_VFORK: a copied address
    // space works the same (with the cork on a socket), only costs more.
    open_cork_socket();
    pid = clone_corked(*c.image_, flags, false, &pidfd, clone_errno);
  }
  if (pid > 0 && need_pidfd && emulated) pidfd = static_cast<int>(::syscall(SYS_pidfd_open, pid, 0));
  if (pid < 0) throw Error(ErrorKind::host, "cannot create the target process: " + errno_text(clone_errno),
                           "check ulimit -u and memory");
  c.pid_ = pid;
  c.pidfd_.reset(pidfd);
  return c;
}

CorkedChild::CorkedChild(CorkedChild&& o) noexcept
    : pid_(std::exchange(o.pid_, -1)),
      cork_fd_(std::move(o.cork_fd_)),
      pidfd_(std::move(o.pidfd_)),
      output_fd_(std::move(o.output_fd_)),
      image_(std::move(o.image_)),
      timeout_s_(o.timeout_s_),
      t_release_ns_(o.t_release_ns_),
      released_(o.released_),
      reaped_(std::exchange(o.reaped_, true)),
      capture_(o.capture_),
      status_(o.status_),
      pre_exec_(std::exchange(o.pre_exec_, std::nullopt)),
      usage_settled_(o.usage_settled_),
      info_(std::move(o.info_)),
      sink_(std::move(o.sink_)) {}

CorkedChild& CorkedChild::operator=(CorkedChild&& o) noexcept {
  if (this != &o) {
    cleanup();
    pid_ = std::exchange(o.pid_, -1);
    cork_fd_ = std::move(o.cork_fd_);
    pidfd_ = std::move(o.pidfd_);
    output_fd_ = std::move(o.output_fd_);
    image_ = std::move(o.image_);
    timeout_s_ = o.timeout_s_;
    t_release_ns_ = o.t_release_ns_;
    released_ = o.released_;
    reaped_ = std::exchange(o.reaped_, true);
    capture_ = o.capture_;
    status_ = o.status_;
    pre_exec_ = std::exchange(o.pre_exec_, std::nullopt);
    usage_settled_ = o.usage_settled_;
    info_ = std::move(o.info_);
    sink_ = std::move(o.sink_);
  }
  return *this;
}

CorkedChild::~CorkedChild() { cleanup(); }

void CorkedChild::cleanup() noexcept {
  if (pid_ > 0 && !reaped_) {
    kill_group();
    reap_blocking();
  }
  // Only now may the child's stack and arrays go: the child is gone.
  image_.reset();
}

void CorkedChild::kill_group() {
  if (pid_ <= 0 || reaped_) return;
  // Before the child's setpgid the group does not exist yet: kill the child alone.
  if (::kill(-pid_, SIGKILL) != 0) ::kill(pid_, SIGKILL);
}

void CorkedChild::reap_blocking() {
  pid_t r;
  do r = ::wait4(pid_, &status_, 0, &info_.usage);
  while (r < 0 && errno == EINTR);
  const std::uint64_t t_end = now_ns();
  reaped_ = true;
  pidfd_.reset();
  // Released without waiting for the exec (release_and_wait): the clock starts where
  // the child left the cork, as release() sets it.
  if (image_) {
    if (const std::uint64_t left = image_->left_cork_ns.load(std::memory_order_acquire); left > t_release_ns_)
      t_release_ns_ = left;
    take_shared_usage();
  }
  settle_usage();
  if (t_release_ns_ != 0) info_.wall_ns = t_end - t_release_ns_;
  if (WIFSIGNALED(status_)) {
    info_.signal = WTERMSIG(status_);
    info_.exit_code = -1;
  } else if (WIFEXITED(status_)) {
    info_.exit_code = WEXITSTATUS(status_);
  }
}

void CorkedChild::send_go() {
  released_ = true;
  t_release_ns_ = now_ns();
  if (image_->shared) {
    image_->go.store(1, std::memory_order_release);
    ::syscall(SYS_futex, &image_->go, FUTEX_WAKE_PRIVATE, 1, nullptr, nullptr, 0);
    return;
  }
  const char go = 1;
  // MSG_NOSIGNAL: a child that already died must not take the driver with it (SIGPIPE).
  ::send(cork_fd_.get(), &go, 1, MSG_NOSIGNAL);
}

namespace {

// Whether the child `pid` has exited, without reaping it (the zombie stays for wait4).
bool exited_unreaped(pid_t pid) {
  siginfo_t si{};
  return ::waitid(P_PID, static_cast<id_t>(pid), &si, WEXITED | WNOHANG | WNOWAIT) == 0 && si.si_pid == pid;
}

// The report of a child that shares our memory, once it has exec'd or exited (waits
// for that unless `reaped`): its failure, or none. The kernel leaves the word set when
// the child dumps core (kernel/fork.c mm_release keeps it for the debugger), so the
// wait also ends, on a tick, once the child is seen to have exited.
std::optional<ChildReport> shared_report(const CorkedChild::Image& im, pid_t pid, bool reaped) {
  const timespec tick{0, kExecCheckNs};
  for (std::uint32_t v; !reaped && (v = im.on_our_memory.load(std::memory_order_acquire)) != 0;) {
    if (::syscall(SYS_futex, &im.on_our_memory, FUTEX_WAIT, v, &tick, nullptr, 0) != 0 && errno == ETIMEDOUT)
      reaped = exited_unreaped(pid);
  }
  const int stage = im.fail_stage.load(std::memory_order_acquire);
  if (stage == 0) return std::nullopt;
  return ChildReport{stage, im.fail_err};
}

// The report of a child with a memory of its own, read from the cork socket `fd` until
// EOF (its end closes on exec, or as it dies): its usage before execve, into pre_exec,
// then its failure, or none. recv_flags: MSG_DONTWAIT once the child is reaped.
std::optional<ChildReport> socket_report(int fd, int recv_flags, std::optional<struct rusage>& pre_exec) {
  ChildReport report;
  ssize_t n;
  for (;;) {
    do n = ::recv(fd, &report, sizeof report, MSG_WAITALL | recv_flags);
    while (n < 0 && errno == EINTR);
    if (n != static_cast<ssize_t>(sizeof report) || report.stage != stage_usage) break;
    struct rusage usage {};
    ssize_t m;
    do m = ::recv(fd, &usage, sizeof usage, MSG_WAITALL | recv_flags);
    while (m < 0 && errno == EINTR);
    if (m == static_cast<ssize_t>(sizeof usage)) pre_exec = usage;
  }
  if (n == static_cast<ssize_t>(sizeof report)) return report;
  return std::nullopt;
}

}  // namespace

bool CorkedChild::has_exited() { return exited_unreaped(pid_); }

void CorkedChild::take_shared_usage() {
  if (image_ && image_->shared && image_->pre_exec_ready.load(std::memory_order_acquire))
    pre_exec_ = image_->pre_exec;
}

void CorkedChild::settle_usage() {
  if (!reaped_ || usage_settled_ || !pre_exec_) return;
  info_.usage = rusage_since(info_.usage, *pre_exec_);
  if (pre_exec_->ru_maxrss >= 0) info_.pre_exec_maxrss_kb = static_cast<std::uint64_t>(pre_exec_->ru_maxrss);
  usage_settled_ = true;
}

void CorkedChild::take_report(int recv_flags) {
  const std::optional<ChildReport> failure =
      image_->shared ? shared_report(*image_, pid_, reaped_) : socket_report(cork_fd_.get(), recv_flags, pre_exec_);
  cork_fd_.reset();
  if (failure) {
    const ChildReport report = *failure;
    if (!reaped_) reap_blocking();
    Error e = child_failure(image_->path, image_->cwd, image_->user, report);
    image_.reset();
    throw e;
  }
  // The child has exec'd (or died): it no longer runs on our memory. The target's
  // clock starts where the child left the cork.
  if (const std::uint64_t left = image_->left_cork_ns.load(std::memory_order_acquire); left > t_release_ns_)
    t_release_ns_ = left;
  take_shared_usage();
  image_.reset();
  settle_usage();
}

void CorkedChild::release() {
  if (released_ || pid_ <= 0) return;
  send_go();
  take_report(0);
}

ExitInfo CorkedChild::release_and_wait() {
  if (released_ || pid_ <= 0) return wait();
  send_go();
  wait();
  // The child is gone: its report (a set-up or exec failure, or the usage of a child that
  // did not share our memory) is in the shared memory, or on the socket with its EOF.
  take_report(MSG_DONTWAIT);
  return info_;
}

ExitInfo CorkedChild::wait() {
  if (!released_) throw Error(ErrorKind::internal, "wait() on a child that was never released");
  if (reaped_) return info_;
  if (timeout_s_ <= 0 && !capture_) {
    reap_blocking();
    return info_;
  }
  const bool has_deadline = timeout_s_ > 0;
  const std::uint64_t deadline = t_release_ns_ + static_cast<std::uint64_t>(timeout_s_ * kNsPerSec);
  // Without a pidfd (valgrind, kernels before 5.3) exit is checked on a short tick.
  const bool has_pidfd = static_cast<bool>(pidfd_);
  while (!reaped_) {
    pollfd fds[2] = {{pidfd_.get(), POLLIN, 0}, {output_fd_.get(), POLLIN, 0}};
    const nfds_t nfds = output_fd_ ? 2 : 1;
    const std::uint64_t now = now_ns();
    std::uint64_t rest = has_deadline ? (deadline > now ? deadline - now : 0) : UINT64_MAX;
    if (!has_pidfd) rest = std::min(rest, kNoPidfdTickNs);
    const timespec left{static_cast<time_t>(rest / kNsPerSec), static_cast<long>(rest % kNsPerSec)};
    const int r = ::ppoll(fds, nfds, rest != UINT64_MAX ? &left : nullptr, nullptr);
    if (r < 0) {
      if (errno == EINTR) continue;
      throw Error(ErrorKind::host, "waiting for the target: " + errno_text(errno));
    }
    if (nfds == 2 && (fds[1].revents & (POLLIN | POLLHUP | POLLERR)) != 0) drain_output();
    if ((fds[0].revents & POLLIN) != 0 || (!has_pidfd && has_exited())) {
      reap_blocking();
    } else if (has_deadline && now_ns() >= deadline) {
      kill_group();
      info_.timed_out = true;
      reap_blocking();
    }
  }
  if (capture_) {
    drain_output();
    output_fd_.reset();
    info_.output_bytes = sink_->bytes;
    info_.output = std::move(sink_->head);
    info_.output_digest = sink_->hash.hex();
  }
  return info_;
}

// Reads what the pipe holds right now (the read end is non-blocking). EOF closes it.
void CorkedChild::drain_output() {
  if (!output_fd_) return;
  std::array<char, kReadChunk> buf;
  for (;;) {
    const ssize_t n = ::read(output_fd_.get(), buf.data(), buf.size());
    if (n > 0) {
      sink_->add(buf.data(), static_cast<std::size_t>(n));
      continue;
    }
    if (n == 0) output_fd_.reset();
    if (n < 0 && errno == EINTR) continue;
    return;
  }
}

}  // namespace obscheck
