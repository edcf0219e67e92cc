#include "observe/profile.h"

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <fmt/core.h>

#include <cerrno>
#include <charconv>
#include <cstring>
#include <fstream>
#include <sstream>

#include "util/error.h"
#include "util/fd.h"

extern char** environ;

namespace obscheck {
namespace {

// Addresses at or above this are the kernel's on x86-64 and AArch64 (the upper half).
constexpr std::uint64_t kKernelHalf = 0x8000000000000000ULL;
// Code without a symbol, as perf names it.
constexpr const char* kUnknownSymbol = "[unknown]";
// What an error quotes of a tool's own messages.
constexpr std::size_t kQuotedLines = 4;
constexpr const char* kRecordHint =
    "perf record needs perf_event_paranoid <= 2 for a program of your own (sysctl kernel.perf_event_paranoid), "
    "and a software event (cpu-clock) without a hardware PMU";

std::string_view trim(std::string_view s) {
  while (!s.empty() && (s.front() == ' ' || s.front() == '\t')) s.remove_prefix(1);
  while (!s.empty() && (s.back() == ' ' || s.back() == '\t' || s.back() == '\r')) s.remove_suffix(1);
  return s;
}

template <typename F>
void for_each_line(std::string_view text, F&& f) {
  while (!text.empty()) {
    const std::size_t nl = text.find('\n');
    f(text.substr(0, nl));
    if (nl == std::string_view::npos) break;
    text.remove_prefix(nl + 1);
  }
}

std::string read_all(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::ostringstream s;
  s << in.rdbuf();
  return s.str();
}

std::string first_lines(const std::string& text) {
  std::string out;
  std::size_t lines = 0;
  for_each_line(text, [&](std::string_view l) {
    if (lines >= kQuotedLines || trim(l).empty()) return;
    out += (out.empty() ? "" : " / ") + std::string(trim(l));
    ++lines;
  });
  return out;
}

// How long perf may take to attach and say "ack", and to end once the target has.
constexpr int kPerfReadyMs = 30000;
constexpr int kPerfEndMs = 30000;
// The descriptors perf record's --control reads commands from and acknowledges on.
constexpr int kControlFd = 3, kAckFd = 4;
// Our own pipe ends are moved at or above this, clear of 0-4, so that dup2 onto 3 and 4
// in the child never meets an end that is already there (and keeps its close-on-exec).
constexpr int kHighFd = 10;

// A tool's start-up: its own process group (`pgroup` 0) or the target's, the signals
// obscheck handles back at their default, none blocked.
struct SpawnAttr {
  posix_spawnattr_t attr;
  explicit SpawnAttr(pid_t pgroup) {
    posix_spawnattr_init(&attr);
    sigset_t none, handled;
    sigemptyset(&none);
    sigemptyset(&handled);
    for (int sig : {SIGINT, SIGTERM, SIGHUP, SIGPIPE}) sigaddset(&handled, sig);
    posix_spawnattr_setsigmask(&attr, &none);
    posix_spawnattr_setsigdefault(&attr, &handled);
    posix_spawnattr_setpgroup(&attr, pgroup);
    posix_spawnattr_setflags(&attr, POSIX_SPAWN_SETPGROUP | POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF);
  }
  ~SpawnAttr() { posix_spawnattr_destroy(&attr); }
  SpawnAttr(const SpawnAttr&) = delete;
  SpawnAttr& operator=(const SpawnAttr&) = delete;
};

// Starts argv with stdin from /dev/null, stdout to `out_path` ("" = /dev/null), stderr
// to `err_path` and `pass` as (our fd, its number) in the child. Throws Error(host)
// when it cannot start.
pid_t spawn_tool(const std::vector<std::string>& argv, const std::string& out_path, const std::string& err_path,
                 pid_t pgroup, const std::vector<std::pair<int, int>>& pass = {}) {
  posix_spawn_file_actions_t fa;
  posix_spawn_file_actions_init(&fa);
  posix_spawn_file_actions_addopen(&fa, 0, "/dev/null", O_RDONLY, 0);
  posix_spawn_file_actions_addopen(&fa, 1, out_path.empty() ? "/dev/null" : out_path.c_str(),
                                   O_WRONLY | O_CREAT | O_TRUNC | O_NOFOLLOW, 0600);
  posix_spawn_file_actions_addopen(&fa, 2, err_path.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_NOFOLLOW, 0600);
  for (const auto& [ours, theirs] : pass) posix_spawn_file_actions_adddup2(&fa, ours, theirs);
  std::vector<char*> args;
  for (const std::string& a : argv) args.push_back(const_cast<char*>(a.c_str()));
  args.push_back(nullptr);
  const SpawnAttr attr(pgroup);
  pid_t pid = 0;
  const int rc = posix_spawnp(&pid, args[0], &fa, &attr.attr, args.data(), environ);
  posix_spawn_file_actions_destroy(&fa);
  if (rc != 0)
    throw Error(ErrorKind::host, fmt::format("cannot run {}: {}", argv[0], std::strerror(rc)),
                "install it: apt-get install linux-perf");
  return pid;
}

int wait_status(pid_t pid) {
  int status = 0;
  while (::waitpid(pid, &status, 0) < 0 && errno == EINTR) {
  }
  return status;
}

// Waits at most `ms` for pid; kills and reaps it after that. Returns its status and
// whether it ended by itself.
std::pair<int, bool> wait_status_for(pid_t pid, int ms) {
  int status = 0;
  for (int waited = 0; waited < ms; waited += 5) {
    const pid_t r = ::waitpid(pid, &status, WNOHANG);
    if (r == pid || (r < 0 && errno != EINTR)) return {status, true};
    ::usleep(5000);
  }
  ::kill(pid, SIGKILL);
  return {wait_status(pid), false};
}

void require_success(int status, const std::string& what, const std::string& err_path, const std::string& hint) {
  if (WIFEXITED(status) && WEXITSTATUS(status) == 0) return;
  const std::string said = first_lines(read_all(err_path));
  const std::string how = WIFEXITED(status) ? fmt::format("exit code {}", WEXITSTATUS(status))
                                            : fmt::format("signal {}", WTERMSIG(status));
  throw Error(ErrorKind::host, fmt::format("{} failed ({}){}{}", what, how, said.empty() ? "" : ": ", said), hint);
}

// A pipe whose two ends are close-on-exec and at kHighFd or above.
std::pair<UniqueFd, UniqueFd> high_pipe() {
  int fds[2];
  if (::pipe2(fds, O_CLOEXEC) != 0) throw Error(ErrorKind::host, fmt::format("pipe: {}", std::strerror(errno)));
  UniqueFd r(fds[0]), w(fds[1]);
  UniqueFd hr(::fcntl(r.get(), F_DUPFD_CLOEXEC, kHighFd)), hw(::fcntl(w.get(), F_DUPFD_CLOEXEC, kHighFd));
  if (!hr || !hw) throw Error(ErrorKind::host, fmt::format("fcntl F_DUPFD_CLOEXEC: {}", std::strerror(errno)));
  return {std::move(hr), std::move(hw)};
}

// Sends "enable" on `ctl` and waits for perf's "ack" on `ack`: perf's events are on.
// False when perf ended first, or said nothing for kPerfReadyMs.
bool enable_and_wait(int ctl, int ack) {
  static constexpr char kEnable[] = "enable\n";
  if (::write(ctl, kEnable, sizeof kEnable - 1) != static_cast<ssize_t>(sizeof kEnable - 1)) return false;
  std::string said;
  pollfd p{ack, POLLIN, 0};
  for (int left = kPerfReadyMs; said.find("ack") == std::string::npos;) {
    const int r = ::poll(&p, 1, left);
    if (r < 0 && errno == EINTR) continue;
    if (r <= 0) return false;
    char buf[64];
    const ssize_t n = ::read(ack, buf, sizeof buf);
    if (n <= 0) return false;  // perf is gone
    said.append(buf, static_cast<std::size_t>(n));
  }
  return true;
}

// perf record attached to a target: its pid, and our end of its control pipe, held
// open while it records (perf ends, failing, when its control descriptor hangs up).
struct Recorder {
  pid_t pid = -1;
  UniqueFd control;
};

// perf record attached to the corked target, once its events are on. Throws
// Error(host) with what perf said when it ends or stalls before that.
Recorder attach_recorder(pid_t target, std::uint64_t hz, const std::string& event, const std::string& data,
                      const std::string& log) {
  auto [ctl_read, ctl_write] = high_pipe();
  auto [ack_read, ack_write] = high_pipe();
  const std::vector<std::string> record = {"perf", "record", "-e", event, "-F", std::to_string(hz),
                                           "-p", std::to_string(target), "-o", data, "-q", "-D", "-1",
                                           "--control", fmt::format("fd:{},{}", kControlFd, kAckFd),
                                           // No build-id scan or ~/.debug cache (root's home
                                           // untouched), no BPF programs' events (none is the
                                           // target's; listing them cost 0.8 s a run here).
                                           "-B", "-N", "--no-bpf-event"};
  const pid_t perf = spawn_tool(record, "", log, target, {{ctl_read.get(), kControlFd}, {ack_write.get(), kAckFd}});
  ctl_read.reset();
  ack_write.reset();  // EOF on ack_read once perf is gone
  if (enable_and_wait(ctl_write.get(), ack_read.get())) return {perf, std::move(ctl_write)};
  ::kill(perf, SIGKILL);
  const int status = wait_status(perf);
  require_success(status, fmt::format("perf record -e {} -F {}", event, hz), log, kRecordHint);
  throw Error(ErrorKind::host, fmt::format("perf record -e {} -F {} did not start sampling within {} s", event, hz,
                                           kPerfReadyMs / 1000),
              kRecordHint);
}

// A target that failed under the profiler: its profile is not the program's.
void require_target_ok(const ExitInfo& e, const std::string& path) {
  if (e.ok()) return;
  throw Error(ErrorKind::target_failed,
              e.signal != 0 ? fmt::format("{} was killed by signal {} while profiled", path, e.signal)
                            : fmt::format("{} exited with code {} while profiled", path, e.exit_code),
              "fidelity compares profiles of runs that succeed; check the program's arguments");
}

}  // namespace

ProfileCounts parse_perf_script(std::string_view text) {
  ProfileCounts counts;
  for_each_line(text, [&](std::string_view line) {
    line = trim(line);
    if (line.empty()) return;
    const std::size_t space = line.find_first_of(" \t");
    const std::string_view hex = line.substr(0, space);
    std::uint64_t ip = 0;
    const auto [end, ec] = std::from_chars(hex.data(), hex.data() + hex.size(), ip, 16);
    if (ec != std::errc() || end != hex.data() + hex.size()) return;
    std::string sym(space == std::string_view::npos ? std::string_view() : trim(line.substr(space)));
    if (sym.empty()) sym = kUnknownSymbol;
    if (ip >= kKernelHalf && sym != kUnknownSymbol) sym = "[k] " + sym;
    counts[sym] += 1;
  });
  return counts;
}

SampledProfile perf_record_profile(const LaunchSpec& target, std::uint64_t hz, const std::string& event,
                                   const std::string& dir, const std::function<void(pid_t)>& started) {
  const std::string data = dir + "/perf.data", log = dir + "/perf.log", script = dir + "/perf.script";
  LaunchSpec spec = target;
  spec.out = Stdio::discard;
  CorkedChild child = CorkedChild::spawn(spec);
  // The child makes itself a group leader as it starts; made so here too (the same
  // call, before its exec), so the group exists before perf joins it.
  ::setpgid(child.pid(), child.pid());
  if (started) started(child.pid());  // the group perf joins too
  const Recorder recorder = attach_recorder(child.pid(), hz, event, data, log);
  const pid_t perf = recorder.pid;
  ExitInfo exit;
  try {
    child.release();
    exit = child.wait();
  } catch (...) {
    ::kill(perf, SIGKILL);
    wait_status(perf);
    throw;
  }
  const auto [status, ended] = wait_status_for(perf, kPerfEndMs);
  if (!ended)
    throw Error(ErrorKind::host, fmt::format("perf record did not end within {} s of the target", kPerfEndMs / 1000),
                kRecordHint);
  require_success(status, fmt::format("perf record -e {} -F {}", event, hz), log, kRecordHint);
  require_target_ok(exit, spec.path);
  const pid_t reader = spawn_tool({"perf", "script", "-i", data, "-F", "ip,sym"}, script, log, 0);
  if (started) started(reader);
  require_success(wait_status(reader), "perf script", log, "the recording could not be read back");
  SampledProfile p{hz, event, parse_perf_script(read_all(script))};
  for (const std::string& f : {data, log, script}) ::unlink(f.c_str());
  return p;
}

}  // namespace obscheck
