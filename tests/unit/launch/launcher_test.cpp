#include <catch2/catch.hpp>
#include <filesystem>

#include <dirent.h>
#include <fcntl.h>
#include <signal.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <fstream>
#include <string>
#include <thread>

#include "launch/launcher.h"
#include "util/error.h"

using namespace obscheck;

namespace {

const std::string kWorkloads = OBSCHECK_WORKLOADS;

LaunchSpec spec_for(const std::string& prog, std::vector<std::string> args = {}) {
  LaunchSpec s;
  s.path = resolve_target(prog);
  s.argv.push_back(prog);
  for (auto& a : args) s.argv.push_back(std::move(a));
  s.env = EnvBlock({"PATH=/usr/bin:/bin", "LC_ALL=C"});
  return s;
}

ExitInfo run(const LaunchSpec& s) {
  CorkedChild c = CorkedChild::spawn(s);
  c.release();
  return c.wait();
}

ExitInfo run_capture(LaunchSpec s) {
  s.out = Stdio::capture;
  return run(s);
}

// The Error thrown while starting `s`, which must be of `kind`.
std::string start_error(const LaunchSpec& s, ErrorKind kind) {
  try {
    run(s);
  } catch (const Error& e) {
    CHECK(e.kind() == kind);
    return e.what();
  }
  FAIL("no error thrown");
  return {};
}

std::string resolve_error(const std::string& prog) {
  try {
    resolve_target(prog);
  } catch (const Error& e) {
    CHECK(e.kind() == ErrorKind::target);
    return e.what();
  }
  FAIL("no error thrown for " << prog);
  return {};
}

// A scratch directory for files the tests create, removed with its files.
struct TempDir {
  std::string path;
  TempDir() {
    char tmpl[] = "/tmp/obscheck-launch-XXXXXX";
    path = ::mkdtemp(tmpl);
  }
  ~TempDir() { std::system(("rm -rf " + path).c_str()); }
  std::string file(const std::string& name, const std::string& bytes, mode_t mode) const {
    const std::string p = path + "/" + name;
    std::ofstream(p, std::ios::binary) << bytes;
    ::chmod(p.c_str(), mode);
    return p;
  }
};

// Live (non-zombie) processes whose process group is `pgid`.
int live_members(pid_t pgid) {
  int n = 0;
  DIR* d = ::opendir("/proc");
  while (dirent* ent = ::readdir(d)) {
    if (ent->d_name[0] < '0' || ent->d_name[0] > '9') continue;
    std::ifstream in(std::string("/proc/") + ent->d_name + "/stat");
    std::string line;
    if (!std::getline(in, line)) continue;
    // pid (comm) state ppid pgrp ...; comm may hold spaces, so parse after the last ')'
    const auto close = line.rfind(')');
    char state = 0;
    int ppid = 0, pgrp = 0;
    if (std::sscanf(line.c_str() + close + 1, " %c %d %d", &state, &ppid, &pgrp) == 3 && pgrp == pgid &&
        state != 'Z')
      ++n;
  }
  ::closedir(d);
  return n;
}

}  // namespace

TEST_CASE("the child's environment is exactly the EnvBlock", "[launch]") {
  LaunchSpec s = spec_for("/usr/bin/env");
  s.env = EnvBlock({"B=2", "A=1", "EMPTY=", "WITH SPACE=x y"});
  s.env.pad_to(200);
  std::string expected;
  for (const auto& v : s.env.vars()) expected += v + "\n";
  const ExitInfo e = run_capture(s);
  REQUIRE(e.ok());
  CHECK(e.output == expected);
  CHECK(e.output_bytes == expected.size());
}

