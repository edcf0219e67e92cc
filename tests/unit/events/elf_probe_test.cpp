// ELF symbols, uprobe/breakpoint encodings, and the counts they give on a real run:
// the calls workload calls obs_hot() exactly N times (experiments/workloads/calls.c).
#include <fcntl.h>
#include <sys/personality.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include <catch2/catch.hpp>
#include <fmt/format.h>

#include <cstdio>
#include <filesystem>

#include "events/elf_symbols.h"
#include "events/event.h"
#include "util/error.h"
#include "util/fd.h"

using namespace obscheck;
using Catch::Matchers::Contains;

namespace {

const std::string kCallsElf = std::string(OBSCHECK_WORKLOADS) + "/calls";
constexpr long kCallCount = 100000;

std::string run(const std::string& cmd) {
  FILE* p = ::popen(cmd.c_str(), "r");
  REQUIRE(p);
  std::string out;
  char buf[512];
  while (std::size_t n = std::fread(buf, 1, sizeof buf, p)) out.append(buf, n);
  ::pclose(p);
  return out;
}

// The symbol's value as binutils' nm reports it: an independent reference.
std::uint64_t nm_value(const std::string& file, const std::string& sym) {
  const std::string out = run(fmt::format("nm --defined-only '{}' | awk '$3 == \"{}\" {{print $1}}'", file, sym));
  REQUIRE_FALSE(out.empty());
  return std::stoull(out, nullptr, 16);
}

// Runs `calls kCallCount` with ASLR off (as launch/ does), counting `e` from its
// execve on; returns the counter's value.
std::uint64_t count_calls(const EventDesc& e) {
  int go[2];
  REQUIRE(::pipe2(go, O_CLOEXEC) == 0);
  const pid_t child = ::fork();
  REQUIRE(child >= 0);
  if (child == 0) {
    ::personality(ADDR_NO_RANDOMIZE);
    char c;
    if (::read(go[0], &c, 1) != 1) ::_exit(126);
    const int null = ::open("/dev/null", O_WRONLY);
    ::dup2(null, 1);
    const std::string n = std::to_string(kCallCount);
    ::execl(kCallsElf.c_str(), kCallsElf.c_str(), n.c_str(), static_cast<char*>(nullptr));
    ::_exit(127);
  }
  ::close(go[0]);
  UniqueFd release(go[1]);
  perf_event_attr attr = e.attr;
  attr.disabled = 1;
  attr.enable_on_exec = 1;
  if (e.source == "uprobe") attr.config1 = reinterpret_cast<std::uint64_t>(e.probe_path.c_str());
  UniqueFd fd(static_cast<int>(::syscall(SYS_perf_event_open, &attr, child, -1, -1, PERF_FLAG_FD_CLOEXEC)));
  const int open_errno = errno;
  REQUIRE(::write(release.get(), "g", 1) == 1);
  int status = 0;
  ::waitpid(child, &status, 0);
  INFO("perf_event_open: " << (fd ? "ok" : std::strerror(open_errno)));
  REQUIRE(fd);
  REQUIRE(WIFEXITED(status));
  REQUIRE(WEXITSTATUS(status) == 0);
  std::uint64_t value = 0;
  REQUIRE(::read(fd.get(), &value, sizeof value) == sizeof value);
  return value;
}

}  // namespace

TEST_CASE("ElfSymbols reads values and file offsets that agree with binutils") {
  const ElfSymbols elf = ElfSymbols::load(kCallsElf);
  CHECK(elf.has_symtab());
  CHECK(elf.is_pie());  // Debian's gcc builds PIE by default
  for (const char* name : {"obs_hot", "obs_once", "main"}) {
    INFO(name);
    const auto s = elf.find(name);
    REQUIRE(s.has_value());
    CHECK(s->value == nm_value(kCallsElf, name));
    CHECK(s->type == 2);  // STT_FUNC
    CHECK(s->size > 0);
    CHECK(s->file_offset > 0);
  }
  const auto fns = elf.functions();
  CHECK(std::is_sorted(fns.begin(), fns.end(), [](auto& a, auto& b) { return a.name < b.name; }));
  CHECK(std::count_if(fns.begin(), fns.end(), [](auto& f) { return f.name == "obs_hot"; }) == 1);
  CHECK_FALSE(elf.find("no_such_function").has_value());
  const auto sink = elf.find("sink");  // a variable: found, but not a function
  REQUIRE(sink.has_value());
  CHECK(sink->type == 1);  // STT_OBJECT
  CHECK(std::none_of(fns.begin(), fns.end(), [](auto& f) { return f.name == "sink"; }));
}

