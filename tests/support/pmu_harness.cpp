// pmu_harness: runs a command (the built obscheck) with its perf_event system calls
// answered by the test PMU (test_pmu.h), for tests only.
//
//   pmu_harness [--slots N] [--rate TYPE:CONFIG=PER_NS]... [--offset TYPE:CONFIG=N]...
//               [--stops-at TYPE:CONFIG=NS]... [--refuse-group-with-inherit]
//               [--kill-on-open COMM] -- COMMAND ARGS...
//
// --offset adds N (signed) to the event's every count, modulo 2^64: a negative N past
// the count reads as a wrapped counter. --stops-at: the event stops counting after NS
// of task time (a PMU that "disappears" mid-run; 0: it never counts).
// --refuse-group-with-inherit: PERF_FORMAT_GROUP with inherit is refused with EINVAL,
// as kernels before 4.13 refuse it.
//
// The command runs under a seccomp filter that hands perf_event_open, read, ioctl and
// close to this process (seccomp user notification, seccomp_unotify(2)). A
// perf_event_open is answered by the model: its descriptor (an eventfd) is put into
// the caller's table and returned; read and ioctl on such a descriptor are answered
// from the model, the buffer written into the caller's memory; every other read,
// ioctl and close goes on to the kernel unchanged. The filter is inherited, so the
// targets obscheck starts are answered too (the in-process library's counters,
// opened inside the target with pid 0). So the installed binary's own hardware path
// (open, enable on exec or by ioctl, group reads, scaling, faults) runs on a host
// without a hardware PMU, and nothing in the tool can reach this: the harness is
// built under tests/ and is never installed.
//
// --kill-on-open COMM: a counter opened on a process named COMM (its /proc comm) kills
// that process first and fails with ESRCH, as when a profiler ends its program in the
// window between the program's start and the opening of its counters (gdb in batch
// mode, at a breakpoint's first stop).
//
// Exit status: the command's (128 + signal when killed); 125 when the harness
// itself fails.
#include <fcntl.h>
#include <linux/audit.h>
#include <linux/filter.h>
#include <linux/seccomp.h>
#include <poll.h>
#include <signal.h>
#include <sys/ioctl.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <sys/uio.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstddef>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <iterator>
#include <fstream>
#include <map>
#include <string>
#include <vector>

#include "test_pmu.h"

using obscheck::test::TestPmu;
using obscheck::test::TestPmuConfig;