TEST_CASE("captured output is hashed whole and kept up to 64 KiB", "[launch]") {
  // sha256sum of the 16 bytes "hello, obscheck\n" (computed with coreutils sha256sum)
  const ExitInfo e = run_capture(spec_for("/usr/bin/printf", {"hello, obscheck\\n"}));
  REQUIRE(e.ok());
  CHECK(e.output == "hello, obscheck\n");
  CHECK(e.output_bytes == 16);
  CHECK(e.output_digest == "66b614251f90dea43bc4153c2d35c1e085e246c316cc42683ed27a3caff94fe6");

  // 1 MB: far more than a pipe holds, so the parent must drain while waiting.
  // sha256sum of 1000000 zero bytes (head -c 1000000 /dev/zero | sha256sum)
  const ExitInfo big = run_capture(spec_for("/usr/bin/head", {"-c", "1000000", "/dev/zero"}));
  REQUIRE(big.ok());
  CHECK(big.output_bytes == 1000000);
  CHECK(big.output.size() == 64 * 1024);
  CHECK(big.output_digest == "d29751f2649b32ff572b5e0a9f541ea660a50f94ff0beedfb0b692b924cc8025");
}

TEST_CASE("stdin is /dev/null and only fds 0-2 reach the target", "[launch]") {
  const int leaked = ::open("/dev/null", O_RDONLY);  // no O_CLOEXEC on purpose
  REQUIRE(leaked > 2);
  // ls lists /proc/self/fd from an fd of its own (3) while reading it.
  const ExitInfo e = run_capture(spec_for("/bin/ls", {"/proc/self/fd"}));
  ::close(leaked);
  REQUIRE(e.ok());
  CHECK(e.output == "0\n1\n2\n3\n");
  const ExitInfo in = run_capture(spec_for("/usr/bin/readlink", {"/proc/self/fd/0"}));
  CHECK(in.output == "/dev/null\n");
}

TEST_CASE("the target gets default signal dispositions and an empty mask", "[launch]") {
  struct sigaction ign {}, old_int {}, old_pipe {};
  ign.sa_handler = SIG_IGN;
  ::sigaction(SIGINT, &ign, &old_int);
  ::sigaction(SIGPIPE, &ign, &old_pipe);
  sigset_t block, old_mask;
  sigemptyset(&block);
  sigaddset(&block, SIGUSR1);
  ::sigprocmask(SIG_BLOCK, &block, &old_mask);
  const ExitInfo e = run_capture(spec_for("/bin/grep", {"-E", "^Sig(Ign|Blk)", "/proc/self/status"}));
  ::sigprocmask(SIG_SETMASK, &old_mask, nullptr);
  ::sigaction(SIGINT, &old_int, nullptr);
  ::sigaction(SIGPIPE, &old_pipe, nullptr);
  REQUIRE(e.ok());
  CHECK(e.output == "SigBlk:\t0000000000000000\nSigIgn:\t0000000000000000\n");
}

TEST_CASE("non_default_signals names what a child must reset, and resetting just those is enough", "[launch]") {
  struct sigaction ign {}, handled {}, old_pipe {}, old_usr1 {};
  ign.sa_handler = SIG_IGN;
  handled.sa_handler = [](int) {};
  ::sigaction(SIGPIPE, &ign, &old_pipe);
  ::sigaction(SIGUSR1, &handled, &old_usr1);
  const std::vector<int> resets = non_default_signals();
  LaunchSpec s = spec_for("/bin/grep", {"-E", "^Sig(Ign|Blk)", "/proc/self/status"});
  s.reset_signals = resets;
  const ExitInfo e = run_capture(s);
  ::sigaction(SIGUSR1, &old_usr1, nullptr);
  ::sigaction(SIGPIPE, &old_pipe, nullptr);
  const auto has = [&](int sig) { return std::find(resets.begin(), resets.end(), sig) != resets.end(); };
  CHECK(has(SIGPIPE));   // ignored
  CHECK(has(SIGUSR1));   // handled
  CHECK_FALSE(has(SIGUSR2));  // at its default
  CHECK_FALSE(has(SIGKILL));
  REQUIRE(e.ok());
  CHECK(e.output == "SigBlk:\t0000000000000000\nSigIgn:\t0000000000000000\n");
}