TEST_CASE("unknown symbols suggest a function, stripped binaries say they are stripped") {
  const ElfSymbols elf = ElfSymbols::load(kCallsElf);
  try {
    elf.resolve("obs_hto");
    FAIL("no error");
  } catch (const Error& e) {
    CHECK(e.kind() == ErrorKind::event);
    CHECK(std::string(e.what()) == fmt::format("no symbol 'obs_hto' in '{}' (did you mean 'obs_hot'?)", kCallsElf));
  }
  const auto dir = std::filesystem::temp_directory_path() / fmt::format("obscheck-events-{}", ::getpid());
  std::filesystem::create_directories(dir);
  const std::string stripped = (dir / "calls-stripped").string();
  REQUIRE(std::system(fmt::format("objcopy --strip-all '{}' '{}'", kCallsElf, stripped).c_str()) == 0);
  try {
    resolve_event("uprobe:" + stripped + ":obs_hot");
    FAIL("no error");
  } catch (const Error& e) {
    CHECK(e.kind() == ErrorKind::event);
    CHECK_THAT(e.what(), Contains("is stripped (no .symtab) and 'obs_hot' is not in its .dynsym"));
  }
  std::filesystem::remove_all(dir);
}

TEST_CASE("program paths resolve like execvp") {
  const std::string sh = resolve_program_path("sh");
  CHECK(sh.front() == '/');
  CHECK(std::filesystem::path(sh).filename() == "sh");
  CHECK(resolve_program_path(kCallsElf) == std::filesystem::path(kCallsElf).lexically_normal().string());
  CHECK_THROWS_AS(resolve_program_path("obscheck-no-such-program"), Error);
  CHECK_THROWS_AS(resolve_program_path("./no/such/file"), Error);
  CHECK_THROWS_AS(ElfSymbols::load(std::string(OBSCHECK_GOLDEN_DIR) + "/events/cycles.json"), Error);
}

TEST_CASE("uprobe and breakpoint encodings") {
  const auto sym = ElfSymbols::load(kCallsElf).resolve("obs_hot");
  const EventDesc u = resolve_event("uprobe:" + kCallsElf + ":obs_hot");
  CHECK(u.source == "uprobe");
  CHECK(u.pmu == "uprobe");
  CHECK(u.probe_path == kCallsElf);
  CHECK(u.probe_symbol == "obs_hot");
  CHECK(u.attr.type == std::stoul(run("cat /sys/bus/event_source/devices/uprobe/type")));
  CHECK(u.attr.config == 0);
  CHECK(u.attr.config1 == 0);  // the path pointer is set when the event is opened
  CHECK(u.attr.config2 == sym.file_offset);

  const EventDesc b = resolve_event("bp:" + kCallsElf + ":obs_hot");
  CHECK(b.source == "breakpoint");
  CHECK(b.attr.type == PERF_TYPE_BREAKPOINT);
  CHECK(b.attr.bp_type == 4);  // HW_BREAKPOINT_X
  CHECK(b.attr.bp_len == sizeof(long));
  CHECK(b.attr.bp_addr == 0x555555554000ULL + nm_value(kCallsElf, "obs_hot"));
  ResolveOptions other_base;
  other_base.pie_load_base = 0x7f0000000000ULL;
  CHECK(resolve_event("bp:" + kCallsElf + ":obs_hot", other_base).attr.bp_addr ==
        0x7f0000000000ULL + nm_value(kCallsElf, "obs_hot"));
}

TEST_CASE("a uprobe on a function called 100000 times counts exactly 100000") {
  CHECK(count_calls(resolve_event("uprobe:" + kCallsElf + ":obs_hot")) == kCallCount);
  CHECK(count_calls(resolve_event("uprobe:" + kCallsElf + ":obs_once")) == 1);
}

TEST_CASE("a hardware breakpoint on the same function counts the same") {
  CHECK(count_calls(resolve_event("bp:" + kCallsElf + ":obs_hot")) == kCallCount);
  CHECK(count_calls(resolve_event("bp:" + kCallsElf + ":obs_once")) == 1);
}
