// Software probes and breakpoints on experiments/workloads/hot.c, which calls
// hot_step() exactly N times and cold_setup() exactly once: the hit counts must be
// exactly that, under both mechanisms.
#include <catch2/catch.hpp>

#include "error_of.h"
#include <fmt/format.h>
#include <unistd.h>

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "launch/launcher.h"
#include "observe/counters.h"
#include "observe/probes.h"
#include "util/error.h"

using namespace obscheck;
using Catch::Matchers::Contains;
namespace fs = std::filesystem;

using obscheck::test::error_of;

namespace {

const std::string kHot = std::string(OBSCHECK_WORKLOADS) + "/hot";
constexpr std::uint64_t kHotCalls = 5000;  // hot.c's default N

struct ProbesDir {
  fs::path path = fs::temp_directory_path() / fmt::format("obscheck-probes-{}", ::getpid());
  ProbesDir() { fs::create_directories(path); }
  ~ProbesDir() { fs::remove_all(path); }
};

std::string run_out(const std::string& cmd) {
  FILE* p = ::popen(cmd.c_str(), "r");
  REQUIRE(p);
  std::string out;
  char buf[512];
  while (std::size_t n = std::fread(buf, 1, sizeof buf, p)) out.append(buf, n);
  ::pclose(p);
  return out;
}

// Runs hot with `probes` opened after task-clock in one CounterSet (as the runner
// will); returns the probes' hits.
std::vector<ProbeHit> run_hot(const EventSet& probes, const std::vector<std::string>& args = {}) {
  std::vector<std::size_t> idx;
  const EventSet all = concat_events(parse_events("task-clock"), probes, &idx);
  LaunchSpec s;
  s.path = kHot;
  s.argv = {kHot};
  s.argv.insert(s.argv.end(), args.begin(), args.end());
  s.env = EnvBlock({"LC_ALL=C"});
  CorkedChild child = CorkedChild::spawn(s);  // ASLR off (launch/'s default): bp: addresses hold
  const CounterSet counters = CounterSet::open(child.pid(), all);
  child.release();
  REQUIRE(child.wait().ok());
  const auto readings = counters.read();
  CHECK(readings.at(0).value > 0);  // task-clock counted beside the probes
  return probe_hits(readings, all, idx);
}

}  // namespace

TEST_CASE("uprobe hit counts equal the known call counts") {
  const EventSet probes = probe_events(kHot, {"hot_step", "cold_setup"}, ProbeKind::uprobe);
  REQUIRE(probes.events.size() == 2);
  CHECK(probes.groups == std::vector<std::vector<std::size_t>>{{0}, {1}});
  CHECK(probes.events[0].source == "uprobe");
  const auto hits = run_hot(probes);
  REQUIRE(hits.size() == 2);
  CHECK(hits[0].symbol == "hot_step");
  CHECK(hits[0].name == "uprobe:" + kHot + ":hot_step");
  CHECK(hits[0].hits == kHotCalls);
  CHECK(hits[1].symbol == "cold_setup");
  CHECK(hits[1].hits == 1);
  // A different N, to show the count follows the calls: 1234 calls.
  CHECK(run_hot(probes, {"1234"})[0].hits == 1234);
}

TEST_CASE("breakpoint hit counts equal the known call counts") {
  const EventSet bps = probe_events(kHot, {"hot_step", "cold_setup"}, ProbeKind::breakpoint);
  CHECK(bps.events[0].source == "breakpoint");
  const auto hits = run_hot(bps);
  REQUIRE(hits.size() == 2);
  CHECK(hits[0].hits == kHotCalls);
  CHECK(hits[1].hits == 1);
}

TEST_CASE("a uprobe on a shared library function counts its calls from the target") {
  // hot's main calls strtol exactly once when given N (hot.c); libc's own start-up
  // does not call strtol. Every spelling of libc names the same file.
  const EventSet a = probe_events(kHot, {"libc.so.6:strtol"}, ProbeKind::uprobe);
  const EventSet b = probe_events(kHot, {"libc:strtol"}, ProbeKind::uprobe);
  const EventSet c = probe_events(kHot, {"libc.so:strtol"}, ProbeKind::uprobe);
  CHECK(a.events[0].probe_path == b.events[0].probe_path);
  CHECK(a.events[0].probe_path == c.events[0].probe_path);
  CHECK_THAT(a.events[0].probe_path, Contains("libc.so.6"));
  CHECK(run_hot(a, {"1000"})[0].hits == 1);

  const Error lib = error_of([] { probe_events(kHot, {"libcc:strtol"}, ProbeKind::uprobe); });
  CHECK(lib.kind() == ErrorKind::target);
  CHECK(std::string(lib.what()) == fmt::format("'{}' does not link a library 'libcc' (did you mean 'libc.so.6'?)", kHot));
  CHECK(lib.hint() == "it links: libc.so.6");
  const Error bp = error_of([] { probe_events(kHot, {"libc:strtol"}, ProbeKind::breakpoint); });
  CHECK(bp.kind() == ErrorKind::usage);
  CHECK_THAT(bp.hint(), Contains("--probes"));
}

