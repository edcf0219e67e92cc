// What the adversarial tests share: a private scratch directory, a file read whole, and
// a child reaped within a deadline. Each test file keeps its own way of starting
// obscheck (as another uid, with a TMPDIR, from a directory), which is what it attacks.
#pragma once

#include <fcntl.h>
#include <grp.h>
#include <signal.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <catch2/catch.hpp>
#include <algorithm>
#include <chrono>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

namespace adversarial {

// The second user the attacks run as (nobody).
inline constexpr uid_t kNobody = 65534;

inline std::string workload(const std::string& name) { return std::string(OBSCHECK_WORKLOADS) + "/" + name; }

inline std::string slurp(const std::filesystem::path& path) {
  std::ifstream in(path, std::ios::binary);
  std::ostringstream s;
  s << in.rdbuf();
  return s.str();
}

inline bool contains(const std::string& s, const std::string& part) { return s.find(part) != std::string::npos; }

// A fresh directory of `mode` (mkdtemp: no name another user can plant first), removed
// with what is in it.
struct Dir {
  std::string path;
  explicit Dir(mode_t mode = 0755) {
    char tmpl[] = "/tmp/obscheck-adv-XXXXXX";
    REQUIRE(::mkdtemp(tmpl) != nullptr);
    path = tmpl;
    ::chmod(path.c_str(), mode);
  }
  Dir(const Dir&) = delete;
  Dir& operator=(const Dir&) = delete;
  ~Dir() {
    std::error_code ec;
    std::filesystem::remove_all(path, ec);
  }
  std::string operator/(const std::string& name) const { return path + "/" + name; }
  // The names in it, sorted, for "nothing was written".
  std::vector<std::string> names() const {
    std::vector<std::string> out;
    for (const auto& e : std::filesystem::directory_iterator(path)) out.push_back(e.path().filename().string());
    std::sort(out.begin(), out.end());
    return out;
  }
};

// Reaps `pid` and returns its wait status; past `seconds` it is killed and the test fails.
inline int reap_within(pid_t pid, int seconds) {
  int status = 0;
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(seconds);
  while (::waitpid(pid, &status, WNOHANG) == 0) {
    if (std::chrono::steady_clock::now() > deadline) {
      ::kill(pid, SIGKILL);
      ::waitpid(pid, &status, 0);
      FAIL("obscheck did not finish within " << seconds << " s");
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
  return status;
}

// The exit code a shell would show for wait status `status`.
inline int exit_code(int status) { return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status); }

struct Result {
  int code = -1;
  std::string out;  // stdout and stderr together
  double seconds = 0;
};

struct Spawn {
  std::string cwd;
  uid_t uid = 0;             // 0: as we are
  rlim_t address_space = 0;  // 0: no limit
  int out_fd = -1;           // >= 0: the child's stdout instead of Result::out
};

// Runs obscheck ARGS (no shell) in `how.cwd`, as `how.uid`, under an address-space
// limit; stdout and stderr together, at most 60 s (then killed: a hang fails the test).
inline Result run(const std::vector<std::string>& args, const Spawn& how = {}) {
  char tmpl[] = "/tmp/obscheck-adv-out-XXXXXX";
  const int fd = ::mkstemp(tmpl);
  REQUIRE(fd >= 0);
  const auto start = std::chrono::steady_clock::now();
  const pid_t pid = ::fork();
  REQUIRE(pid >= 0);
  if (pid == 0) {
    ::dup2(how.out_fd >= 0 ? how.out_fd : fd, 1);
    ::dup2(fd, 2);
    const int nul = ::open("/dev/null", O_RDONLY);
    ::dup2(nul, 0);
    if (!how.cwd.empty() && ::chdir(how.cwd.c_str()) != 0) ::_exit(126);
    if (how.address_space) {
      const rlimit lim{how.address_space, how.address_space};
      ::setrlimit(RLIMIT_AS, &lim);
    }
    if (how.uid && (::setgroups(0, nullptr) != 0 || ::setresgid(how.uid, how.uid, how.uid) != 0 ||
                    ::setresuid(how.uid, how.uid, how.uid) != 0))
      ::_exit(126);
    std::vector<char*> argv = {const_cast<char*>(OBSCHECK_BIN)};
    for (const std::string& a : args) argv.push_back(const_cast<char*>(a.c_str()));
    argv.push_back(nullptr);
    ::execv(OBSCHECK_BIN, argv.data());
    ::_exit(127);
  }
  Result r;
  r.code = exit_code(reap_within(pid, 60));
  r.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  r.out = slurp(tmpl);
  ::close(fd);
  ::unlink(tmpl);
  return r;
}

}  // namespace adversarial
