// The two corks of CorkedChild: the futex word in the memory a child shares with the
// driver (every run), and the socket of a child with a memory of its own
// (LaunchSpec::own_memory, as under valgrind). Each guarantee is checked through both.
#include <catch2/catch.hpp>

#include <fcntl.h>
#include <linux/kcmp.h>
#include <signal.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <climits>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <string>
#include <thread>

#include "launch/launcher.h"
#include "util/error.h"
#include "util/raw_syscall.h"

using namespace obscheck;

namespace {

LaunchSpec spec_for(const std::string& prog, std::vector<std::string> args, bool own_memory) {
  LaunchSpec s;
  s.path = resolve_target(prog);
  s.argv.push_back(prog);
  for (auto& a : args) s.argv.push_back(std::move(a));
  s.env = EnvBlock({"PATH=/usr/bin:/bin", "LC_ALL=C"});
  s.own_memory = own_memory;
  return s;
}

// The Error that starting `s` throws (release() then wait(), or release_and_wait()).
Error start_error(const LaunchSpec& s, bool reap_first) {
  CorkedChild c = CorkedChild::spawn(s);
  try {
    if (reap_first) {
      c.release_and_wait();
    } else {
      c.release();
      c.wait();
    }
  } catch (const Error& e) {
    return e;
  }
  FAIL("no error thrown");
  return Error(ErrorKind::internal, "");
}

std::string exe_of(pid_t pid) {
  char buf[PATH_MAX];
  const ssize_t n = ::readlink(("/proc/" + std::to_string(pid) + "/exe").c_str(), buf, sizeof buf);
  return n > 0 ? std::string(buf, static_cast<std::size_t>(n)) : std::string();
}

// Whether `pid` is gone or a zombie, waiting up to about two seconds.
bool gone_soon(pid_t pid) {
  for (int i = 0; i < 200; ++i) {
    std::ifstream st("/proc/" + std::to_string(pid) + "/stat");
    std::string stat;
    if (!std::getline(st, stat) || stat[stat.rfind(')') + 2] == 'Z') return true;
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
  return false;
}

}  // namespace

TEST_CASE("cork: the child shares the driver's memory, unless own_memory asks for a copy", "[launch]") {
  for (const bool own : {false, true}) {
    INFO((own ? "own_memory" : "shared memory"));
    CorkedChild c = CorkedChild::spawn(spec_for("/bin/true", {}, own));
    const long same = ::syscall(SYS_kcmp, ::getpid(), c.pid(), KCMP_VM, 0, 0);
    if (same < 0) {
      WARN("SKIPPED: kcmp is not available here: " << std::strerror(errno));
      return;
    }
    CHECK((same == 0) == (!own && shared_vm_child()));
    c.release();
    CHECK(c.wait().ok());
  }
}

TEST_CASE("cork: release() returns once the target has exec'd, through either cork", "[launch]") {
  char resolved[PATH_MAX];
  REQUIRE(::realpath("/bin/sleep", resolved) != nullptr);
  const std::string sleep_exe = resolved;
  for (const bool own : {false, true}) {
    INFO((own ? "own_memory" : "shared memory"));
    CorkedChild c = CorkedChild::spawn(spec_for("/bin/sleep", {"30"}, own));
    std::this_thread::sleep_for(std::chrono::milliseconds(20));  // in the cork by now
    CHECK(exe_of(c.pid()) != sleep_exe);                          // not yet the target
    c.release();
    CHECK(exe_of(c.pid()) == sleep_exe);  // at once: no wait, no retry
    c.kill_group();
    const ExitInfo e = c.wait();
    CHECK(e.signal == SIGKILL);
  }
}

TEST_CASE("cork: exec and set-up failures reach release() and release_and_wait() with their errno", "[launch]") {
  char dir[] = "/tmp/obscheck-cork-XXXXXX";
  REQUIRE(::mkdtemp(dir) != nullptr);
  const std::string garbage = std::string(dir) + "/garbage";
  std::ofstream(garbage, std::ios::binary) << "\x01\x02\x03 no #! line\n";
  ::chmod(garbage.c_str(), 0755);
  for (const bool own : {false, true}) {
    for (const bool reap_first : {false, true}) {
      INFO((own ? "own_memory" : "shared memory") << (reap_first ? ", release_and_wait" : ", release"));
      LaunchSpec s = spec_for("/bin/true", {}, own);
      s.path = garbage;
      Error e = start_error(s, reap_first);
      CHECK(e.kind() == ErrorKind::target);
      CHECK(std::string(e.what()) == garbage + ": exec format error: not an executable for this machine (a script "
                                               "without #!?)");
      s.path = std::string(dir) + "/vanished";
      e = start_error(s, reap_first);
      CHECK(e.kind() == ErrorKind::target);
      CHECK(std::string(e.what()).find(": cannot execute: no such file") != std::string::npos);
      // A set-up failure: a descriptor to pass that is not open (far above any the
      // driver holds), so the child's dup3 of it fails.
      s = spec_for("/bin/true", {}, own);
      REQUIRE(::fcntl(999, F_GETFD) == -1);
      s.pass_fds = {{999, 7}};
      e = start_error(s, reap_first);
      CHECK(e.kind() == ErrorKind::host);
      CHECK(std::string(e.what()) == "cannot set up the target's stdin/stdout/stderr: " +
                                         std::string(std::strerror(EBADF)) + " (errno " + std::to_string(EBADF) + ")");
    }
  }
  ::unlink(garbage.c_str());
  ::rmdir(dir);
}

TEST_CASE("cork: a child corked when its driver is killed does not wait forever", "[launch]") {
  for (const bool own : {false, true}) {
    INFO((own ? "own_memory" : "shared memory"));
    int p[2];
    REQUIRE(::pipe(p) == 0);
    const pid_t middle = ::fork();
    if (middle == 0) {
      ::close(p[0]);
      CorkedChild c = CorkedChild::spawn(spec_for("/bin/sleep", {"30"}, own));
      const pid_t child = c.pid();
      if (::write(p[1], &child, sizeof child) != sizeof child) ::_exit(1);
      ::pause();  // never releases it
      ::_exit(0);
    }
    ::close(p[1]);
    pid_t child = -1;
    REQUIRE(::read(p[0], &child, sizeof child) == sizeof child);
    ::close(p[0]);
    std::this_thread::sleep_for(std::chrono::milliseconds(20));  // in the cork by now
    REQUIRE(::kill(child, 0) == 0);
    ::kill(middle, SIGKILL);
    ::waitpid(middle, nullptr, 0);
    CHECK(gone_soon(child));
  }
}

TEST_CASE("cork: a child with a memory of its own runs the target, output and usage as the shared one",
          "[launch]") {
  for (const bool own : {false, true}) {
    INFO((own ? "own_memory" : "shared memory"));
    LaunchSpec s = spec_for("/bin/sh", {"-c", "echo out; echo err >&2; exit 3"}, own);
    s.out = Stdio::capture;
    s.timeout_s = 10;
    CorkedChild c = CorkedChild::spawn(s);
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
    const ExitInfo e = c.release_and_wait();
    CHECK(e.exit_code == 3);
    CHECK(e.output == "out\nerr\n");
    CHECK(e.pre_exec_maxrss_kb.has_value());  // the pre-exec usage came back, and was taken off
    CHECK(e.wall_ns > 0);
  }
}
