// Runs the built obscheck (OBSCHECK_BIN) as a user would, without a shell, and
// returns its exit code, stdout and stderr. Shared by the tests in tests/cli/.
#pragma once

#include <fcntl.h>
#include <poll.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <catch2/catch.hpp>
#include <chrono>
#include <csignal>
#include <thread>
#include <cstdlib>
#include <fstream>
#include <sstream>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

extern char** environ;

namespace obscheck::test {

struct CliResult {
  int code = -1;
  std::string out, err;
};

inline CliResult run_cli(const std::vector<std::string>& args, const std::vector<std::string>& extra_env = {}) {
  std::vector<std::string> env_store;
  // extra_env entries replace the inherited variables of the same name.
  const auto overridden = [&](const std::string& var) {
    for (const auto& e : extra_env)
      if (var.compare(0, e.find('=') + 1, e, 0, e.find('=') + 1) == 0) return true;
    return false;
  };
  for (char** e = environ; *e; ++e)
    if (!overridden(*e)) env_store.emplace_back(*e);
  for (const auto& e : extra_env) env_store.push_back(e);
  std::vector<char*> envp;
  for (auto& e : env_store) envp.push_back(e.data());
  envp.push_back(nullptr);
  std::vector<std::string> argv_store = {OBSCHECK_BIN};
  argv_store.insert(argv_store.end(), args.begin(), args.end());
  std::vector<char*> argv;
  for (auto& a : argv_store) argv.push_back(a.data());
  argv.push_back(nullptr);

  int out[2], err[2];
  if (pipe2(out, O_CLOEXEC) != 0 || pipe2(err, O_CLOEXEC) != 0) return {};
  posix_spawn_file_actions_t fa;
  posix_spawn_file_actions_init(&fa);
  posix_spawn_file_actions_adddup2(&fa, out[1], 1);
  posix_spawn_file_actions_adddup2(&fa, err[1], 2);
  posix_spawn_file_actions_addopen(&fa, 0, "/dev/null", O_RDONLY, 0);
  pid_t pid;
  CliResult r;
  if (posix_spawn(&pid, argv[0], &fa, nullptr, argv.data(), envp.data()) != 0) return r;
  posix_spawn_file_actions_destroy(&fa);
  close(out[1]);
  close(err[1]);
  pollfd fds[2] = {{out[0], POLLIN, 0}, {err[0], POLLIN, 0}};
  int open_fds = 2;
  char buf[65536];
  while (open_fds > 0) {
    if (poll(fds, 2, -1) < 0) break;
    for (int i = 0; i < 2; ++i) {
      if (fds[i].fd < 0 || !(fds[i].revents & (POLLIN | POLLHUP))) continue;
      ssize_t n = read(fds[i].fd, buf, sizeof buf);
      if (n > 0) {
        (i == 0 ? r.out : r.err).append(buf, static_cast<std::size_t>(n));
      } else {
        close(fds[i].fd);
        fds[i].fd = -1;
        --open_fds;
      }
    }
  }
  int st = 0;
  waitpid(pid, &st, 0);
  r.code = WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st);
  return r;
}

// Every line of a journal, parsed.
inline std::vector<nlohmann::json> journal_lines(const std::string& path) {
  std::ifstream in(path);
  std::vector<nlohmann::json> out;
  for (std::string line; std::getline(in, line);) out.push_back(nlohmann::json::parse(line));
  return out;
}

// The run indexes of a journal's run lines, in file order.
inline std::vector<std::size_t> run_indexes(const std::string& journal) {
  std::vector<std::size_t> out;
  for (const nlohmann::json& l : journal_lines(journal))
    if (l.value("type", "") == "run") out.push_back(l.at("index").get<std::size_t>());
  return out;
}

// Starts obscheck with `args` (stdout and stderr to the file `out`), waits up to 30 s
// for `runs` run lines in `journal`, then sends SIGINT; returns the wait status.
inline int interrupt_after(const std::vector<std::string>& args, const std::string& journal, std::size_t runs,
                           const std::string& out) {
  const pid_t pid = ::fork();
  REQUIRE(pid >= 0);
  if (pid == 0) {
    const int fd = ::open(out.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0600);
    ::dup2(fd, 1);
    ::dup2(fd, 2);
    std::vector<char*> argv = {const_cast<char*>(OBSCHECK_BIN)};
    for (const std::string& a : args) argv.push_back(const_cast<char*>(a.c_str()));
    argv.push_back(nullptr);
    ::execv(OBSCHECK_BIN, argv.data());
    ::_exit(127);
  }
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(30);
  while (std::chrono::steady_clock::now() < deadline &&
         (::access(journal.c_str(), F_OK) != 0 || run_indexes(journal).size() < runs))
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  ::kill(pid, SIGINT);
  int status = 0;
  ::waitpid(pid, &status, 0);
  return status;
}

// Checks `actual` against the golden file at `path`; OBSCHECK_UPDATE_GOLDEN=1 rewrites
// the file instead (and says so).
inline void compare_golden(const std::string& actual, const std::string& path) {
  if (const char* u = std::getenv("OBSCHECK_UPDATE_GOLDEN"); u && std::string(u) == "1") {
    std::ofstream(path) << actual;
    WARN("rewrote " << path);
    return;
  }
  std::ifstream in(path);
  REQUIRE(in);
  std::stringstream expected;
  expected << in.rdbuf();
  CHECK(actual == expected.str());
}

inline std::string workload(const std::string& name) { return std::string(OBSCHECK_WORKLOADS) + "/" + name; }

// A file's whole content ("" when it cannot be read).
inline std::string slurp(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::ostringstream s;
  s << in.rdbuf();
  return s.str();
}

// The words obscheck adds when a run ended by SIGTRAP under a breakpoint or uprobe
// (run/measure.h trap_hint): on a virtual machine the observer's own trap reaches the
// program now and then, and a test of something else cannot run past it. Such a test
// says it was skipped, with obscheck's message, rather than failing or passing.
inline constexpr const char* kObserverTrap = "a trap the program did not catch";
inline bool observer_trapped(const std::string& said) { return said.find(kObserverTrap) != std::string::npos; }

inline bool contains(const std::string& s, const std::string& part) { return s.find(part) != std::string::npos; }

// The verdict of `metric` at `level` in a report's JSON, or nullptr.
inline const nlohmann::json* verdict(const nlohmann::json& report, const std::string& metric, const std::string& level) {
  for (const auto& v : report.at("verdicts"))
    if (v.at("metric_name") == metric && v.at("level") == level) return &v;
  return nullptr;
}

// The second user the tests run a target as (nobody).
inline constexpr uid_t kNobody = 65534;

}  // namespace obscheck::test
