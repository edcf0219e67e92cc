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
#include "run/observers.h"
#include "run/session.h"
#include "report/check_report.h"
#include "session_journal.h"
#include "test_pmu.h"
#include "util/perf_syscalls.h"

#include "../temp_dir.h"

using namespace obscheck;
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
  s.plan = obscheck::test::held_counter_plan({"cycles", "l1d"}, 5, blocks, blocks);
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
  obscheck::test::TempDir dir;  // util/temp_dir.h has an obscheck::TempDir too
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
  obscheck::test::TempDir dir;  // util/temp_dir.h has an obscheck::TempDir too
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

namespace {

// The check of cycles_l1d_session on the test PMU, with noise 0: every count is exact.
struct PmuCheck {
  Session session;
  Findings findings;
};

PmuCheck check_on_test_pmu(const TestPmuConfig& c, std::size_t blocks, bool allow_multiplex) {
  TestPmu pmu(c);
  ScopedPerfSyscalls seam(pmu);
  PmuCheck out{cycles_l1d_session(blocks), {}};
  Session& s = out.session;
  obscheck::test::TempDir dir;  // util/temp_dir.h has an obscheck::TempDir too
  s.journal_path = (dir.path / "j.jsonl").string();
  JournalWriter writer = JournalWriter::create(s.journal_path, manifest(s.plan));
  const LookFn look = [](const std::vector<RunRecord>&, std::size_t) { return LookOutcome{}; };
  REQUIRE(run_session(s, writer, look).failure.empty());
  AnalysisOptions o;
  o.fixed_design = true;
  o.allow_multiplex = allow_multiplex;
  // The host's load while the runs ran is this machine's, not the model's: left out, so
  // that every reason is the model's alone.
  std::vector<RunRecord> runs = s.runs;
  for (RunRecord& r : runs) r.host.reset();
  out.findings = analyse_check(s.plan, runs, o);
  return out;
}

std::size_t config_named(const Plan& plan, const std::string& id) {
  for (const Configuration& c : plan.configs)
    if (c.id == id) return c.index;
  FAIL("no configuration " << id);
  return 0;
}

const LevelVerdict& verdict_of(const Findings& f, const std::string& metric, const std::string& level) {
  for (const LevelVerdict& v : f.verdicts)
    if (f.metrics.at(v.metric).name == metric && v.level_label == level) return v;
  FAIL("no verdict for " << metric << " at " << level);
  throw;
}

const CounterValidity& validity_of(const Findings& f, const std::string& metric) {
  for (const CounterValidity& v : f.counters)
    if (f.metrics.at(v.metric).name == metric) return v;
  FAIL("no validity for " << metric);
  throw;
}

const CounterRunning& running_in(const Plan& plan, const CounterValidity& v, const std::string& config) {
  const std::size_t index = config_named(plan, config);
  for (const CounterRunning& c : v.configs)
    if (c.config == index) return c;
  FAIL("no running for " << config);
  throw;
}

constexpr std::size_t kBlocks = 6;
// Blocks enough for "not perturbed": the runs that an effect on 1 run in 4 would have
// touched with probability 95% (analysis/check.h intermittent_cover_blocks).
constexpr std::size_t kDecideBlocks = 11;

}  // namespace