TEST_CASE("a fifth breakpoint is explained by the CPU's four debug registers") {
  const std::vector<std::string> four(4, "hot_step");
  require_openable_together(probe_events(kHot, four, ProbeKind::breakpoint));  // four fit: no throw
  const std::vector<std::string> five(5, "hot_step");
  const Error e = error_of([&] { require_openable_together(probe_events(kHot, five, ProbeKind::breakpoint)); });
  CHECK(e.kind() == ErrorKind::event);
  CHECK_THAT(std::string(e.what()), Contains("the CPU has 4 debug registers"));
  CHECK_THAT(std::string(e.what()), Contains("(5 breakpoints asked for)"));
  CHECK_THAT(e.hint(), Contains("at most 4 breakpoints"));
}

TEST_CASE("probe errors: unknown symbol, stripped binary, script, not ELF") {
  const Error typo = error_of([] { probe_events(kHot, {"hot_stpe"}, ProbeKind::uprobe); });
  CHECK(typo.kind() == ErrorKind::event);
  CHECK(std::string(typo.what()) == fmt::format("no symbol 'hot_stpe' in '{}' (did you mean 'hot_step'?)", kHot));

  ProbesDir dir;
  const std::string stripped = (dir.path / "hot-stripped").string();
  REQUIRE(std::system(fmt::format("objcopy --strip-all '{}' '{}'", kHot, stripped).c_str()) == 0);
  const Error st = error_of([&] { probe_events(stripped, {"hot_step"}, ProbeKind::uprobe); });
  CHECK(st.kind() == ErrorKind::event);
  CHECK_THAT(std::string(st.what()), Contains("stripped"));
  const Error sta = error_of([&] { auto_probe_symbols(stripped, 1); });
  CHECK(sta.kind() == ErrorKind::event);
  CHECK_THAT(std::string(sta.what()), Contains("stripped"));

  const fs::path script = dir.path / "run.sh";
  std::ofstream(script) << "#!/bin/sh\nexec true\n";
  fs::permissions(script, fs::perms::owner_all);
  const Error sc = error_of([&] { probe_events(script.string(), {"main"}, ProbeKind::uprobe); });
  CHECK(sc.kind() == ErrorKind::target);
  CHECK(std::string(sc.what()) == fmt::format("'{}' is a script (#!/bin/sh): probes need an ELF binary", script.string()));
  CHECK(error_of([&] { auto_probe_symbols(script.string(), 1); }).kind() == ErrorKind::target);

  const fs::path text = dir.path / "data.txt";
  std::ofstream(text) << "hello\n";
  fs::permissions(text, fs::perms::owner_all);
  CHECK_THAT(std::string(error_of([&] { require_elf_binary(text.string()); }).what()), Contains("is not an ELF binary"));
}

TEST_CASE("auto probe symbols: the program's own functions, largest first") {
  // Independent reference: binutils' nm with sizes, of the three functions hot.c
  // defines (the C runtime's are excluded), sorted by size descending, then name.
  const std::string nm = run_out(fmt::format(
      "nm -S --defined-only '{}' | awk '$3 ~ /^[Tt]$/ && ($4 == \"main\" || $4 == \"hot_step\" || $4 == "
      "\"cold_setup\") {{print $2, $4}}' | sort -k1,1r -k2,2",
      kHot));
  std::vector<std::string> expected;
  std::istringstream lines(nm);
  for (std::string size, name; lines >> size >> name;) expected.push_back(name);
  REQUIRE(expected.size() == 3);
  CHECK(auto_probe_symbols(kHot, 3) == expected);
  CHECK(auto_probe_symbols(kHot, 1) == std::vector<std::string>{expected[0]});
  CHECK(auto_probe_symbols(kHot, 0).empty());
  const Error e = error_of([] { auto_probe_symbols(kHot, 4); });
  CHECK(e.kind() == ErrorKind::usage);
  CHECK_THAT(std::string(e.what()), Contains("has only 3 functions to probe"));
  // What auto picks can be probed.
  CHECK(probe_events(kHot, auto_probe_symbols(kHot, 3), ProbeKind::uprobe).events.size() == 3);
}

TEST_CASE("concat_events shifts the second set's groups") {
  const EventSet a = parse_events("task-clock,{page-faults,ctx-switches}");
  const EventSet b = parse_events("cpu-migrations");
  std::vector<std::size_t> idx;
  const EventSet c = concat_events(a, b, &idx);
  REQUIRE(c.events.size() == 4);
  CHECK(c.groups == std::vector<std::vector<std::size_t>>{{0}, {1, 2}, {3}});
  CHECK(idx == std::vector<std::size_t>{3});
}