namespace {

constexpr int kHarnessFailed = 125;

[[noreturn]] void die(const std::string& what) {
  std::fprintf(stderr, "pmu_harness: %s: %s\n", what.c_str(), std::strerror(errno));
  std::_Exit(kHarnessFailed);
}

// "--rate 0:0=2" sets PERF_TYPE_HARDWARE / PERF_COUNT_HW_CPU_CYCLES to 2 per ns.
void parse_rate(const std::string& spec, TestPmuConfig& c) {
  unsigned type = 0;
  unsigned long long config = 0;
  double rate = 0;
  if (std::sscanf(spec.c_str(), "%u:%llx=%lf", &type, &config, &rate) != 3) {
    std::fprintf(stderr, "pmu_harness: --rate TYPE:CONFIG(hex)=PER_NS, not '%s'\n", spec.c_str());
    std::_Exit(kHarnessFailed);
  }
  c.events[{type, config}].rate_per_ns = rate;
}

// "--offset 0:0=-10000000", "--stops-at 3:10000=1000000": the model's fault knobs.
void parse_fault(const char* option, const std::string& spec, TestPmuConfig& c) {
  unsigned type = 0;
  unsigned long long config = 0;
  long long n = 0;
  if (std::sscanf(spec.c_str(), "%u:%llx=%lld", &type, &config, &n) != 3 || (option[2] == 's' && n < 0)) {
    std::fprintf(stderr, "pmu_harness: %s TYPE:CONFIG(hex)=N, not '%s'\n", option, spec.c_str());
    std::_Exit(kHarnessFailed);
  }
  if (option[2] == 'o')
    c.events[{type, config}].offset = n;
  else
    c.events[{type, config}].stops_at_ns = static_cast<std::uint64_t>(n);
}

// One byte and room for one descriptor (SCM_RIGHTS): how the filtered child hands its
// listener to this process.
struct FdMessage {
  char byte = 0;
  iovec iov{&byte, 1};
  alignas(cmsghdr) char control[CMSG_SPACE(sizeof(int))] = {};
  msghdr msg{};
  FdMessage() {
    msg.msg_iov = &iov;
    msg.msg_iovlen = 1;
    msg.msg_control = control;
    msg.msg_controllen = sizeof control;
  }
  FdMessage(const FdMessage&) = delete;
  FdMessage& operator=(const FdMessage&) = delete;
};

// The filter: the four calls to the supervisor, everything else allowed. On another
// architecture than the one built for, everything is allowed (and nothing modelled).
void install_filter_and_send_listener(int sock) {
  sock_filter code[] = {
      BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(seccomp_data, arch)),
      BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, AUDIT_ARCH_X86_64, 1, 0),
      BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW),
      BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(seccomp_data, nr)),
      BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, SYS_perf_event_open, 4, 0),
      BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, SYS_read, 3, 0),
      BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, SYS_ioctl, 2, 0),
      BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, SYS_close, 1, 0),
      BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW),
      BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_USER_NOTIF),
  };
  sock_fprog prog{static_cast<unsigned short>(sizeof code / sizeof code[0]), code};
  if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) != 0) die("PR_SET_NO_NEW_PRIVS");
  const int listener =
      static_cast<int>(syscall(SYS_seccomp, SECCOMP_SET_MODE_FILTER, SECCOMP_FILTER_FLAG_NEW_LISTENER, &prog));
  if (listener < 0) die("seccomp");
  FdMessage m;
  cmsghdr* cm = CMSG_FIRSTHDR(&m.msg);
  cm->cmsg_level = SOL_SOCKET;
  cm->cmsg_type = SCM_RIGHTS;
  cm->cmsg_len = CMSG_LEN(sizeof(int));
  std::memcpy(CMSG_DATA(cm), &listener, sizeof listener);
  if (sendmsg(sock, &m.msg, 0) != 1) die("sendmsg");
  close(listener);
}

int receive_listener(int sock) {
  FdMessage m;
  if (recvmsg(sock, &m.msg, 0) != 1) die("recvmsg");
  int fd = -1;
  std::memcpy(&fd, CMSG_DATA(CMSG_FIRSTHDR(&m.msg)), sizeof fd);
  return fd;
}

// The process whose descriptor table a thread uses (its thread group).
pid_t tgid_of(pid_t tid) {
  std::ifstream in("/proc/" + std::to_string(tid) + "/status");
  std::string key;
  while (in >> key)
    if (key == "Tgid:") {
      pid_t t = 0;
      in >> t;
      return t;
    }
  return tid;
}

// The command name of a process (/proc/PID/comm), empty when it is gone.
std::string comm_of(pid_t pid) {
  std::ifstream in("/proc/" + std::to_string(pid) + "/comm");
  std::string name;
  std::getline(in, name);
  return name;
}