TEST_CASE("test PMU: the check reports each counter's running fraction, scaling and A/A determinism, exactly",
          "[test-pmu]") {
  const PmuCheck run = check_on_test_pmu(one_slot(), kBlocks, false);
  const Plan& plan = run.session.plan;
  const Findings& f = run.findings;
  REQUIRE(f.counters.size() == 2);

  // cycles: alone it has the one counter to itself; beside l1d it runs 2 of 4 ms in
  // every run and is scaled by 2; the A/A runs (cycles alone, twice per block) count
  // 2/ns x 4 ms = 8,000,000 every time.
  const CounterValidity& cycles = validity_of(f, "cycles");
  CHECK(cycles.determinism == Determinism::deterministic);
  CHECK(cycles.determinism_text == "the same count (8000000) in all 12 A/A runs");
  CHECK(cycles.scaled_runs == kBlocks);
  CHECK(cycles.never_ran == 0);
  CHECK(cycles.faults == 0);
  REQUIRE(cycles.configs.size() == 3);
  const CounterRunning& alone = running_in(plan, cycles, "counters=1[cycles]/held");
  CHECK(alone.runs == kBlocks);
  CHECK(alone.running_min == 1.0);
  CHECK(alone.running_median == 1.0);
  CHECK(alone.scaled_runs == 0);
  CHECK(alone.identical);
  const CounterRunning& beside = running_in(plan, cycles, "counters=2[cycles,l1d]/held");
  CHECK(beside.runs == kBlocks);
  CHECK(beside.running_min == 0.5);
  CHECK(beside.running_median == 0.5);
  CHECK(beside.scaled_runs == kBlocks);
  CHECK(beside.max_scale == 2.0);
  CHECK(beside.identical);

  // l1d is never counted in the A/A control (its baseline is cycles alone): its
  // reference, l1d alone, ran six times and counted 0.25/ns x 4 ms each time.
  const CounterValidity& l1d = validity_of(f, "l1d");
  CHECK(l1d.determinism == Determinism::deterministic);
  CHECK(l1d.determinism_text == "the same count (1000000) in all 6 runs of counters=1[l1d]/held");
  REQUIRE(l1d.configs.size() == 2);
  CHECK(running_in(plan, l1d, "counters=2[cycles,l1d]/held").running_median == 0.5);
  CHECK(running_in(plan, l1d, "counters=1[l1d]/held").running_min == 1.0);

  // Without --allow-multiplex the multiplexed comparisons are incomparable, never "not perturbed".
  const LevelVerdict& v = verdict_of(f, "cycles", "2[cycles,l1d]");
  CHECK(v.verdict == Verdict::incomparable);
  CHECK(v.reason == "held: cycles multiplexed in 6 runs (scaled up to x2.00)");
  CHECK_FALSE(v.scaled);
  const LevelVerdict& w = verdict_of(f, "l1d", "2[cycles,l1d]");
  CHECK(w.verdict == Verdict::incomparable);
  CHECK(w.reason == "held: l1d multiplexed in 6 runs (scaled up to x2.00)");

  // The report says so, in text and JSON.
  CheckContext ctx;
  const std::string text = check_text(plan, f, ctx, false);
  CHECK_THAT(text, Catch::Contains("counters: running = time running / time enabled, min / median over the runs; "
                                   "determinism over the A/A runs, else the counter's reference\n"
                                   "  cycles: the same count (8000000) in all 12 A/A runs\n"));
  CHECK_THAT(text, Catch::Contains("    counters=1[cycles]/held         6 runs  running 100% / 100%  exact, the same "
                                   "count in every run\n"
                                   "    counters=2[cycles,l1d]/held     6 runs  running  50% /  50%  scaled in 6 (up to "
                                   "x2.00), the same count in every run\n"));
  const nlohmann::json j = nlohmann::json::parse(check_json(plan, f, ctx));
  const nlohmann::json& jc = j.at("counters").at(0);
  CHECK(jc.at("metric_name") == "cycles");
  CHECK(jc.at("determinism") == "deterministic");
  CHECK(jc.at("scaled_runs") == kBlocks);
  bool seen = false;
  for (const nlohmann::json& c : jc.at("configs"))
    if (c.at("config_id") == "counters=2[cycles,l1d]/held") {
      seen = true;
      CHECK(c.at("running_min") == 0.5);
      CHECK(c.at("running_median") == 0.5);
      CHECK(c.at("scaled_runs") == kBlocks);
      CHECK(c.at("max_scale") == 2.0);
    }
  CHECK(seen);
}

TEST_CASE("test PMU: --allow-multiplex compares the scaled counts and labels the verdict scaled", "[test-pmu]") {
  const PmuCheck run = check_on_test_pmu(one_slot(), kDecideBlocks, true);
  const Findings& f = run.findings;
  // cycles beside l1d, scaled by 2, counts 4,000,000 x 2 = 8,000,000: the same as alone,
  // in every block, so within ±1% — and the verdict says it rests on estimates.
  const LevelVerdict& v = verdict_of(f, "cycles", "2[cycles,l1d]");
  CHECK(v.verdict == Verdict::not_perturbed);
  CHECK(v.scaled);
  CHECK(v.reason ==
        "within ±1% under held +0.00% [+0.00, +0.00], equal in all 11 blocks: an effect on at least 1 run in 4 would "
        "have shown; scaled: multiplexed in 11 runs (up to x2.00), compared as estimates (--allow-multiplex)");
  const Comparison& c = f.comparisons.at(v.comparisons.at(0));
  CHECK(c.scaled_runs == kDecideBlocks);
  CHECK(c.max_scale == 2.0);
  CHECK(c.median_config == 8'000'000.0);
  CHECK(c.median_baseline == 8'000'000.0);
  // The verdict on l1d beside cycles too: 500,000 x 2 against 1,000,000 alone.
  const LevelVerdict& w = verdict_of(f, "l1d", "2[cycles,l1d]");
  CHECK(w.verdict == Verdict::not_perturbed);
  CHECK(w.scaled);
  // No run was named incomparable for being multiplexed.
  for (const IncomparableRun& r : f.incomparable) CHECK(r.why.find("multiplexed") == std::string::npos);
  CheckContext ctx;
  const std::string text = check_text(run.session.plan, f, ctx, false);
  CHECK_THAT(text, Catch::Contains("not perturbed (within ±ε), scaled"));
  // The summary says it too, on the counter's own line (read as one line: where it
  // wraps depends on the length of what comes before).
  std::string flat;
  for (std::size_t i = 0; i < text.size(); ++i) {
    if (text[i] != '\n') {
      flat += text[i];
      continue;
    }
    flat += ' ';
    while (i + 1 < text.size() && text[i + 1] == ' ') ++i;
  }
  CHECK_THAT(flat, Catch::Contains("scaled at 1 level (multiplexed counts compared as estimates, --allow-multiplex)"));
  const nlohmann::json j = nlohmann::json::parse(check_json(run.session.plan, f, ctx));
  bool labelled = false;
  for (const nlohmann::json& jv : j.at("verdicts"))
    if (jv.at("metric_name") == "cycles" && jv.at("level") == "2[cycles,l1d]") labelled = jv.at("scaled") == true;
  CHECK(labelled);
}

