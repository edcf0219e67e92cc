#include "observe/profile.h"

#include <fcntl.h>
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
#include "util/temp_dir.h"

extern char** environ;

namespace obscheck {
namespace {

// Addresses at or above this are the kernel's on x86-64 and AArch64 (the upper half).
constexpr std::uint64_t kKernelHalf = 0x8000000000000000ULL;
// Code without a symbol: cachegrind calls it "???", perf "[unknown]"; one name for both.
constexpr const char* kCachegrindUnknown = "???";
constexpr const char* kUnknownSymbol = "[unknown]";
// What an error quotes of a tool's own messages.
constexpr std::size_t kQuotedLines = 4;

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

// Runs argv with stdin from /dev/null, stdout to `out_path` ("" = /dev/null) and
// stderr to `err_path`; returns its wait status. Throws Error(host) when it cannot start.
int run_tool(const std::vector<std::string>& argv, const std::string& out_path, const std::string& err_path) {
  posix_spawn_file_actions_t fa;
  posix_spawn_file_actions_init(&fa);
  posix_spawn_file_actions_addopen(&fa, 0, "/dev/null", O_RDONLY, 0);
  posix_spawn_file_actions_addopen(&fa, 1, out_path.empty() ? "/dev/null" : out_path.c_str(),
                                   O_WRONLY | O_CREAT | O_TRUNC | O_NOFOLLOW, 0600);
  posix_spawn_file_actions_addopen(&fa, 2, err_path.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_NOFOLLOW, 0600);
  std::vector<char*> args;
  for (const std::string& a : argv) args.push_back(const_cast<char*>(a.c_str()));
  args.push_back(nullptr);
  pid_t pid = 0;
  const int rc = posix_spawnp(&pid, args[0], &fa, nullptr, args.data(), environ);
  posix_spawn_file_actions_destroy(&fa);
  if (rc != 0)
    throw Error(ErrorKind::host, fmt::format("cannot run {}: {}", argv[0], std::strerror(rc)),
                argv[0] == std::string("perf") ? "install it: apt-get install linux-perf"
                                               : "install it: apt-get install valgrind");
  int status = 0;
  while (::waitpid(pid, &status, 0) < 0 && errno == EINTR) {
  }
  return status;
}

void require_success(int status, const std::string& what, const std::string& err_path, const std::string& hint) {
  if (WIFEXITED(status) && WEXITSTATUS(status) == 0) return;
  const std::string said = first_lines(read_all(err_path));
  const std::string how = WIFEXITED(status) ? fmt::format("exit code {}", WEXITSTATUS(status))
                                            : fmt::format("signal {}", WTERMSIG(status));
  throw Error(ErrorKind::host, fmt::format("{} failed ({}){}{}", what, how, said.empty() ? "" : ": ", said), hint);
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

ProfileCounts parse_cachegrind_functions(std::string_view text) {
  ProfileCounts counts;
  std::string fn;
  for_each_line(text, [&](std::string_view line) {
    if (line.rfind("fn=", 0) == 0) {
      fn = std::string(line.substr(3));
      if (fn == kCachegrindUnknown) fn = kUnknownSymbol;  // perf's name for the same
      return;
    }
    // Anything but a count line (fl=, summary:, ...) ends the function's records.
    if (fn.empty() || line.empty() || line[0] < '0' || line[0] > '9') {
      fn.clear();
      return;
    }
    const std::size_t space = line.find(' ');
    if (space == std::string_view::npos) return;
    const std::string_view rest = trim(line.substr(space + 1));
    std::uint64_t count = 0;
    const auto [end, ec] = std::from_chars(rest.data(), rest.data() + rest.size(), count);
    if (ec == std::errc()) counts[fn] += static_cast<double>(count);
  });
  return counts;
}

SampledProfile perf_record_profile(const std::vector<std::string>& target, std::uint64_t hz, const std::string& event) {
  if (target.empty()) throw Error(ErrorKind::usage, "no program to profile");
  const TempDir dir = TempDir::create("obscheck-profile");
  const std::string data = dir.file("perf.data"), log = dir.file("perf.log");
  std::vector<std::string> record = {"perf", "record", "-e", event, "-F", std::to_string(hz), "-o", data, "-q", "--"};
  record.insert(record.end(), target.begin(), target.end());
  require_success(run_tool(record, "", log), fmt::format("perf record -e {} -F {}", event, hz), log,
                  "perf record needs perf_event_paranoid <= 2 for a program of your own (sysctl "
                  "kernel.perf_event_paranoid), and a software event (cpu-clock) without a hardware PMU");
  const std::string script = dir.file("perf.script");
  require_success(run_tool({"perf", "script", "-i", data, "-F", "ip,sym"}, script, log), "perf script", log,
                  "the recording could not be read back");
  return {hz, event, parse_perf_script(read_all(script))};
}

ProfileCounts cachegrind_profile(const std::vector<std::string>& target) {
  if (target.empty()) throw Error(ErrorKind::usage, "no program to profile");
  const TempDir dir = TempDir::create("obscheck-profile");
  const std::string out = dir.file("cachegrind.out"), log = dir.file("valgrind.log");
  std::vector<std::string> argv = {"valgrind", "--tool=cachegrind", "--cache-sim=no", "--branch-sim=no",
                                   "--cachegrind-out-file=" + out, "-q", "--"};
  argv.insert(argv.end(), target.begin(), target.end());
  require_success(run_tool(argv, "", log), "valgrind --tool=cachegrind", log,
                  "check that the program runs natively; valgrind runs ELF programs of this machine's architecture");
  ProfileCounts counts = parse_cachegrind_functions(read_all(out));
  if (counts.empty())
    throw Error(ErrorKind::host, "cachegrind counted no function of " + target.front(),
                "the program needs symbols (not stripped) for per-function counts");
  return counts;
}

}  // namespace obscheck