// Kills `pid` and waits until it has exited (a zombie, or gone): its parent, not this
// process, reaps it.
void kill_and_wait_exit(pid_t pid) {
  kill(pid, SIGKILL);
  for (;;) {
    std::ifstream in("/proc/" + std::to_string(pid) + "/stat");
    std::string stat((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    const auto close = stat.rfind(')');
    if (close == std::string::npos || close + 2 >= stat.size() || stat[close + 2] == 'Z' || stat[close + 2] == 'X')
      return;
    usleep(1000);
  }
}

class Supervisor {
 public:
  Supervisor(int listener, TestPmuConfig c, std::string kill_on_open)
      : listener_(listener), pmu_(std::move(c)), kill_on_open_(std::move(kill_on_open)) {}

  // Answers notifications until every filtered process has gone.
  void serve() {
    seccomp_notif_sizes sizes{};
    if (syscall(SYS_seccomp, SECCOMP_GET_NOTIF_SIZES, 0, &sizes) != 0) die("SECCOMP_GET_NOTIF_SIZES");
    std::vector<char> req_buf(std::max<std::size_t>(sizes.seccomp_notif, sizeof(seccomp_notif)));
    std::vector<char> resp_buf(std::max<std::size_t>(sizes.seccomp_notif_resp, sizeof(seccomp_notif_resp)));
    for (;;) {
      pollfd p{listener_, POLLIN, 0};
      if (poll(&p, 1, -1) < 0) {
        if (errno == EINTR) continue;
        die("poll");
      }
      if (p.revents & POLLHUP) return;
      auto* req = reinterpret_cast<seccomp_notif*>(req_buf.data());
      std::memset(req_buf.data(), 0, req_buf.size());
      if (ioctl(listener_, SECCOMP_IOCTL_NOTIF_RECV, req) != 0) {
        if (errno == EINTR || errno == ENOENT) continue;
        die("SECCOMP_IOCTL_NOTIF_RECV");
      }
      auto* resp = reinterpret_cast<seccomp_notif_resp*>(resp_buf.data());
      std::memset(resp_buf.data(), 0, resp_buf.size());
      resp->id = req->id;
      if (answer(*req, *resp)) ioctl(listener_, SECCOMP_IOCTL_NOTIF_SEND, resp);  // ENOENT: the caller died
    }
  }

 private:
  // Fills `resp`; false when the answer was already sent (a descriptor added).
  bool answer(const seccomp_notif& req, seccomp_notif_resp& resp) {
    const pid_t proc = tgid_of(static_cast<pid_t>(req.pid));
    const auto fd = static_cast<int>(req.data.args[0]);
    const auto model = fds_.find({proc, fd});
    const bool ours = model != fds_.end();
    switch (req.data.nr) {
      case SYS_perf_event_open: return open(req, proc, resp);
      case SYS_read:
        if (ours) return read(req, model->second, resp);
        break;
      case SYS_ioctl:
        if (ours) return reply(resp, pmu_.ioctl(model->second, req.data.args[1], req.data.args[2]));
        break;
      case SYS_close:
        if (ours) close_model(model);  // the kernel closes the caller's copy
        break;
      default: break;
    }
    resp.flags = SECCOMP_USER_NOTIF_FLAG_CONTINUE;
    return true;
  }

  bool reply(seccomp_notif_resp& resp, long result) {
    resp.val = result < 0 ? 0 : result;
    resp.error = result < 0 ? -errno : 0;
    return true;
  }

  bool open(const seccomp_notif& req, pid_t proc, seccomp_notif_resp& resp) {
    perf_event_attr attr{};
    if (!peek(req.pid, req.data.args[0], &attr, sizeof attr)) return reply(resp, (errno = EFAULT, -1));
    // pid 0 is the caller itself (the in-process library counts its own process):
    // the model keys a run by the process counted.
    const auto asked = static_cast<pid_t>(req.data.args[1]);
    const pid_t pid = asked == 0 ? static_cast<pid_t>(req.pid) : asked;
    if (asked > 0 && !kill_on_open_.empty() && comm_of(asked) == kill_on_open_) {
      kill_and_wait_exit(asked);
      return reply(resp, (errno = ESRCH, -1));
    }
    const auto cpu = static_cast<int>(req.data.args[2]);
    const auto group = static_cast<int>(req.data.args[3]);
    const unsigned long flags = req.data.args[4];
    int model_group = -1;
    if (group >= 0) {
      const auto g = fds_.find({proc, group});
      if (g == fds_.end()) return reply(resp, (errno = EBADF, -1));
      model_group = g->second;
    }
    const int model = pmu_.open(&attr, pid, cpu, model_group, flags);
    if (model < 0) return reply(resp, -1);
    seccomp_notif_addfd add{};
    add.id = req.id;
    add.flags = SECCOMP_ADDFD_FLAG_SEND;
    add.srcfd = static_cast<std::uint32_t>(model);
    add.newfd_flags = (flags & PERF_FLAG_FD_CLOEXEC) ? O_CLOEXEC : 0;
    const int theirs = ioctl(listener_, SECCOMP_IOCTL_NOTIF_ADDFD, &add);
    if (theirs >= 0) fds_[{proc, theirs}] = model;
    return false;
  }

  bool read(const seccomp_notif& req, int model, seccomp_notif_resp& resp) {
    std::vector<char> buf(static_cast<std::size_t>(std::min<std::uint64_t>(req.data.args[2], 1 << 16)));
    const ssize_t n = pmu_.read(model, buf.data(), buf.size());
    if (n < 0) return reply(resp, -1);
    if (!poke(req.pid, req.data.args[1], buf.data(), static_cast<std::size_t>(n))) return reply(resp, (errno = EFAULT, -1));
    return reply(resp, n);
  }

  void close_model(std::map<std::pair<pid_t, int>, int>::iterator it) {
    // The model keeps the counter (a group's leader may be closed before its
    // members are read); only the caller's name for it goes.
    fds_.erase(it);
  }

  static bool peek(pid_t pid, std::uint64_t addr, void* out, std::size_t len) {
    iovec local{out, len};
    iovec remote{reinterpret_cast<void*>(addr), len};
    return process_vm_readv(pid, &local, 1, &remote, 1, 0) == static_cast<ssize_t>(len);
  }
  static bool poke(pid_t pid, std::uint64_t addr, const void* in, std::size_t len) {
    iovec local{const_cast<void*>(in), len};
    iovec remote{reinterpret_cast<void*>(addr), len};
    return process_vm_writev(pid, &local, 1, &remote, 1, 0) == static_cast<ssize_t>(len);
  }

  int listener_;
  TestPmu pmu_;
  std::map<std::pair<pid_t, int>, int> fds_;  // (process, its descriptor) -> the model's
  std::string kill_on_open_;                  // --kill-on-open: the process name, or empty
};

}  // namespace

int main(int argc, char** argv) {
  TestPmuConfig c;
  std::string kill_on_open;
  int i = 1;
  for (; i < argc && std::strcmp(argv[i], "--") != 0; ++i) {
    if (std::strcmp(argv[i], "--slots") == 0 && i + 1 < argc) c.slots = static_cast<unsigned>(std::atoi(argv[++i]));
    else if (std::strcmp(argv[i], "--rate") == 0 && i + 1 < argc) parse_rate(argv[++i], c);
    else if (std::strcmp(argv[i], "--kill-on-open") == 0 && i + 1 < argc) kill_on_open = argv[++i];
    else if ((std::strcmp(argv[i], "--offset") == 0 || std::strcmp(argv[i], "--stops-at") == 0) && i + 1 < argc) {
      parse_fault(argv[i], argv[i + 1], c);
      ++i;
    } else if (std::strcmp(argv[i], "--refuse-group-with-inherit") == 0) {
      c.refuse_group_with_inherit = true;
    } else {
      std::fprintf(stderr, "usage: pmu_harness [--slots N] [--rate TYPE:CONFIG=PER_NS]... [--offset TYPE:CONFIG=N]... "
                           "[--stops-at TYPE:CONFIG=NS]... [--refuse-group-with-inherit] [--kill-on-open COMM] -- "
                           "COMMAND ARGS...\n");
      return kHarnessFailed;
    }
  }
  if (i + 1 >= argc) {
    std::fprintf(stderr, "pmu_harness: no command after --\n");
    return kHarnessFailed;
  }
  int sv[2];
  if (socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sv) != 0) die("socketpair");
  const pid_t child = fork();
  if (child < 0) die("fork");
  if (child == 0) {
    close(sv[0]);
    install_filter_and_send_listener(sv[1]);
    execvp(argv[i + 1], argv + i + 1);
    die(std::string("exec ") + argv[i + 1]);
  }
  close(sv[1]);
  const int listener = receive_listener(sv[0]);
  Supervisor(listener, c, kill_on_open).serve();
  int status = 0;
  if (waitpid(child, &status, 0) != child) die("waitpid");
  return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
}
