// probe_event / probe_event_set: availability established by really opening the
// events on a child that blocks and never execs.
#include <fcntl.h>
#include <sched.h>
#include <signal.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include <fmt/format.h>

#include <cerrno>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <memory>
#include <optional>
#include <string>

#include "events/event.h"
#include "util/error.h"
#include "util/fd.h"
#include "util/perf_syscalls.h"
#include "util/raw_syscall.h"

namespace obscheck {
namespace {

constexpr const char* kParanoidPath = "/proc/sys/kernel/perf_event_paranoid";

// The probing child's stack: it only makes raw system calls.
constexpr std::size_t kBlockedChildStackBytes = 16 * 1024;

struct PipeEnds {
  int read = -1, write = -1;
};

// Closes its copy of the write end, then blocks in read(2) until the driver's copy is
// closed (the driver went away) or the child is killed; never execs. Raw system calls
// only (util/raw_syscall.h).
int blocked_child_main(void* arg) {
  const PipeEnds ends = *static_cast<const PipeEnds*>(arg);
  raw_syscall(SYS_close, ends.write);
  char c;
  while (raw_syscall(SYS_read, ends.read, reinterpret_cast<long>(&c), 1) == -EINTR) {
  }
  for (;;) raw_syscall(SYS_exit_group, 0);
}

// A child blocked in read(2) on a pipe; never execs. It shares the driver's memory
// (clone with CLONE_VM, as the launcher's corked child does): a fork would copy the
// driver's page tables, about half a millisecond at every start. Every signal is
// blocked in it, so no handler of the driver runs on the shared memory; SIGKILL still
// ends it. Killed and reaped on destruction, so no path leaves a zombie.
class BlockedChild {
 public:
  BlockedChild() {
    int fds[2];
    if (::pipe2(fds, O_CLOEXEC) != 0)
      throw Error(ErrorKind::host, fmt::format("pipe: {}", std::strerror(errno)));
    UniqueFd rd(fds[0]);
    write_ = UniqueFd(fds[1]);
    ends_ = {fds[0], fds[1]};
    if (shared_vm_child()) {
      stack_ = std::make_unique<char[]>(kBlockedChildStackBytes);
      sigset_t all, old;
      sigfillset(&all);
      ::pthread_sigmask(SIG_SETMASK, &all, &old);
      pid_ = ::clone(blocked_child_main, stack_.get() + kBlockedChildStackBytes, CLONE_VM | SIGCHLD, &ends_);
      const int err = errno;
      ::pthread_sigmask(SIG_SETMASK, &old, nullptr);
      if (pid_ < 0) throw Error(ErrorKind::host, fmt::format("clone: {}", std::strerror(err)));
      return;
    }
    pid_ = ::fork();
    if (pid_ < 0) throw Error(ErrorKind::host, fmt::format("fork: {}", std::strerror(errno)));
    if (pid_ == 0) blocked_child_main(&ends_);
  }
  BlockedChild(const BlockedChild&) = delete;
  BlockedChild& operator=(const BlockedChild&) = delete;
  ~BlockedChild() {
    ::kill(pid_, SIGKILL);
    int status;
    while (::waitpid(pid_, &status, 0) < 0 && errno == EINTR) {
    }
    // Only now may the stack go: the child is gone.
  }
  pid_t pid() const { return pid_; }