TEST_CASE("cwd and CPU pinning apply to the target", "[launch]") {
  LaunchSpec s = spec_for("/bin/pwd");
  s.cwd = "/tmp";
  CHECK(run_capture(s).output == "/tmp\n");

  s.cwd = "/nonexistent-obscheck-dir";
  CHECK(start_error(s, ErrorKind::usage).find("/nonexistent-obscheck-dir") != std::string::npos);

  LaunchSpec pin = spec_for("/bin/grep", {"Cpus_allowed_list", "/proc/self/status"});
  pin.cpu = 0;
  CHECK(run_capture(pin).output == "Cpus_allowed_list:\t0\n");
  pin.cpu = 100000;  // beyond CPU_SETSIZE
  start_error(pin, ErrorKind::usage);
}

TEST_CASE("ASLR off gives the same stack address run to run, a bigger environment moves it", "[launch]") {
  LaunchSpec s = spec_for(kWorkloads + "/stackaddr");
  s.env.pad_to(1000);
  const std::string a = run_capture(s).output;
  const std::string b = run_capture(s).output;
  REQUIRE(a.rfind("stack=0x", 0) == 0);
  CHECK(a == b);
  s.env.pad_to(1000 + 256);
  const std::string moved = run_capture(s).output;
  CHECK(moved != a);

  s.aslr = true;  // randomised: two runs share a stack address with odds ~2^-30
  CHECK(run_capture(s).output != run_capture(s).output);
}

TEST_CASE("the timeout kills the target's whole process group", "[launch]") {
  LaunchSpec s = spec_for("/bin/sleep", {"10"});
  s.timeout_s = 0.3;
  const auto t0 = std::chrono::steady_clock::now();
  ExitInfo e = run(s);
  const double secs = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  CHECK(e.timed_out);
  CHECK(e.signal == SIGKILL);
  CHECK_FALSE(e.ok());
  CHECK(secs < 5);  // sleep 10 did not run out
  CHECK(e.wall_ns >= 300'000'000ULL);

  // sh forks a grandchild sleep in the same group; both must die.
  LaunchSpec tree = spec_for("/bin/sh", {"-c", "sleep 30 & sleep 30"});
  tree.timeout_s = 0.3;
  tree.out = Stdio::capture;  // the grandchild holds the pipe: wait() must not hang on it
  CorkedChild c = CorkedChild::spawn(tree);
  const pid_t pgid = c.pid();
  c.release();
  e = c.wait();
  CHECK(e.timed_out);
  int alive = live_members(pgid);
  for (int i = 0; i < 100 && alive > 0; ++i) {  // SIGKILL is delivered asynchronously
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
    alive = live_members(pgid);
  }
  CHECK(alive == 0);
  // wait() and kill_group() again: same result, nothing to do
  c.kill_group();
  CHECK(c.wait().timed_out);
}

TEST_CASE("exit codes and terminating signals are recorded", "[launch]") {
  const ExitInfo crash = run(spec_for(kWorkloads + "/crash"));
  CHECK(crash.signal == SIGSEGV);
  CHECK_FALSE(crash.timed_out);
  CHECK_FALSE(crash.ok());

  const ExitInfo three = run(spec_for("/bin/sh", {"-c", "exit 3"}));
  CHECK(three.signal == 0);
  CHECK(three.exit_code == 3);
  CHECK_FALSE(three.ok());

  const ExitInfo fine = run(spec_for("/bin/true"));
  CHECK(fine.ok());
  CHECK(fine.exit_code == 0);
  CHECK(fine.wall_ns > 0);
  CHECK(fine.output_digest.empty());  // discard: nothing captured
}

