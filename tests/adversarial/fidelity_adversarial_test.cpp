// The adversarial round against obscheck fidelity (docs/security.md): a signal ends
// the tools it started (the target and perf) and removes its private directory; kill -9
// of obscheck still takes the target and perf with it; the target runs as --run-as's
// user; a TMPDIR another user could write, or owns, is refused before anything is
// created in it. The cases that need a second user (nobody) need root and report
// themselves skipped elsewhere.
#include <fcntl.h>
#include <signal.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <catch2/catch.hpp>

#include "adversarial_support.h"
#include "../support/nobody_reach.h"
#include <chrono>
#include <filesystem>
#include <fstream>
#include <optional>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

namespace fs = std::filesystem;

namespace {

using adversarial::contains;
using adversarial::kNobody;
using adversarial::workload;
using adversarial::Dir;
using adversarial::slurp;

// obscheck ARGS started with TMPDIR=tmpdir, its output into `out`; returns its pid.
pid_t start(const std::vector<std::string>& args, const std::string& tmpdir, const std::string& out) {
  const pid_t pid = ::fork();
  REQUIRE(pid >= 0);
  if (pid == 0) {
    const int fd = ::open(out.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0600);
    const int nul = ::open("/dev/null", O_RDONLY);
    ::dup2(nul, 0);
    ::dup2(fd, 1);
    ::dup2(fd, 2);
    ::setenv("TMPDIR", tmpdir.c_str(), 1);
    std::vector<char*> argv = {const_cast<char*>(OBSCHECK_BIN)};
    for (const std::string& a : args) argv.push_back(const_cast<char*>(a.c_str()));
    argv.push_back(nullptr);
    ::execv(OBSCHECK_BIN, argv.data());
    ::_exit(127);
  }
  return pid;
}

// Its exit code (128 + signal when killed), or nullopt (and killed) after `seconds`.
std::optional<int> finish(pid_t pid, int seconds) {
  int status = 0;
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(seconds);
  while (::waitpid(pid, &status, WNOHANG) == 0) {
    if (std::chrono::steady_clock::now() > deadline) {
      ::kill(pid, SIGKILL);
      ::waitpid(pid, &status, 0);
      return std::nullopt;
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
  return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
}

// The pids whose command line (NULs between words) starts with `prefix`, or holds it
// anywhere when `anywhere`.
std::vector<pid_t> pids_running(const std::string& prefix, bool anywhere = false) {
  std::vector<pid_t> out;
  for (const auto& e : fs::directory_iterator("/proc")) {
    const std::string name = e.path().filename().string();
    if (name.find_first_not_of("0123456789") != std::string::npos) continue;
    const std::string cmdline = slurp(e.path() / "cmdline");
    if (anywhere ? contains(cmdline, prefix) : cmdline.rfind(prefix, 0) == 0) out.push_back(std::stoi(name));
  }
  return out;
}

std::vector<pid_t> wait_for(const std::string& prefix, int seconds, bool anywhere = false) {
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(seconds);
  std::vector<pid_t> found;
  while ((found = pids_running(prefix, anywhere)).empty() && std::chrono::steady_clock::now() < deadline)
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  return found;
}

bool gone_within(const std::string& prefix, int seconds, bool anywhere = false) {
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(seconds);
  while (!pids_running(prefix, anywhere).empty() && std::chrono::steady_clock::now() < deadline)
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  const bool gone = pids_running(prefix, anywhere).empty();
  for (pid_t p : pids_running(prefix, anywhere)) ::kill(p, SIGKILL);  // leave nothing behind either way
  return gone;
}

uid_t uid_of(pid_t pid) {
  std::istringstream status(slurp("/proc/" + std::to_string(pid) + "/status"));
  for (std::string line; std::getline(status, line);)
    if (line.rfind("Uid:", 0) == 0) return static_cast<uid_t>(std::stoul(line.substr(4)));
  return static_cast<uid_t>(-1);
}

// A signal sent to obscheck fidelity while perf records its target: obscheck's exit
// code, and whether the target and perf were gone within 5 s.
struct Stopped {
  bool started = false;  // the target ran under perf, so there was something to stop
  std::optional<int> code;
  bool target_gone = false, perf_gone = false;
  uid_t target_uid = 0;
  std::string out;
};

Stopped stop_while_recording(int sig, const std::string& tmpdir, bool run_as_nobody) {
  // A run long enough to be found, with a length no other process uses.
  const std::string length = std::to_string(30000 + ::getpid() % 1000 + sig);
  const std::string target = workload("timesplit") + '\0' + length + '\0';
  const std::string out = tmpdir + "/../obscheck-adv-fid-out-" + std::to_string(::getpid()) + "-" + std::to_string(sig);
  std::vector<std::string> args = {"fidelity", "--sample-freq", "99", "--time-budget", "120"};
  if (run_as_nobody) args.insert(args.end(), {"--run-as", "nobody"});
  args.insert(args.end(), {"--", workload("timesplit"), length});
  const pid_t pid = start(args, tmpdir, out);
  Stopped s;
  const std::vector<pid_t> targets = wait_for(target, 30);
  if (targets.empty()) {  // never profiled: say why (exit 7: perf missing or refused)
    ::kill(pid, SIGKILL);
    s.code = finish(pid, 5);
    s.out = slurp(out);
    fs::remove(out);
    return s;
  }
  // perf record attached to that target (-p PID), not another user's perf.
  const std::string perf = std::string(1, '\0') + "-p" + '\0' + std::to_string(targets.front()) + '\0';
  const std::vector<pid_t> perfs = wait_for(perf, 30, true);
  s.started = true;
  s.target_uid = uid_of(targets.front());
  std::this_thread::sleep_for(std::chrono::milliseconds(300));  // perf recording
  ::kill(pid, sig);
  s.code = finish(pid, 20);
  s.target_gone = gone_within(target, 5);
  s.perf_gone = !perfs.empty() && gone_within(perf, 5, true);
  s.out = slurp(out);
  fs::remove(out);
  return s;
}

}  // namespace

TEST_CASE("fidelity: INT, TERM and HUP end the target and perf and remove its directory", "[adversarial]") {
  SKIP_UNLESS_NOBODY_REACHES(OBSCHECK_BIN);
  const bool root = ::geteuid() == 0;
  for (int sig : {SIGINT, SIGTERM, SIGHUP}) {
    Dir tmp(0700);
    const Stopped s = stop_while_recording(sig, tmp.path, root);
    INFO("signal " << sig << ": " << s.out);
    if (!s.started && s.code == 7) {
      WARN("SKIPPED: perf record cannot profile here: " << s.out);
      return;
    }
    REQUIRE(s.started);
    REQUIRE(s.code.has_value());
    CHECK(*s.code == 128 + sig);
    CHECK(s.target_gone);
    CHECK(s.perf_gone);
    CHECK(tmp.names().empty());  // its obscheck-profile-* went with it
    if (root) CHECK(s.target_uid == kNobody);  // --run-as nobody: the target, not perf
  }
  if (!root) WARN("SKIPPED: the --run-as nobody part needs root");
}

TEST_CASE("fidelity: kill -9 of obscheck takes the target and perf with it", "[adversarial]") {
  SKIP_UNLESS_NOBODY_REACHES(OBSCHECK_BIN);
  Dir tmp(0700);
  const Stopped s = stop_while_recording(SIGKILL, tmp.path, ::geteuid() == 0);
  INFO(s.out);
  if (!s.started && s.code == 7) {
    WARN("SKIPPED: perf record cannot profile here: " << s.out);
    return;
  }
  REQUIRE(s.started);
  REQUIRE(s.code.has_value());
  CHECK(*s.code == 128 + SIGKILL);
  CHECK(s.target_gone);
  CHECK(s.perf_gone);
}

TEST_CASE("fidelity: a TMPDIR others can write without the sticky bit is refused, nothing written there",
          "[adversarial]") {
  Dir open_dir(0777);
  ::chmod(open_dir.path.c_str(), 0777);  // past the umask
  const std::string out = open_dir.path + "-out";
  const pid_t pid = start({"fidelity", "--", workload("split"), "1"}, open_dir.path, out);
  const std::optional<int> code = finish(pid, 30);
  const std::string said = slurp(out);
  fs::remove(out);
  INFO(said);
  REQUIRE(code.has_value());
  CHECK(*code == 6);
  CHECK(contains(said, "refusing to create a temporary directory under " + open_dir.path));
  CHECK(contains(said, "is writable by others and not sticky"));
  CHECK(open_dir.names().empty());
}

TEST_CASE("fidelity as root: a TMPDIR nobody owns is refused, nothing written there", "[adversarial]") {
  if (::geteuid() != 0) {
    WARN("SKIPPED: needs root to hand a directory to the nobody user");
    return;
  }
  for (mode_t mode : {0755, 0777}) {
    Dir planted(mode);
    ::chmod(planted.path.c_str(), mode);
    REQUIRE(::chown(planted.path.c_str(), kNobody, kNobody) == 0);
    // What nobody plants for root's files to land on: links into a root-owned place.
    Dir victim(0700);
    for (const char* name : {"cachegrind.out", "perf.log", "perf.script", "perf.data"})
      fs::create_symlink(victim.path + "/" + name, planted.path + "/" + name);
    const std::string out = planted.path + "-out";
    const pid_t pid = start({"fidelity", "--", workload("split"), "1"}, planted.path, out);
    const std::optional<int> code = finish(pid, 30);
    const std::string said = slurp(out);
    fs::remove(out);
    INFO(said);
    REQUIRE(code.has_value());
    CHECK(*code == 6);
    CHECK(contains(said, "belongs to uid 65534"));
    CHECK(planted.names().size() == 4);  // only what nobody planted
    CHECK(victim.names().empty());
  }
}
