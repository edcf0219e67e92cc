// The check end to end on the test PMU (tests/support/test_pmu.h): the real loop
// (run/session.h) spawns /bin/true for every run and counts it through the product's
// own counter code, the counts come from the model, and the check's analysis
// (analysis/check.h) gives the verdicts. On a host without a hardware PMU.
#include <catch2/catch.hpp>

#include <chrono>
#include <cmath>

#include "analysis/check.h"
#include "events/event.h"
#include "record/journal.h"
#include "record/journal_reader.h"
#include "run/backend.h"
#include "run/measure.h"
#include "run/session.h"
#include "test_pmu.h"
#include "util/perf_syscalls.h"

#include "../temp_dir.h"

using namespace obscheck;
using obscheck::test::TempDir;
using obscheck::test::TestPmu;
using obscheck::test::TestPmuConfig;

namespace {

const test::EventKey kCycles{PERF_TYPE_HARDWARE, PERF_COUNT_HW_CPU_CYCLES};
const test::EventKey kL1d{PERF_TYPE_HW_CACHE, 0x10000};

EventSet events(const std::string& spec) {
  ResolveOptions o;
  o.kernel_levels = KernelLevels::allowed;
  return parse_events(spec, o);
}

// One hardware counter: cycles and l1d together take turns, each on half the time.
TestPmuConfig one_slot() {
  TestPmuConfig c;
  c.slots = 1;
  c.run_ns = 4'000'000;
  c.tick_ns = 1'000'000;
  c.events[kCycles].rate_per_ns = 2;
  c.events[kL1d].rate_per_ns = 0.25;
  return c;
}

// --counters cycles,l1d on /bin/true: levels [cycles], [cycles,l1d] and l1d alone,
// held layout, a fixed number of blocks.
Session cycles_l1d_session(std::size_t blocks) {
  Session s;
  PlanSpec ps;
  ps.counters = {"cycles", "l1d"};
  ps.levels = counter_levels(ps.counters);
  ps.layouts = {Layout::held};
  ps.seed = 5;
  ps.max_blocks = blocks;
  ps.fixed_blocks = blocks;
  s.plan = make_plan(ps);
  s.spec.base.path = "/bin/true";
  s.spec.base.argv = {"true"};
  s.spec.base.env = EnvBlock::for_target();
  s.spec.backend = choose_backend(BackendKind::native);
  s.spec.events = events("cycles,l1d");
  s.spec.item_events = {{0}, {1}};
  return s;
}

nlohmann::json manifest(const Plan& plan) {
  ManifestInput in;
  in.obscheck_version = "0.1.0";
  in.created = std::chrono::system_clock::now();
  in.options = {{"counters", {"cycles", "l1d"}}};
  in.target = {"/bin/true", {"true"}, std::string(64, 'a')};
  return make_manifest(in, plan);
}

}  // namespace

TEST_CASE("test PMU: measure counts a real target through the product's counter path, exactly",
          "[test-pmu]") {
  TestPmuConfig c = one_slot();
  c.slots = 4;
  TestPmu pmu(c);
  ScopedPerfSyscalls seam(pmu);
  LaunchSpec launch;
  launch.path = "/bin/true";
  launch.argv = {"true"};
  launch.env = EnvBlock::for_target();
  const RunOutcome out = measure_with_counters(launch, events("{cycles,l1d},duration_time"));
  REQUIRE(out.exit.ok());
  REQUIRE(out.readings.size() == 3);
  CHECK(out.readings[0].raw == 8'000'000);
  CHECK(out.readings[1].raw == 1'000'000);
  CHECK_FALSE(out.readings[0].multiplexed);
  // duration_time is the driver's clock for the run, exact: no counter involved.
  CHECK(out.readings[2].name == "duration_time");
  CHECK(out.readings[2].raw == out.exit.wall_ns);
  CHECK(out.readings[2].value == static_cast<double>(out.exit.wall_ns));
  CHECK(out.readings[2].fault.empty());
}