TEST_CASE("resolve_target names the exact problem", "[launch]") {
  TempDir dir;
  const std::string plain = dir.file("plain.txt", "data\n", 0644);
  CHECK(resolve_error(dir.path + "/missing") == dir.path + "/missing: no such file");
  CHECK(resolve_error(dir.path) == dir.path + ": is a directory");
  CHECK(resolve_error(plain) == plain + ": permission denied (not executable)");
  CHECK(resolve_error("obscheck-no-such-program-xyz") == "obscheck-no-such-program-xyz: not found in PATH");
  const std::string t = resolve_target("true");
  CHECK((t == "/usr/bin/true" || t == "/bin/true"));
  CHECK(resolve_target("/bin/../bin/true").front() == '/');
  try {
    resolve_target("");
    FAIL("no error");
  } catch (const Error& e) {
    CHECK(e.kind() == ErrorKind::usage);
  }
}

TEST_CASE("resolve_target finds what execve would refuse before any run", "[launch]") {
  TempDir dir;
  const std::string garbage = dir.file("garbage", "\x01\x02\x03garbage bytes, no #! line\n", 0755);
  const std::string no_interp = dir.file("script", "#!/nonexistent/interpreter -x\necho\n", 0755);
  const std::string bare = dir.file("bare", "#!\n", 0755);
  const std::string good = dir.file("good", "#! /bin/sh\ntrue\n", 0755);
  const bool binfmt_misc = [] {
    std::error_code ec;
    for (const auto& e : std::filesystem::directory_iterator("/proc/sys/fs/binfmt_misc", ec))
      if (e.path().filename() != "register" && e.path().filename() != "status") return true;
    return false;
  }();
  if (!binfmt_misc)
    CHECK(resolve_error(garbage) == garbage + ": exec format error (neither an ELF program nor a #! script)");
  CHECK(resolve_error(no_interp) ==
        no_interp + ": its #! interpreter /nonexistent/interpreter cannot be run (missing, a directory or not executable)");
  CHECK(resolve_error(bare) == bare + ": its #! line names no interpreter");
  CHECK(resolve_target(good) == good);
  CHECK(resolve_target("/bin/true").front() == '/');
}

TEST_CASE("exec failures surface at release() with the precise reason", "[launch]") {
  TempDir dir;
  LaunchSpec s;
  s.path = dir.file("garbage", "\x01\x02\x03garbage bytes, no #! line\n", 0755);
  s.argv = {"garbage"};
  const std::string msg = start_error(s, ErrorKind::target);
  CHECK(msg == s.path + ": exec format error: not an executable for this machine (a script without #!?)");

  // A #! line naming a missing interpreter: execve says ENOENT for an existing file.
  s.path = dir.file("script", "#!/nonexistent/interpreter\n", 0755);
  CHECK(start_error(s, ErrorKind::target).find(": cannot execute: no such file") != std::string::npos);

  // Removed between resolve and exec.
  s.path = dir.path + "/vanished";
  CHECK(start_error(s, ErrorKind::target).find("no such file") != std::string::npos);
}

TEST_CASE("a corked child dies with its handle", "[launch]") {
  pid_t pid;
  {
    CorkedChild c = CorkedChild::spawn(spec_for("/bin/true"));
    pid = c.pid();
    REQUIRE(pid > 0);
    CHECK(::kill(pid, 0) == 0);
    CHECK_THROWS_AS(c.wait(), Error);  // never released
    CorkedChild moved = std::move(c);  // the moved-from handle owns nothing
    CHECK(moved.pid() == pid);
  }
  errno = 0;
  CHECK(::kill(pid, 0) == -1);  // killed and reaped: not even a zombie
  CHECK(errno == ESRCH);
}

namespace {

std::string read_all(int fd) {
  std::string out;
  char buf[256];
  ssize_t n;
  while ((n = ::read(fd, buf, sizeof buf)) > 0) out.append(buf, static_cast<std::size_t>(n));
  return out;
}

}  // namespace