TEST_CASE("test PMU: a counter that reads zero, or one that never runs, is a fault, not a value", "[test-pmu]") {
  TestPmuConfig c = one_slot();
  c.slots = 4;  // nothing multiplexes
  SECTION("cycles runs but reads zero") {
    c.events[kCycles].rate_per_ns = 0;
    const PmuCheck run = check_on_test_pmu(c, kBlocks, true);
    const Findings& f = run.findings;
    // Six blocks of the three configurations that count cycles: alone, beside l1d, the A/A copy.
    const CounterValidity& cycles = validity_of(f, "cycles");
    CHECK(cycles.faults == 18);
    CHECK(cycles.never_ran == 0);
    CHECK(cycles.determinism == Determinism::not_known);
    CHECK(cycles.determinism_text == "scaled or faulty in 12 of the 12 A/A runs: no exact count to compare");
    CHECK(running_in(run.session.plan, cycles, "counters=1[cycles]/held").running_min == 1.0);
    const LevelVerdict& v = verdict_of(f, "cycles", "2[cycles,l1d]");
    CHECK(v.verdict == Verdict::incomparable);
    CHECK(v.reason == "held: cycles read zero or negative in 12 runs (a fault, not a value)");
    // Every run that counted cycles is named once: the baseline's, the level's and the
    // A/A copy's (the A/A comparison is incomparable too).
    std::size_t named = 0;
    for (const IncomparableRun& r : f.incomparable)
      named += r.why == "cycles fault: it ran but read zero or negative, no value";
    CHECK(named == 18);
    // l1d counts on: 0.25/ns x 4 ms, exactly, beside cycles and alone (equal in every
    // block; "not perturbed" would need 11 blocks).
    const LevelVerdict& l1d = verdict_of(f, "l1d", "2[cycles,l1d]");
    CHECK(f.comparisons.at(l1d.comparisons.at(0)).equal_blocks == kBlocks);
  }
  SECTION("cycles never runs: the PMU stops it before it counts") {
    c.events[kCycles].stops_at_ns = 0;
    const PmuCheck run = check_on_test_pmu(c, kBlocks, true);
    const Findings& f = run.findings;
    const CounterValidity& cycles = validity_of(f, "cycles");
    CHECK(cycles.never_ran == 18);
    CHECK(cycles.faults == 0);
    const CounterRunning& alone = running_in(run.session.plan, cycles, "counters=1[cycles]/held");
    CHECK(alone.running_min == 0.0);
    CHECK(alone.running_median == 0.0);
    // Even with --allow-multiplex: there is no count to scale.
    const LevelVerdict& v = verdict_of(f, "cycles", "2[cycles,l1d]");
    CHECK(v.verdict == Verdict::incomparable);
    CHECK(v.reason == "held: cycles never ran in 12 runs (multiplexed out): no value to compare");
  }
}

TEST_CASE("test PMU: the sampling observer records the rate it achieved and its throttling in the run",
          "[test-pmu][sampling]") {
  TestPmuConfig c = one_slot();
  c.slots = 4;
  c.sampling.throttle_hz = 100'000;
  TestPmu pmu(c);
  ScopedPerfSyscalls seam(pmu);
  ObserverSpec spec;
  spec.kind = ObserverKind::sampling;
  spec.sample_event = events("cycles").events.at(0);
  const std::unique_ptr<Observer> observer = make_observer(spec);
  Level level;
  level.knob = SampledAt{1'000'000};
  std::unique_ptr<Attachment> a = observer->attach(4242, level);
  REQUIRE(a);
  a->start();
  RunRecord rec;
  a->collect(rec);
  // 1 MHz asked, 100 kHz let through in each of the 4 ticks of 1 ms: 400 samples over
  // 4 ms of the target's time, four throttlings, nothing lost.
  REQUIRE(rec.sampling);
  nlohmann::json extra = nlohmann::json::object();  // as the run line holds it
  put_sampling(extra, *rec.sampling);
  const nlohmann::json& s = extra.at("sampling");
  CHECK(s.at("freq") == 1'000'000);
  CHECK(s.at("samples") == 400);
  CHECK(s.at("throttles") == 4);
  CHECK(s.at("unthrottles") == 4);
  CHECK(s.at("lost") == 0);
  CHECK(s.at("run_ns") == 4'000'000);
  CHECK(s.at("achieved_hz") == 100'000.0);
}