TEST_CASE("test PMU: the check calls a multiplexed counter's comparison incomparable, with its running fraction",
          "[test-pmu]") {
  TestPmu pmu(one_slot());
  ScopedPerfSyscalls seam(pmu);
  Session s = cycles_l1d_session(6);
  TempDir dir;
  s.journal_path = (dir.path / "j.jsonl").string();
  JournalWriter writer = JournalWriter::create(s.journal_path, manifest(s.plan));
  const LookFn look = [](const std::vector<RunRecord>&, std::size_t) { return LookOutcome{}; };
  const SessionOutcome out = run_session(s, writer, look);
  REQUIRE(out.failure.empty());
  REQUIRE_FALSE(s.runs.empty());

  // Every run where both counters were programmed: each ran 2 of 4 ms, scaled by 2.
  std::size_t both = 0;
  for (const RunRecord& r : s.runs) {
    if (r.readings.size() != 2) continue;
    ++both;
    for (const Reading& x : r.readings) {
      INFO(x.name);
      CHECK(x.time_enabled == 4'000'000);
      CHECK(x.time_running == 2'000'000);
      CHECK(x.multiplexed);
      CHECK(x.scale == 2.0);
    }
    CHECK(r.readings[0].value == 8'000'000.0);
    CHECK(r.readings[1].value == 1'000'000.0);
  }
  CHECK(both > 0);

  AnalysisOptions o;
  const Findings f = analyse_check(s.plan, s.runs, o);
  // Every verdict on a level that programs both counters is incomparable, and says why.
  std::size_t multiplexed_verdicts = 0;
  for (const LevelVerdict& v : f.verdicts) {
    if (v.level_label.find("cycles") == std::string::npos || v.level_label.find("l1d") == std::string::npos) continue;
    const std::string& metric = f.metrics.at(v.metric).name;
    if (metric != "cycles" && metric != "l1d") continue;
    INFO(metric << " at " << v.level_label << ": " << v.reason);
    CHECK(v.verdict == Verdict::incomparable);
    CHECK(v.reason.find("multiplexed") != std::string::npos);
    ++multiplexed_verdicts;
  }
  CHECK(multiplexed_verdicts >= 1);
  // The runs that made it so are named, with the scale.
  bool named = false;
  for (const IncomparableRun& r : f.incomparable) named = named || r.why == "l1d multiplexed (x2.00)";
  CHECK(named);
}

TEST_CASE("test PMU: the journal keeps each run's running fraction and a counter's fault", "[test-pmu]") {
  TestPmuConfig c = one_slot();
  c.events[kCycles].offset = -100'000'000;  // cycles read negative as a signed count
  TestPmu pmu(c);
  ScopedPerfSyscalls seam(pmu);
  Session s = cycles_l1d_session(1);
  TempDir dir;
  s.journal_path = (dir.path / "j.jsonl").string();
  JournalWriter writer = JournalWriter::create(s.journal_path, manifest(s.plan));
  const LookFn look = [](const std::vector<RunRecord>&, std::size_t) { return LookOutcome{}; };
  REQUIRE(run_session(s, writer, look).failure.empty());
  const JournalData d = load_journal(s.journal_path);
  REQUIRE(d.runs.size() == s.runs.size());
  std::size_t faults = 0, halves = 0;
  for (const RunRecord& r : d.runs) {
    for (const Reading& x : r.readings) {
      if (x.name == "cycles") {
        ++faults;
        CHECK(std::isnan(x.value));
        CHECK(x.fault.starts_with("cycles reads negative ("));
      }
      if (x.name == "l1d" && r.readings.size() == 2) {
        ++halves;
        CHECK(x.running_fraction() == 0.5);  // enabled and running, as journalled
        CHECK(x.fault.empty());
      }
    }
  }
  CHECK(faults > 0);
  CHECK(halves > 0);
}