TEST_CASE("pass_fds hands descriptors to the target under the numbers asked for", "[launch]") {
  int a[2], b[2];
  REQUIRE(::pipe2(a, O_CLOEXEC) == 0);
  REQUIRE(::pipe2(b, O_CLOEXEC) == 0);
  // fd 3 is where the child's own cork socket would be: it must be moved aside.
  LaunchSpec s = spec_for("/bin/sh", {"-c", "echo to3 >&3; echo to4 >&4; ls /proc/self/fd >&3"});
  s.pass_fds = {{a[1], 3}, {b[1], 4}};
  const ExitInfo e = run(s);
  ::close(a[1]);
  ::close(b[1]);
  CHECK(e.ok());
  // ls holds 0-2, the two passed fds, and its own directory fd (5): nothing else.
  CHECK(read_all(a[0]) == "to3\n0\n1\n2\n3\n4\n5\n");
  CHECK(read_all(b[0]) == "to4\n");
  ::close(a[0]);
  ::close(b[0]);

  // Swapped numbers: each source is the other's target. dash reads one-digit fds
  // only, so the pipes go to 8 and 9, their other ends far above.
  REQUIRE(::pipe2(a, O_CLOEXEC) == 0);
  REQUIRE(::pipe2(b, O_CLOEXEC) == 0);
  const int a_rd = ::fcntl(a[0], F_DUPFD_CLOEXEC, 20), b_rd = ::fcntl(b[0], F_DUPFD_CLOEXEC, 20);
  const int a_wr = ::fcntl(a[1], F_DUPFD_CLOEXEC, 20), b_wr = ::fcntl(b[1], F_DUPFD_CLOEXEC, 20);
  for (int fd : {a[0], a[1], b[0], b[1]}) ::close(fd);
  REQUIRE(::dup3(a_wr, 8, O_CLOEXEC) == 8);
  REQUIRE(::dup3(b_wr, 9, O_CLOEXEC) == 9);
  ::close(a_wr);
  ::close(b_wr);
  LaunchSpec swap = spec_for("/bin/sh", {"-c", "echo to9 >&9; echo to8 >&8"});
  swap.pass_fds = {{8, 9}, {9, 8}};
  CHECK(run(swap).ok());
  ::close(8);
  ::close(9);
  CHECK(read_all(a_rd) == "to9\n");  // pipe a was fd 8 here, fd 9 in the target
  CHECK(read_all(b_rd) == "to8\n");
  ::close(a_rd);
  ::close(b_rd);

  LaunchSpec bad = spec_for("/bin/true");
  bad.pass_fds = {{0, 2}};  // stdio is the launcher's
  start_error(bad, ErrorKind::usage);
  bad.pass_fds = {{0, 5}, {1, 5}};
  start_error(bad, ErrorKind::usage);
}

#include <sys/wait.h>

#include "launch/descendants.h"

TEST_CASE("kill_descendants kills and reaps what a target leaves running, grandchildren of grandchildren too") {
  DescendantGuard guard;
  // The shell starts two sleeps in the background, one of them under another shell
  // in its own session, and exits at once: all are orphans by the time it is reaped.
  const std::string started = "/tmp/obscheck-descendants-" + std::to_string(getpid());
  ::unlink(started.c_str());
  LaunchSpec s = spec_for(
      "/bin/sh", {"-c", "sleep 30 & setsid sh -c 'sleep 30 & sleep 30 & : > " + started + "; wait' & exit 0"});
  const ExitInfo e = run(s);
  CHECK(e.ok());
  // The background shell says when its two sleeps have started (it is not waited for).
  for (int i = 0; i < 500 && ::access(started.c_str(), F_OK) != 0; ++i)
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  ::unlink(started.c_str());
  CHECK(kill_descendants() == 4);  // sleep, the setsid'd sh, and its two sleeps
  CHECK(kill_descendants() == 0);
}