 private:
  UniqueFd write_;
  PipeEnds ends_;  // as numbered in the child's own copy of the descriptor table
  std::unique_ptr<char[]> stack_;
  pid_t pid_ = -1;
};

// Opens `e` on `pid` as observe/ will (counting_attr: disabled, enable_on_exec,
// inherit, read_format); returns the fd or -errno.
int open_on(const EventDesc& e, pid_t pid, int group_fd, bool in_group) {
  perf_event_attr attr = counting_attr(e, group_fd < 0, in_group);
  if (e.source == "uprobe") attr.config1 = reinterpret_cast<std::uint64_t>(e.probe_path.c_str());
  const int fd = perf_syscalls().open(&attr, pid, -1, group_fd, PERF_FLAG_FD_CLOEXEC);
  return fd < 0 ? -errno : fd;
}

const char* errno_name(int err) {
  switch (err) {
    case ENOENT: return "ENOENT";
    case EOPNOTSUPP: return "EOPNOTSUPP";
    case EACCES: return "EACCES";
    case EPERM: return "EPERM";
    case ENOSPC: return "ENOSPC";
    case EINVAL: return "EINVAL";
    case ENODEV: return "ENODEV";
    case EBUSY: return "EBUSY";
    case E2BIG: return "E2BIG";
    case EMFILE: return "EMFILE";
    default: return "errno";
  }
}

}  // namespace

HostPerfFacts read_host_perf_facts(const std::string& sysfs_root) {
  HostPerfFacts h;
  std::error_code ec;
  for (const auto& entry : std::filesystem::directory_iterator(sysfs_root, ec)) {
    const std::string n = entry.path().filename().string();
    if (n == "cpu" || n.starts_with("cpu_")) h.cpu_pmu = true;
  }
  std::ifstream in(kParanoidPath);
  in >> h.paranoid;
  // CapEff from /proc/self/status: CAP_PERFMON is bit 38, CAP_SYS_ADMIN bit 21
  // (linux/capability.h); the kernel lets either count kernel level at any paranoid.
  std::ifstream status("/proc/self/status");
  for (std::string line; std::getline(status, line);) {
    if (!line.starts_with("CapEff:")) continue;
    const std::uint64_t caps = std::stoull(line.substr(7), nullptr, 16);
    h.cap_perfmon = (caps >> 38 & 1) != 0 || (caps >> 21 & 1) != 0;
  }
  return h;
}

bool kernel_counting_allowed(const HostPerfFacts& host) { return host.paranoid <= 1 || host.cap_perfmon; }

std::string software_events_hint(const HostPerfFacts& host) {
  // tsc (msr/tsc/) counts every level or none: where kernel counting is refused it
  // would be the next error, so it is suggested only where it can be counted.
  return fmt::format("count software events instead: --counters task-clock,page-faults,ctx-switches{} — or use the "
                     "simulated backend (--backend sim)",
                     kernel_counting_allowed(host) ? ",tsc" : "");
}

Availability diagnose_open_error(const EventDesc& e, int err, const HostPerfFacts& host,
                                 bool in_group) {
  Availability a;
  a.err = err;
  if (err == 0) {
    a.available = true;
    return a;
  }
  const std::string code = fmt::format("{} from perf_event_open", errno_name(err));
  switch (err) {
    case EACCES:
    case EPERM:
      if (host.cap_perfmon) {
        // With CAP_PERFMON (root) paranoid does not apply: the kernel refuses this event
        // to everyone (some tracepoints, e.g. ftrace's own, refuse perf outright).
        a.reason = fmt::format("the kernel refuses {} to perf_event_open even with this privilege ({})",
                               e.name, code);
        a.hint = e.attr.type == PERF_TYPE_TRACEPOINT
                     ? "this tracepoint cannot be counted; choose another (obscheck events --all)"
                     : "see what the kernel allows with: obscheck doctor";
        return a;
      }
      if (e.source == "uprobe") {
        // The uprobe PMU wants the capability whatever perf_event_paranoid says (as
        // obscheck doctor says): lowering the sysctl would lead into the same refusal.
        a.reason = fmt::format("uprobes need CAP_PERFMON or CAP_SYS_ADMIN, which this user lacks ({})", code);
        a.hint = "run as root (--run-as USER runs the program as USER), or sudo setcap cap_perfmon+ep $(command -v obscheck)";
        return a;
      }
      a.reason = fmt::format("perf_event_paranoid is {}, which forbids opening {} ({})",
                             host.paranoid, e.name, code);
      a.hint = "allow it with: sysctl kernel.perf_event_paranoid=1 (or run as root)";
      return a;
    case ENOENT:
    case EOPNOTSUPP:
    case ENODEV:
      if (e.hardware && !host.cpu_pmu) {
        a.reason =
            "no hardware PMU on this host (no /sys/bus/event_source/devices/cpu; a VM without "
            "PMU passthrough?)";
        a.hint = software_events_hint(host);
      } else if (e.hardware) {
        a.reason = fmt::format("this CPU's PMU does not support {} ({})", e.name, code);
        a.hint = "see what it offers with: obscheck events --all";
      } else {
        a.reason = fmt::format("the kernel does not support {} on this host ({})", e.name, code);
        a.hint = "see what it offers with: obscheck events --all";
      }
      return a;
    case ENOSPC:
      if (e.attr.type == PERF_TYPE_BREAKPOINT) {
        a.reason = fmt::format(
            "no free slot for {}: the CPU has 4 debug registers and all are in use ({})", e.name,
            code);
        a.hint = "use at most 4 breakpoints per run, or uprobes (uprobe:PROG:FUNC) instead";
      } else if (in_group) {
        a.reason = fmt::format("no free slot for {}: more events than counters in one group ({})",
                               e.name, code);
        a.hint = "split the group ({a,b},{c,d}) or count fewer events together";
      } else {
        a.reason = fmt::format("no free counter for {} ({})", e.name, code);
        a.hint = "count fewer events at once";
      }
      return a;
    case EINVAL:
      a.reason = fmt::format(
          "the kernel rejected {}: an unsupported modifier or attribute ({})", e.name, code);
      a.hint = "drop modifiers (:u :k :p) or check the encoding's terms";
      return a;
    case EBUSY:
      a.reason = fmt::format("the PMU is busy: another user holds exclusive counters ({})", code);
      a.hint = "stop other profilers; on a host, check the NMI watchdog (kernel.nmi_watchdog=0)";
      return a;
    case EMFILE:
      a.reason = fmt::format("out of file descriptors opening {} ({})", e.name, code);
      a.hint = "raise the limit: ulimit -n";
      return a;
    default:
      a.reason = fmt::format("perf_event_open failed for {}: {} (errno {})", e.name,
                             std::strerror(err), err);
      return a;
  }
}

std::vector<Availability> probe_event_set(const EventSet& set) {
  const HostPerfFacts host = read_host_perf_facts();
  std::vector<Availability> out(set.events.size());
  BlockedChild child;
  std::vector<UniqueFd> held;
  for (const auto& group : set.groups) {
    int leader = -1;
    std::optional<std::size_t> failed;
    for (std::size_t idx : group) {
      const int fd = open_on(set.events.at(idx), child.pid(), leader, group.size() > 1);
      if (fd < 0) {
        out[idx] = diagnose_open_error(set.events[idx], -fd, host, group.size() > 1);
        failed = idx;
        break;
      }
      out[idx].available = true;
      if (leader < 0) leader = fd;
      held.emplace_back(fd);
    }
    if (!failed) continue;
    // A group is counted all-or-nothing, so one refusal makes every member unavailable.
    for (std::size_t idx : group) {
      if (idx == *failed) continue;
      out[idx] = Availability{};
      out[idx].err = out[*failed].err;
      out[idx].reason = fmt::format("its group cannot be opened: {} fails ({})",
                                    set.events[*failed].name, errno_name(out[*failed].err));
      out[idx].hint = out[*failed].hint;
    }
  }
  return out;
}

Availability probe_event(const EventDesc& e) {
  EventSet one;
  one.events.push_back(e);
  one.groups.push_back({0});
  return probe_event_set(one).front();
}

}  // namespace obscheck