TEST_CASE("the target dies with the driver: PR_SET_PDEATHSIG in the corked child") {
  // A middle process spawns the target and is killed with SIGKILL: the target must go.
  int p[2];
  REQUIRE(pipe(p) == 0);
  const pid_t middle = fork();
  if (middle == 0) {
    close(p[0]);
    CorkedChild c = CorkedChild::spawn(spec_for("/bin/sleep", {"30"}));
    c.release();
    const pid_t target = c.pid();
    if (write(p[1], &target, sizeof target) != sizeof target) _exit(1);
    pause();
    _exit(0);
  }
  close(p[1]);
  pid_t target = -1;
  REQUIRE(read(p[0], &target, sizeof target) == sizeof target);
  close(p[0]);
  REQUIRE(kill(target, 0) == 0);
  kill(middle, SIGKILL);
  waitpid(middle, nullptr, 0);
  // The target is reparented (to init or a subreaper) and killed: it is gone or a zombie.
  bool gone = false;
  for (int i = 0; i < 200 && !gone; ++i) {
    std::ifstream st("/proc/" + std::to_string(target) + "/stat");
    std::string stat;
    gone = !std::getline(st, stat) || stat[stat.rfind(')') + 2] == 'Z';
    if (!gone) std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
  CHECK(gone);
}

TEST_CASE("rusage_since takes the counting fields off, never below zero, and keeps the peak", "[launch]") {
  struct rusage total {}, before {};
  total.ru_utime = {2, 500};     // 2.000500 s
  before.ru_utime = {0, 700};    // 0.000700 s
  total.ru_stime = {0, 300};
  before.ru_stime = {0, 400};    // more than total: clamps to 0
  total.ru_minflt = 120, before.ru_minflt = 20;
  total.ru_majflt = 1, before.ru_majflt = 0;
  total.ru_nvcsw = 2, before.ru_nvcsw = 1;
  total.ru_nivcsw = 5, before.ru_nivcsw = 1;
  total.ru_inblock = 8, before.ru_inblock = 0;
  total.ru_oublock = 0, before.ru_oublock = 3;
  total.ru_maxrss = 4000, before.ru_maxrss = 9000;
  const struct rusage d = rusage_since(total, before);
  CHECK(d.ru_utime.tv_sec == 1);
  CHECK(d.ru_utime.tv_usec == 999800);
  CHECK(d.ru_stime.tv_sec == 0);
  CHECK(d.ru_stime.tv_usec == 0);
  CHECK(d.ru_minflt == 100);
  CHECK(d.ru_majflt == 1);
  CHECK(d.ru_nvcsw == 1);
  CHECK(d.ru_nivcsw == 4);
  CHECK(d.ru_inblock == 8);
  CHECK(d.ru_oublock == 0);
  CHECK(d.ru_maxrss == 4000);
}

TEST_CASE("the target's rusage starts at its exec: the wait in the cork is not counted", "[launch]") {
  // The corked child blocks reading the cork while the driver attaches observers: one
  // voluntary context switch of its own, and more the longer the driver takes. Every
  // process also switches once as it dies (the kernel counts it before the reaping).
  // /bin/true never blocks (its pages are cached after the first run), so from its
  // exec to its exit it has that one switch, however long it was held in the cork.
  run(spec_for("/bin/true"));  // warm the page cache
  for (const bool reap_first : {false, true}) {
    INFO((reap_first ? "release_and_wait" : "release, then wait"));
    int at_most_one = 0;
    for (int i = 0; i < 5; ++i) {
      CorkedChild c = CorkedChild::spawn(spec_for("/bin/true"));
      std::this_thread::sleep_for(std::chrono::milliseconds(20));  // the child is in the cork by now
      ExitInfo e;
      if (reap_first) {
        e = c.release_and_wait();
      } else {
        c.release();
        e = c.wait();
      }
      REQUIRE(e.ok());
      at_most_one += e.usage.ru_nvcsw <= 1;
      // A second wait() gives the same usage: the cork's share is taken off once.
      CHECK(c.wait().usage.ru_nvcsw == e.usage.ru_nvcsw);
    }
    CHECK(at_most_one >= 4);
  }
}
