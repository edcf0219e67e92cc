// analysis/check: verdicts on synthetic sweeps built to have a known answer. Every
// value is a deterministic function of (block, configuration, metric): a base of 10^6
// (ns or events), a seeded uniform jitter of ±noise, and an injected factor.
#include <catch2/catch.hpp>

#include <cmath>
#include <functional>
#include <string>

#include "analysis/check.h"
#include "stats/descriptive.h"
#include "stats/hypothesis.h"
#include "stats/magnitude.h"
#include "stats/sequential.h"
#include "util/error.h"

using namespace obscheck;

namespace {

using Factor = std::function<double(std::size_t block, const Plan& plan, const Configuration& c,
                                    const std::string& metric)>;

struct Synth {
  double noise = 0.002;       // ±0.2% uniform jitter
  std::uint64_t seed = 1;
  Factor factor;              // injected effect; unset = 1
  double base = 1e6;
};

// FNV-1a: a platform-independent hash of the metric name for the jitter.
std::uint64_t fnv1a(const std::string& s) {
  std::uint64_t h = 1469598103934665603ull;
  for (unsigned char ch : s) h = (h ^ ch) * 1099511628211ull;
  return h;
}

double jitter(const Synth& s, std::size_t block, std::size_t config, const std::string& metric) {
  const std::uint64_t h = splitmix64(splitmix64(splitmix64(s.seed ^ fnv1a(metric)) + block) + config);
  return static_cast<double>(h >> 11) * 0x1.0p-53 * 2.0 - 1.0;  // [-1, 1)
}

double value(const Synth& s, std::size_t block, const Plan& plan, const Configuration& c, const std::string& m) {
  const double f = s.factor ? s.factor(block, plan, c, m) : 1.0;
  return std::round(s.base * (1.0 + s.noise * jitter(s, block, c.index, m)) * f);
}

struct timeval to_timeval(double ns) {
  const auto us = static_cast<long long>(std::llround(ns / 1000.0));
  return {static_cast<time_t>(us / 1000000), static_cast<suseconds_t>(us % 1000000)};
}

// Warm-up block(s) plus `measured` measured blocks, in the plan's run order.
std::vector<RunRecord> synth_runs(const Plan& plan, std::size_t measured, const Synth& s) {
  std::vector<RunRecord> runs;
  for (const Trial& t : trials(plan, 0, plan.spec.warmup_blocks + measured)) {
    RunRecord r = run_record_for(plan, t);
    const Configuration& c = plan.configs[t.config];
    const auto v = [&](const std::string& m) { return value(s, t.block, plan, c, m); };
    r.exit.exit_code = 0;
    r.exit.signal = 0;
    r.exit.wall_ns = static_cast<std::uint64_t>(v("wall-time"));
    r.exit.usage.ru_utime = to_timeval(v("user-time"));
    r.exit.usage.ru_stime = to_timeval(v("system-time"));
    r.exit.usage.ru_maxrss = static_cast<long>(v("max-rss"));
    r.exit.pre_exec_maxrss_kb = 1;  // a target whose peak is above obscheck's: max-rss is its own
    r.exit.usage.ru_minflt = static_cast<long>(v("minor-faults(ru)"));
    r.exit.usage.ru_nvcsw = static_cast<long>(v("vol-ctx-switches(ru)"));
    r.exit.usage.ru_nivcsw = static_cast<long>(v("invol-ctx-switches(ru)"));
    r.exit.output_digest = std::string(64, 'a');
    for (std::size_t i : c.level.programmed) {
      Reading reading;
      reading.name = plan.spec.counters[i];
      reading.value = v(reading.name);
      reading.raw = static_cast<std::uint64_t>(reading.value);
      reading.time_enabled = reading.time_running = 1000000;
      r.readings.push_back(reading);
    }
    runs.push_back(std::move(r));
  }
  return runs;
}

Plan counter_plan(std::vector<std::string> counters, CountingMode mode) {
  PlanSpec s;
  s.counters = std::move(counters);
  s.levels = counter_levels(s.counters);
  s.layouts = layouts_for(mode);
  s.seed = 11;
  return make_plan(s);
}

std::size_t metric_index(const Findings& f, const std::string& name) {
  for (std::size_t i = 0; i < f.metrics.size(); ++i)
    if (f.metrics[i].name == name) return i;
  FAIL("no metric " << name);
  return 0;
}

const LevelVerdict& verdict_of(const Findings& f, const std::string& metric, const std::string& level) {
  const std::size_t m = metric_index(f, metric);
  for (const LevelVerdict& v : f.verdicts)
    if (v.metric == m && v.level_label == level) return v;
  FAIL("no verdict for " << metric << " at " << level);
  return f.verdicts.front();
}

const Comparison& comparison_of(const Findings& f, const std::string& metric, const std::string& level,
                                Layout layout) {
  const std::size_t m = metric_index(f, metric);
  for (const Comparison& c : f.comparisons)
    if (c.metric == m && c.level_label == level && c.layout == layout && !c.aa) return c;
  FAIL("no comparison for " << metric << " at " << level);
  return f.comparisons.front();
}

bool starts_with(const std::string& s, const std::string& prefix) { return s.rfind(prefix, 0) == 0; }

std::string level_of(const Plan& plan, const Configuration& c) { return plan.spec.levels[c.level_index].label; }

std::size_t count_verdicts(const Findings& f, Verdict v) {
  return static_cast<std::size_t>(
      std::count_if(f.verdicts.begin(), f.verdicts.end(), [&](const LevelVerdict& x) { return x.verdict == v; }));
}

const AnalysisOptions kOptions{0.01, 0.05, 1, 42};

}  // namespace

TEST_CASE("verdict names and keys round-trip, unknown keys are io errors") {
  for (Verdict v : {Verdict::perturbed, Verdict::explained_by_layout, Verdict::not_perturbed, Verdict::incomparable,
                    Verdict::inconclusive})
    CHECK(verdict_from_key(verdict_key(v)) == v);
  CHECK(verdict_text(Verdict::perturbed) == "perturbed by the measurement");
  CHECK(verdict_text(Verdict::explained_by_layout) == "explained by layout");
  CHECK(verdict_text(Verdict::not_perturbed) == "not perturbed (within ±ε)");
  CHECK(verdict_key(Verdict::explained_by_layout) == "layout");
  CHECK(verdict_key(Verdict::not_perturbed) == "not-perturbed");
  try {
    verdict_from_key("perturbed-ish");
    FAIL("no throw");
  } catch (const Error& e) {
    CHECK(e.kind() == ErrorKind::io);
  }
}

TEST_CASE("metrics: readings by counter item (group members share it), then the driver's seven") {
  const Plan plan = counter_plan({"a", "{b,c}"}, CountingMode::external);
  std::vector<RunRecord> runs(1);
  runs[0].config = 1;  // 2[a,{b,c}]: programs both items
  runs[0].readings = {{"c", 5, 1, 1, 5.0, false, 1.0}, {"a", 7, 1, 1, 7.0, false, 1.0}, {"b", 9, 1, 1, 9.0, false, 1.0}};
  const std::vector<MetricInfo> m = check_metrics(plan, runs);
  REQUIRE(m.size() == 10);
  CHECK(m[0].name == "a");
  CHECK(m[0].counter == 0u);
  CHECK(m[1].name == "c");  // item 1, first seen before b
  CHECK(m[1].counter == 1u);
  CHECK(m[2].name == "b");
  CHECK(m[2].counter == 1u);
  const std::vector<std::string> driver{"wall-time", "user-time", "system-time", "max-rss", "minor-faults(ru)",
                                        "vol-ctx-switches(ru)", "invol-ctx-switches(ru)"};
  for (std::size_t i = 0; i < driver.size(); ++i) {
    CHECK(m[3 + i].name == driver[i]);
    CHECK(m[3 + i].driver);
    CHECK_FALSE(m[3 + i].counter);
  }
  CHECK(m[3].unit == "ns");
  CHECK(m[6].unit == "KiB");
  CHECK(m[7].unit == "count");

  RunRecord r;
  r.exit.wall_ns = 123456789;
  r.exit.usage.ru_utime = {2, 500000};  // 2.5 s
  r.exit.usage.ru_stime = {0, 7};       // 7 µs
  r.exit.usage.ru_maxrss = 4096;
  r.exit.usage.ru_nivcsw = 3;
  r.readings = {{"a", 0, 10, 0, std::nan(""), true, 0.0}};  // never ran
  CHECK(metric_value(m[3], r) == 123456789.0);
  CHECK(metric_value(m[4], r) == 2.5e9);
  CHECK(metric_value(m[5], r) == 7000.0);
  CHECK(metric_value(m[6], r) == 4096.0);
  CHECK(metric_value(m[9], r) == 3.0);
  CHECK_FALSE(metric_value(m[0], r));  // NaN: no value
  CHECK_FALSE(metric_value(m[1], r));  // absent
}

TEST_CASE("identical configurations over 30 blocks are not perturbed, everywhere") {
  const Plan plan = counter_plan({"a", "b"}, CountingMode::external);
  const Findings f = analyse_check(plan, synth_runs(plan, 30, Synth{}), kOptions);
  CHECK(f.runs == 30 * plan.configs.size());
  CHECK(f.warmup_runs_dropped == plan.configs.size());
  CHECK(f.measured_blocks == 30);
  // a at 2[a,b]; b at 2[a,b]; seven driver metrics at 2[a,b] and 1[b].
  REQUIRE(f.verdicts.size() == 2 + 7 * 2);
  CHECK(count_verdicts(f, Verdict::not_perturbed) == f.verdicts.size());
  CHECK(f.decisive);
  CHECK(f.aa.ok);
  CHECK(f.aa.comparisons.size() == 8);  // the first counter and the seven driver metrics
  CHECK(f.incomparable.empty());
  const LevelVerdict& v = verdict_of(f, "a", "2[a,b]");
  CHECK(starts_with(v.reason, "within ±1% under held "));
  for (Verdict mv : f.metric_verdicts) CHECK(mv == Verdict::not_perturbed);
}

TEST_CASE("an exact +10% under held layout is perturbed, with effect 0.1 and a point CI") {
  const Plan plan = counter_plan({"a", "b"}, CountingMode::external);
  Synth s;
  s.noise = 0;
  s.factor = [](std::size_t, const Plan& p, const Configuration& c, const std::string& m) {
    return m == "a" && level_of(p, c) == "2[a,b]" ? 1.1 : 1.0;
  };
  const Findings f = analyse_check(plan, synth_runs(plan, 30, s), kOptions);
  const Comparison& c = comparison_of(f, "a", "2[a,b]", Layout::held);
  CHECK(c.n == 30);
  CHECK(c.effect == Approx(0.1).margin(1e-12));
  CHECK(c.ci_lo == Approx(0.1).margin(1e-12));
  CHECK(c.ci_hi == Approx(0.1).margin(1e-12));
  CHECK(c.median_config == 1100000.0);
  CHECK(c.median_baseline == 1000000.0);
  CHECK(c.significant);
  CHECK(c.outside_margin);
  CHECK_FALSE(c.equivalent);
  const LevelVerdict& v = verdict_of(f, "a", "2[a,b]");
  CHECK(v.verdict == Verdict::perturbed);
  CHECK(starts_with(v.reason, "held: +10.0% [+10.0, +10.0], Holm p = "));
  CHECK(verdict_of(f, "b", "2[a,b]").verdict == Verdict::not_perturbed);
  CHECK(verdict_of(f, "wall-time", "2[a,b]").verdict == Verdict::not_perturbed);
  CHECK(f.metric_verdicts[metric_index(f, "a")] == Verdict::perturbed);
  CHECK(f.metric_verdicts[metric_index(f, "b")] == Verdict::not_perturbed);
  // Every d equal and positive: the t-test has no spread to weigh it by, so the p is
  // the sign test's, 1 / M_30(30) (the mixture martingale after 30 agreeing signs),
  // over its share of alpha.
  CHECK(c.p_value == Approx(std::exp(-stats::sign_mixture_log(30, 30)) / kSignShare).epsilon(1e-12));
  CHECK(c.bound == Approx(0.1).margin(1e-12));

  // The looks taken do not change anything: every look is valid on its own.
  const Findings f4 = analyse_check(plan, synth_runs(plan, 30, s), {0.01, 0.05, 4, 42});
  const Comparison& c4 = comparison_of(f4, "a", "2[a,b]", Layout::held);
  CHECK(c4.p_value == c.p_value);
  CHECK(c4.p_holm == c.p_holm);
  CHECK(f4.looks_planned == 4);
}

TEST_CASE("+10% under natural and sham but not held is explained by layout") {
  const Plan plan = counter_plan({"a", "b"}, CountingMode::inprocess);
  Synth s;
  s.factor = [](std::size_t, const Plan& p, const Configuration& c, const std::string& m) {
    return m == "a" && level_of(p, c) == "2[a,b]" && c.layout != Layout::held ? 1.1 : 1.0;
  };
  const Findings f = analyse_check(plan, synth_runs(plan, 30, s), kOptions);
  const LevelVerdict& v = verdict_of(f, "a", "2[a,b]");
  CHECK(v.verdict == Verdict::explained_by_layout);
  CHECK(starts_with(v.reason, "natural: +10."));
  CHECK(v.reason.find("; held: ") != std::string::npos);
  CHECK(v.comparisons.size() == 3);  // natural, held, sham (sham programs a)
  CHECK(comparison_of(f, "a", "2[a,b]", Layout::sham).significant);
  CHECK(comparison_of(f, "a", "2[a,b]", Layout::held).equivalent);
  // b is not programmed under sham at 2[a,b]: natural and held only.
  CHECK(verdict_of(f, "b", "2[a,b]").comparisons.size() == 2);
  CHECK(verdict_of(f, "b", "2[a,b]").verdict == Verdict::not_perturbed);
  CHECK(f.metric_verdicts[metric_index(f, "a")] == Verdict::explained_by_layout);
}

TEST_CASE("a run that exits 1 makes its level incomparable and is named") {
  const Plan plan = counter_plan({"a", "b"}, CountingMode::external);
  std::vector<RunRecord> runs = synth_runs(plan, 30, Synth{});
  RunRecord* bad = nullptr;
  for (RunRecord& r : runs)
    if (r.block == 5 && plan.configs[r.config].id == "counters=2[a,b]/held") bad = &r;
  REQUIRE(bad);
  bad->exit.exit_code = 1;
  const Findings f = analyse_check(plan, runs, kOptions);
  REQUIRE(f.incomparable.size() == 1);
  CHECK(f.incomparable[0].run_index == bad->index);
  CHECK(f.incomparable[0].config == bad->config);
  CHECK(f.incomparable[0].why == "exited with code 1 (baseline runs exit 0)");
  for (const std::string m : {"a", "b", "wall-time", "max-rss"}) {
    const LevelVerdict& v = verdict_of(f, m, "2[a,b]");
    CHECK(v.verdict == Verdict::incomparable);
    CHECK(v.reason == "counters=2[a,b]/held: run " + std::to_string(bad->index) +
                          " exited with code 1 (baseline runs exit 0)");
  }
  CHECK(verdict_of(f, "wall-time", "1[b]").verdict == Verdict::not_perturbed);
  CHECK(f.metric_verdicts[metric_index(f, "wall-time")] == Verdict::incomparable);
}

TEST_CASE("a different output digest makes the level incomparable") {
  const Plan plan = counter_plan({"a", "b"}, CountingMode::external);
  std::vector<RunRecord> runs = synth_runs(plan, 30, Synth{});
  for (RunRecord& r : runs)
    if (plan.configs[r.config].id == "counters=1[b]/held") r.exit.output_digest = std::string(64, 'b');
  const Findings f = analyse_check(plan, runs, kOptions);
  const LevelVerdict& v = verdict_of(f, "wall-time", "1[b]");
  CHECK(v.verdict == Verdict::incomparable);
  CHECK(v.reason == "counters=1[b]/held: output differs from the baseline's (sha256 bbbbbbbbbbbb… vs aaaaaaaaaaaa…)");
  // Every measured run of 1[b] (against 1[a]), and of 2[a,b] (against 1[b], b's baseline).
  CHECK(f.incomparable.size() == 60);
  std::size_t named_1b = 0;
  for (const IncomparableRun& r : f.incomparable)
    if (plan.configs[r.config].id == "counters=1[b]/held") {
      ++named_1b;
      CHECK(r.why == "output digest differs from the baseline's (sha256 bbbbbbbbbbbb…)");
    }
  CHECK(named_1b == 30);
  // b at 2[a,b] compares against 1[b]: its output differs from 2[a,b]'s too.
  CHECK(verdict_of(f, "b", "2[a,b]").verdict == Verdict::incomparable);
  CHECK(verdict_of(f, "a", "2[a,b]").verdict == Verdict::not_perturbed);
}

TEST_CASE("a multiplexed reading makes that metric incomparable at that level only") {
  const Plan plan = counter_plan({"a", "b"}, CountingMode::external);
  std::vector<RunRecord> runs = synth_runs(plan, 30, Synth{});
  for (RunRecord& r : runs)
    if (r.block == 3 && plan.configs[r.config].id == "counters=2[a,b]/held") {
      r.readings[1].multiplexed = true;
      r.readings[1].scale = 1.31;
      r.readings[1].time_running = 763359;
    }
  const Findings f = analyse_check(plan, runs, kOptions);
  const LevelVerdict& v = verdict_of(f, "b", "2[a,b]");
  CHECK(v.verdict == Verdict::incomparable);
  CHECK(v.reason == "held: b multiplexed in 1 run (scaled up to x1.31)");
  CHECK(verdict_of(f, "a", "2[a,b]").verdict == Verdict::not_perturbed);
  CHECK(verdict_of(f, "wall-time", "2[a,b]").verdict == Verdict::not_perturbed);
  REQUIRE(f.incomparable.size() == 1);
  CHECK(f.incomparable[0].why == "b multiplexed (x1.31)");
}

TEST_CASE("an A/A copy 5% off fails the control: that metric is inconclusive everywhere") {
  const Plan plan = counter_plan({"a", "b"}, CountingMode::external);
  Synth s;
  s.factor = [](std::size_t, const Plan&, const Configuration& c, const std::string& m) {
    return m == "wall-time" && c.aa_duplicate ? 1.05 : 1.0;
  };
  const Findings f = analyse_check(plan, synth_runs(plan, 30, s), kOptions);
  CHECK_FALSE(f.aa.ok);
  CHECK(starts_with(f.aa.reason, "wall-time: differ by +5."));
  for (const std::string level : {"2[a,b]", "1[b]"}) {
    const LevelVerdict& v = verdict_of(f, "wall-time", level);
    CHECK(v.verdict == Verdict::inconclusive);
    CHECK(starts_with(v.reason, "A/A control failed: baseline vs its duplicate differ by +5."));
  }
  CHECK(verdict_of(f, "user-time", "2[a,b]").verdict == Verdict::not_perturbed);
  CHECK(verdict_of(f, "a", "2[a,b]").verdict == Verdict::not_perturbed);
  CHECK_FALSE(f.decisive);
}

TEST_CASE("two blocks are too few runs") {
  const Plan plan = counter_plan({"a", "b"}, CountingMode::external);
  const Findings f = analyse_check(plan, synth_runs(plan, 2, Synth{}), kOptions);
  REQUIRE_FALSE(f.verdicts.empty());
  for (const LevelVerdict& v : f.verdicts) {
    CHECK(v.verdict == Verdict::inconclusive);
    CHECK(v.reason == "too few runs: 2 blocks, need at least 3 (held)");
  }
  CHECK_FALSE(f.decisive);
}

TEST_CASE("a metric of zeros and ones is compared as a difference per run, and decided") {
  const Plan plan = counter_plan({"a", "b"}, CountingMode::external);
  Synth s;
  s.factor = [](std::size_t block, const Plan&, const Configuration&, const std::string& m) {
    return m == "b" ? static_cast<double>(block % 2) / 1e6 : 1.0;  // 0, 1, 0, 1, ...
  };
  const Findings f = analyse_check(plan, synth_runs(plan, 30, s), kOptions);
  const Comparison& c = comparison_of(f, "b", "2[a,b]", Layout::held);
  CHECK(c.scale == Scale::difference);
  CHECK(c.n == 30);
  CHECK(c.effect == 0);  // the same 0/1 in both series of a block
  CHECK(c.ci_lo == 0);
  CHECK(c.ci_hi == 0);
  CHECK(c.margin == 0.5);  // half of one event
  CHECK(c.median_baseline == 0.5);
  const LevelVerdict& v = verdict_of(f, "b", "2[a,b]");
  CHECK(v.verdict == Verdict::not_perturbed);
  CHECK(v.reason == "within ±0.50 per run under held +0 per run [+0, +0], equal in all 30 blocks: an effect on at "
                    "least 1 run in 10 would have shown");
  CHECK(c.equal_blocks == 30);
  CHECK(std::find(f.notes.begin(), f.notes.end(), "b: small or zero values, so it is compared as a difference per run") !=
        f.notes.end());
  CHECK(verdict_of(f, "a", "2[a,b]").verdict == Verdict::not_perturbed);
}

TEST_CASE("one more event in every run is a finding on the difference scale") {
  const Plan plan = counter_plan({"a", "b"}, CountingMode::external);
  Synth s;
  s.noise = 0;
  s.factor = [](std::size_t, const Plan& p, const Configuration& c, const std::string& m) {
    if (m != "b") return 1.0;
    return (level_of(p, c) == "2[a,b]" ? 3.0 : 2.0) / 1e6;  // 2 events alone, 3 with a counted beside it
  };
  const Findings f = analyse_check(plan, synth_runs(plan, 30, s), kOptions);
  const Comparison& c = comparison_of(f, "b", "2[a,b]", Layout::held);
  CHECK(c.scale == Scale::difference);
  CHECK(c.effect == 1);
  CHECK(c.ci_lo == 1);
  CHECK(c.ci_hi == 1);
  const LevelVerdict& v = verdict_of(f, "b", "2[a,b]");
  CHECK(v.verdict == Verdict::perturbed);
  CHECK(starts_with(v.reason, "held: +1 per run [+1, +1], Holm p = "));
}

TEST_CASE("an effect that appears halfway through the sweep is drift: inconclusive") {
  const Plan plan = counter_plan({"a", "b"}, CountingMode::external);
  Synth s;
  s.factor = [](std::size_t block, const Plan& p, const Configuration& c, const std::string& m) {
    return m == "a" && level_of(p, c) == "2[a,b]" && block > 15 ? 1.1 : 1.0;
  };
  const Findings f = analyse_check(plan, synth_runs(plan, 30, s), kOptions);
  const Comparison& c = comparison_of(f, "a", "2[a,b]", Layout::held);
  CHECK(starts_with(c.drift, "effect moved from +0."));
  INFO(c.drift);
  CHECK(c.drift == "effect moved from +0.0% to +9.9% at block 16 (Pettitt p = 3.7e-05)");
  CHECK(c.drift.find("at block 16") != std::string::npos);
  const LevelVerdict& v = verdict_of(f, "a", "2[a,b]");
  CHECK(v.verdict == Verdict::inconclusive);
  CHECK(starts_with(v.reason, "drift: held: effect moved from "));
}

TEST_CASE("Page's trend: growing with the dose gives a small p, shrinking a small p_decreasing") {
  const Plan plan = counter_plan({"a", "b", "c", "d"}, CountingMode::external);
  for (const bool grow : {true, false}) {
    Synth s;
    s.factor = [grow](std::size_t, const Plan& p, const Configuration& c, const std::string& m) {
      const double k = p.spec.levels[c.level_index].dose;
      return m == "wall-time" ? (grow ? 1.0 + 0.02 * k : 1.0 - 0.02 * k) : 1.0;
    };
    const Findings f = analyse_check(plan, synth_runs(plan, 30, s), kOptions);
    // a over prefixes 1..4, b over 2..4, c and d have fewer than three; 7 driver metrics.
    REQUIRE(f.trends.size() == 9);
    const std::size_t wall = metric_index(f, "wall-time");
    const Trend* t = nullptr;
    for (const Trend& x : f.trends)
      if (x.metric == wall) t = &x;
    REQUIRE(t);
    CHECK(t->levels == 4);
    CHECK(t->blocks == 30);
    CHECK(t->method == "Page's L, exact");
    if (grow) {
      CHECK(t->L == 30 * (1 + 4 + 9 + 16));  // every block ranks the doses 1, 2, 3, 4
      CHECK(t->p_value < 1e-30);
      CHECK(t->p_decreasing == Approx(1.0));
    } else {
      CHECK(t->L == 30 * (4 + 6 + 6 + 4));  // ranks 4, 3, 2, 1
      CHECK(t->p_decreasing < 1e-30);
      CHECK(t->p_value == Approx(1.0));
    }
    for (const Trend& x : f.trends)
      if (x.metric == metric_index(f, "b")) CHECK(x.levels == 3);
  }
}

TEST_CASE("a failed A/A voids what its error could produce, not an effect far beyond it") {
  // The A/A copy is 5% off (a systematic error between identical configurations);
  // level 2 is 50% slower under held: that cannot be a 5% error, so it stays
  // perturbed, with the floor it cleared (ε 1% + the A/A's largest CI bound) named.
  const Plan plan = counter_plan({"a", "b"}, CountingMode::external);
  Synth s;
  s.factor = [](std::size_t, const Plan&, const Configuration& c, const std::string& m) {
    if (m != "wall-time") return 1.0;
    if (c.aa_duplicate) return 1.05;
    return c.level.label == "2[a,b]" ? 1.5 : 1.0;
  };
  const Findings f = analyse_check(plan, synth_runs(plan, 30, s), kOptions);
  CHECK_FALSE(f.aa.ok);
  const LevelVerdict& big = verdict_of(f, "wall-time", "2[a,b]");
  CHECK(big.verdict == Verdict::perturbed);
  CHECK(big.reason.find("beyond the failed A/A control's own") != std::string::npos);
  CHECK(verdict_of(f, "wall-time", "1[b]").verdict == Verdict::inconclusive);
}

TEST_CASE("the failed A/A exception does not skip drift: the level stays inconclusive") {
  const Plan plan = counter_plan({"a", "b"}, CountingMode::external);
  Synth s;
  s.factor = [](std::size_t block, const Plan&, const Configuration& c, const std::string& m) {
    if (m != "wall-time") return 1.0;
    if (c.aa_duplicate) return 1.05;
    return c.level.label == "2[a,b]" && block > 15 ? 1.5 : 1.0;
  };
  const Findings f = analyse_check(plan, synth_runs(plan, 30, s), kOptions);
  CHECK_FALSE(f.aa.ok);
  CHECK_FALSE(comparison_of(f, "wall-time", "2[a,b]", Layout::held).drift.empty());
  const LevelVerdict& v = verdict_of(f, "wall-time", "2[a,b]");
  CHECK(v.verdict == Verdict::inconclusive);
  CHECK(starts_with(v.reason, "A/A control failed: "));
}

TEST_CASE("Holm-adjusted p-values: the primary family, the other metrics and the A/A apart") {
  const Plan plan = counter_plan({"a", "b", "c"}, CountingMode::external);
  Synth s;
  s.factor = [](std::size_t, const Plan& p, const Configuration& c, const std::string& m) {
    return m == "user-time" && level_of(p, c) == "3[a,b,c]" ? 1.004 : 1.0;
  };
  const Findings f = analyse_check(plan, synth_runs(plan, 20, s), kOptions);
  for (bool primary : {true, false}) {
    std::vector<double> p;
    std::vector<std::size_t> at;
    for (std::size_t i = 0; i < f.comparisons.size(); ++i)
      if (!f.comparisons[i].aa && f.comparisons[i].primary == primary)
        p.push_back(f.comparisons[i].p_value), at.push_back(i);
    const std::vector<double> holm = stats::holm_adjust(p);
    REQUIRE(holm.size() == at.size());
    for (std::size_t k = 0; k < at.size(); ++k) CHECK(f.comparisons[at[k]].p_holm == holm[k]);
    // The primary family: a, b, c at their levels and wall time; the other six driver metrics.
    for (std::size_t i : at) {
      const MetricInfo& m = f.metrics[f.comparisons[i].metric];
      CHECK(m.primary == (!m.driver || m.name == "wall-time"));
    }
  }
  std::vector<double> p;
  // The A/A control is its own family: Holm over its metrics.
  p.clear();
  for (std::size_t i : f.aa.comparisons) p.push_back(f.comparisons[i].p_value);
  const std::vector<double> aa = stats::holm_adjust(p);
  for (std::size_t k = 0; k < aa.size(); ++k) CHECK(f.comparisons[f.aa.comparisons[k]].p_holm == aa[k]);
}

TEST_CASE("an interrupted sweep is analysed over the blocks where both sides ran") {
  const Plan plan = counter_plan({"a", "b"}, CountingMode::external);
  std::vector<RunRecord> runs = synth_runs(plan, 30, Synth{});
  runs.resize(runs.size() - 3);  // the last block lost its last three runs
  const Findings f = analyse_check(plan, runs, kOptions);
  CHECK(f.measured_blocks == 29);
  CHECK(f.runs == 30 * plan.configs.size() - 3);
  CHECK(starts_with(f.notes.front(), "block 30 is incomplete ("));
  // Each comparison pairs exactly the blocks where both configurations ran.
  for (const Comparison& c : f.comparisons) {
    bool has_config = false, has_base = false;
    for (const RunRecord& r : runs)
      if (r.block == 30) has_config |= r.config == c.config, has_base |= r.config == c.baseline;
    CHECK(c.n == (has_config && has_base ? 30u : 29u));
  }
  CHECK(count_verdicts(f, Verdict::not_perturbed) == f.verdicts.size());
}

TEST_CASE("instructions moving under held layout makes the whole level incomparable") {
  const Plan plan = counter_plan({"instructions", "task-clock"}, CountingMode::external);
  Synth s;
  s.noise = 0;
  s.factor = [](std::size_t, const Plan& p, const Configuration& c, const std::string& m) {
    return m == "instructions" && level_of(p, c) == "2[instructions,task-clock]" ? 1.1 : 1.0;
  };
  const Findings f = analyse_check(plan, synth_runs(plan, 30, s), kOptions);
  for (const std::string m : {"instructions", "task-clock", "wall-time"}) {
    const LevelVerdict& v = verdict_of(f, m, "2[instructions,task-clock]");
    CHECK(v.verdict == Verdict::incomparable);
    CHECK(v.reason == "instruction count moved where the dose adds no instructions (held: +10.0% [+10.0, +10.0])");
  }
  CHECK(verdict_of(f, "wall-time", "1[task-clock]").verdict == Verdict::not_perturbed);
  CHECK(f.metrics[metric_index(f, "task-clock")].unit == "ns");
}

TEST_CASE("the analysis is a pure function of its inputs and seed") {
  const Plan plan = counter_plan({"a", "b"}, CountingMode::inprocess);
  const std::vector<RunRecord> runs = synth_runs(plan, 20, Synth{});
  const Findings f1 = analyse_check(plan, runs, kOptions);
  const Findings f2 = analyse_check(plan, runs, kOptions);
  REQUIRE(f1.comparisons.size() == f2.comparisons.size());
  for (std::size_t i = 0; i < f1.comparisons.size(); ++i) {
    CHECK(f1.comparisons[i].effect == f2.comparisons[i].effect);
    CHECK(f1.comparisons[i].ci_lo == f2.comparisons[i].ci_lo);
    CHECK(f1.comparisons[i].p_value == f2.comparisons[i].p_value);
  }
  CHECK_THROWS_AS(analyse_check(plan, runs, {0.0, 0.05, 1, 0}), Error);
  CHECK_THROWS_AS(analyse_check(plan, runs, {0.01, 0.05, 0, 0}), Error);
}

TEST_CASE("the findings do not depend on how many threads compute the comparisons") {
  const Plan plan = counter_plan({"a", "b"}, CountingMode::inprocess);
  Synth s;
  s.noise = 0.02;  // noisy enough that the intervals come from the resampling
  const std::vector<RunRecord> runs = synth_runs(plan, 24, s);
  AnalysisOptions one = kOptions, four = kOptions;
  one.threads = 1;
  four.threads = 4;
  const Findings f1 = analyse_check(plan, runs, one);
  const Findings f4 = analyse_check(plan, runs, four);
  REQUIRE(f1.comparisons.size() == f4.comparisons.size());
  REQUIRE(f1.comparisons.size() >= 16);  // enough that four threads share the work
  for (std::size_t i = 0; i < f1.comparisons.size(); ++i) {
    CHECK(f1.comparisons[i].ci_lo == f4.comparisons[i].ci_lo);
    CHECK(f1.comparisons[i].ci_hi == f4.comparisons[i].ci_hi);
    CHECK(f1.comparisons[i].ci_method == f4.comparisons[i].ci_method);
    CHECK(f1.comparisons[i].p_value == f4.comparisons[i].p_value);
    CHECK(f1.comparisons[i].p_holm == f4.comparisons[i].p_holm);
    CHECK(f1.comparisons[i].equivalent == f4.comparisons[i].equivalent);
  }
  REQUIRE(f1.verdicts.size() == f4.verdicts.size());
  for (std::size_t i = 0; i < f1.verdicts.size(); ++i) CHECK(f1.verdicts[i].reason == f4.verdicts[i].reason);
  CHECK(f1.notes == f4.notes);
}

TEST_CASE("more blocks could decide while any effect the interval admits could be decided") {
  // A true null whose estimate sits at +1.1% by chance after 80 blocks: the point
  // estimate says ±1% can never be shown, but the interval admits 0, and at 600 blocks
  // the sequence is narrow enough to show it. The check must go on.
  Comparison c;
  c.scale = Scale::ratio;
  c.n = 80;
  c.level = 0.90;
  c.margin = 0.01;
  c.effect = 0.011;
  c.ci_lo = std::expm1(-0.010);
  c.ci_hi = std::expm1(0.022);
  CHECK(more_blocks_could_decide(c, 600));
  CHECK_FALSE(more_blocks_could_decide(c, 80));   // no more blocks allowed
  CHECK_FALSE(more_blocks_could_decide(c, 100));  // 20 more blocks narrow it too little
  // An interval of ±3% after 20 blocks: 5 more leave it wider than the margin each way
  // of 0, and too wide to put any admitted effect beyond it; 600 would decide.
  c.n = 20;
  c.ci_lo = std::expm1(-0.03);
  c.ci_hi = std::expm1(0.03);
  CHECK_FALSE(more_blocks_could_decide(c, 25));
  CHECK(more_blocks_could_decide(c, 600));
  // An interval clear of 0 can always be decided by some count of blocks (the true
  // effect may lie at its end nearer to 0, or at the farther one); the cap decides.
  c.n = 80;
  c.ci_lo = std::expm1(0.008);
  c.ci_hi = std::expm1(0.012);
  CHECK(more_blocks_could_decide(c, 120));
  // Decided comparisons wait on nothing; unbounded or drifting ones on more blocks.
  c.equivalent = true;
  CHECK_FALSE(more_blocks_could_decide(c, 600));
  c.equivalent = false;
  c.ci_hi = INFINITY;
  CHECK(more_blocks_could_decide(c, 81));
}

TEST_CASE("a x100 effect is perturbed after five blocks: the sequential t-test uses its size") {
  const Plan plan = counter_plan({"a", "b"}, CountingMode::external);
  Synth s;
  s.factor = [](std::size_t, const Plan& p, const Configuration& c, const std::string& m) {
    return m == "a" && level_of(p, c) == "2[a,b]" ? 100.0 : 1.0;
  };
  // Four configurations: the t-test takes part from 5 blocks (4^-4 <= 0.2 alpha < 4^-3).
  REQUIRE(magnitude_first_blocks(plan.block_size()) == 5);
  const Findings f = analyse_check(plan, synth_runs(plan, 5, s), kOptions);
  const Comparison& c = comparison_of(f, "a", "2[a,b]", Layout::held);
  CHECK(c.n == 5);
  // The sign sequence alone is unbounded at 5 blocks; the t-test's interval bounds it.
  CHECK(std::isinf(c.sequence_half_width));
  CHECK(c.ci_lo > 90);
  CHECK(c.ci_hi < 110);
  CHECK(c.effect >= c.ci_lo);
  CHECK(c.effect <= c.ci_hi);
  CHECK(c.p_value < 0.05 / 4);
  CHECK(verdict_of(f, "a", "2[a,b]").verdict == Verdict::perturbed);
  // Four blocks: (1 + 400)^1.5 = 8,030 would be evidence enough, but a configuration
  // holds one place of its block in all of 4 blocks with probability 4^-3 = 1/64, more
  // than the t-test's 0.2 alpha: it waits.
  const Findings f4 = analyse_check(plan, synth_runs(plan, 4, s), kOptions);
  CHECK(verdict_of(f4, "a", "2[a,b]").verdict == Verdict::inconclusive);
  // Three blocks: (1 + 300)^1 = 301 is the most evidence there is in any case.
  const Findings f3 = analyse_check(plan, synth_runs(plan, 3, s), kOptions);
  CHECK(verdict_of(f3, "a", "2[a,b]").verdict == Verdict::inconclusive);
}

TEST_CASE("the t-test's scale is floored by the metric's pooled spread") {
  // Every block's d for a at 2[a,b] is +40% (a near-constant ratio), while the A/A
  // control of a swings by ±40% from block to block: the pooled spread keeps the t of
  // five agreeing blocks (the t-test takes part from 5 here) from passing for evidence
  // of a tiny variance.
  const Plan plan = counter_plan({"a", "b"}, CountingMode::external);
  Synth s;
  s.noise = 0.0001;
  s.factor = [](std::size_t block, const Plan& p, const Configuration& c, const std::string& m) {
    if (m != "a") return 1.0;
    if (level_of(p, c) == "2[a,b]") return 1.4;
    return c.aa_duplicate && block % 2 ? 1.4 : 1.0;
  };
  const Findings f = analyse_check(plan, synth_runs(plan, 5, s), kOptions);
  const Comparison& c = comparison_of(f, "a", "2[a,b]", Layout::held);
  CHECK(c.p_value > 0.05);  // unfloored, t would be in the thousands
  CHECK(verdict_of(f, "a", "2[a,b]").verdict == Verdict::inconclusive);
}

TEST_CASE("a x2 effect on bimodal runs: the pooled spread's degrees of freedom decide it at the first look") {
  // Wall time of every configuration fast, or 1.3x slower in a third of its runs (when
  // block + configuration is a multiple of 3), exact values (no jitter); the dose
  // 2[a,b] takes twice as long. Its d is ln 2 + {0, ±ln 1.3}: bimodal, an own sd near
  // the metric's pooled spread. On its own 4 degrees of freedom the t-test's evidence
  // at 5 blocks is far short of the family's; on the pooled spread's (every wall-time
  // comparison's n - 1 summed) it decides.
  const Plan plan = counter_plan({"a", "b"}, CountingMode::external);
  Synth s;
  s.noise = 0;
  s.factor = [](std::size_t block, const Plan& p, const Configuration& c, const std::string& m) {
    if (m != "wall-time") return 1.0;
    const double mode = (block + c.index) % 3 == 0 ? 1.3 : 1.0;
    return level_of(p, c) == "2[a,b]" && !c.aa_duplicate ? 2.0 * mode : mode;
  };
  REQUIRE(magnitude_first_blocks(plan.block_size()) == 5);
  const Findings f = analyse_check(plan, synth_runs(plan, 5, s), kOptions);
  const std::size_t wall = metric_index(f, "wall-time");
  // The t-test's inputs, from the same values: each wall-time comparison's d.
  const auto d_of = [&](const Comparison& c) {
    std::vector<double> d;
    for (std::size_t b = plan.spec.warmup_blocks; b < plan.spec.warmup_blocks + 5; ++b)
      d.push_back(std::log(value(s, b, plan, plan.configs[c.config], "wall-time")) -
                  std::log(value(s, b, plan, plan.configs[c.baseline], "wall-time")));
    return d;
  };
  double ss = 0, df = 0;
  for (const Comparison& c : f.comparisons)
    if (c.metric == wall) {
      const std::vector<double> d = d_of(c);
      ss += 4 * stats::variance(d);
      df += 4;
    }
  REQUIRE(df >= 12);  // three comparisons or more, the A/A control's among them
  const double floor = std::sqrt(ss / df);
  CHECK(f.spread[wall] == Approx(floor).epsilon(1e-12));
  CHECK(f.spread_df[wall] == df);
  CHECK(floor == Approx(0.1792289134).epsilon(1e-9));
  const Comparison& c = comparison_of(f, "wall-time", "2[a,b]", Layout::held);
  const std::vector<double> d = d_of(c);
  const double null = std::log1p(kOptions.margin);
  const double pooled_p = stats::mean_sequence(d, 0.05, floor, null, stats::kMagnitudePriorG, df).p_value;
  const double own_p = stats::mean_sequence(d, 0.05, floor, null).p_value;
  CHECK(c.p_value == Approx(pooled_p / kMagnitudeShare).epsilon(1e-9));
  CHECK(c.p_value == Approx(0.0014854753).epsilon(1e-7));
  // On its own degrees of freedom it would be short of even alpha alone; on the pooled ones it
  // is past the whole primary family's Holm threshold.
  CHECK(own_p / kMagnitudeShare > kOptions.alpha);
  CHECK(c.p_holm < kOptions.alpha);
  CHECK(verdict_of(f, "wall-time", "2[a,b]").verdict == Verdict::perturbed);
  CHECK(c.ci_lo == Approx(0.2975753481).epsilon(1e-7));  // at least +30%
}

TEST_CASE("a fixed design decides by the exact sign test at one look") {
  // One more event in every run of b at 2[a,b], ten blocks: no spread, so no t-test;
  // the sign sequence's 10 agreeing signs give 1 / M_10(10) ~ 1/15, not enough, while
  // the exact sign test gives 2^-9.
  const Plan plan = counter_plan({"a", "b"}, CountingMode::external);
  Synth s;
  s.noise = 0;
  s.factor = [](std::size_t, const Plan& p, const Configuration& c, const std::string& m) {
    if (m != "b") return 1.0;
    return (level_of(p, c) == "2[a,b]" ? 3.0 : 2.0) / 1e6;
  };
  const std::vector<RunRecord> runs = synth_runs(plan, 10, s);
  const Findings live = analyse_check(plan, runs, kOptions);
  CHECK(verdict_of(live, "b", "2[a,b]").verdict == Verdict::inconclusive);
  AnalysisOptions fixed = kOptions;
  fixed.fixed_design = true;
  const Findings f = analyse_check(plan, runs, fixed);
  const Comparison& c = comparison_of(f, "b", "2[a,b]", Layout::held);
  CHECK(c.p_value == Approx(1.0 / 512 / kSignShare));
  CHECK(c.ci_lo == 1);
  CHECK(c.ci_hi == 1);
  CHECK(verdict_of(f, "b", "2[a,b]").verdict == Verdict::perturbed);
  CHECK(c.ci_method.find("exact order statistics") != std::string::npos);
}

TEST_CASE("a metric equal in every block is bounded as soon as the range can show it, not perturbed from 11") {
  // b counts 2 events in every run of every configuration: d = 0 in every block.
  const Plan plan = counter_plan({"a", "b"}, CountingMode::external);
  Synth s;
  s.factor = [](std::size_t, const Plan&, const Configuration&, const std::string& m) {
    return m == "b" ? 2.0 / 1e6 : 1.0;
  };
  AnalysisOptions fixed = kOptions;
  fixed.fixed_design = true;
  // Live: the range covers from range_first_blocks(0.2 * 0.10) = 7 blocks on.
  CHECK(stats::range_first_blocks(kRangeShare * 2 * kOptions.alpha) == 7);
  const Findings six = analyse_check(plan, synth_runs(plan, 6, s), kOptions);
  CHECK(verdict_of(six, "b", "2[a,b]").verdict == Verdict::inconclusive);
  const Findings seven = analyse_check(plan, synth_runs(plan, 7, s), kOptions);
  const Comparison& c7 = comparison_of(seven, "b", "2[a,b]", Layout::held);
  CHECK(c7.ci_lo == 0);  // bounded by the range ...
  CHECK(c7.ci_hi == 0);
  CHECK(c7.unseen_runs);  // ... but 7 runs miss an effect on 1 run in 4 in 13% of checks
  const LevelVerdict& v = verdict_of(seven, "b", "2[a,b]");
  CHECK(v.verdict == Verdict::inconclusive);
  CHECK(v.reason == "held: +0 per run [+0, +0], equal in all 7 blocks — within ±0.50 per run, but an effect on 1 run "
                    "in 4 would not yet have shown (13% of the time it leaves 7 runs untouched); 11 blocks would show "
                    "it with 95% probability");
  const Findings eleven = analyse_check(plan, synth_runs(plan, 11, s), kOptions);
  CHECK(verdict_of(eleven, "b", "2[a,b]").verdict == Verdict::not_perturbed);
  CHECK(verdict_of(eleven, "b", "2[a,b]").reason == "within ±0.50 per run under held +0 per run [+0, +0], equal in "
                                                     "all 11 blocks: an effect on at least 1 run in 4 would have shown");
  // Fixed: the exact interval is the range from 5 blocks (1 - 2/32 >= 1 - 0.8 * 0.10),
  // "not perturbed" from 11 as live.
  const Findings five = analyse_check(plan, synth_runs(plan, 5, s), fixed);
  CHECK(verdict_of(five, "b", "2[a,b]").verdict == Verdict::inconclusive);
  CHECK(comparison_of(five, "b", "2[a,b]", Layout::held).equal_blocks == 5);
  CHECK(comparison_of(five, "b", "2[a,b]", Layout::held).ci_hi == 0);
  CHECK(comparison_of(five, "b", "2[a,b]", Layout::held).unseen_runs);
  const Findings fixed11 = analyse_check(plan, synth_runs(plan, 11, s), fixed);
  CHECK(verdict_of(fixed11, "b", "2[a,b]").verdict == Verdict::not_perturbed);
  const Findings four = analyse_check(plan, synth_runs(plan, 4, s), fixed);
  CHECK(verdict_of(four, "b", "2[a,b]").verdict == Verdict::inconclusive);
}

TEST_CASE("decisive rests on the primary family, all_decided on every metric") {
  // user-time 1% slower at 2[a,b]: its interval straddles the margin for long, while
  // the counters and wall time are decided "not perturbed".
  const Plan plan = counter_plan({"a", "b"}, CountingMode::external);
  Synth s;
  s.factor = [](std::size_t, const Plan& p, const Configuration& c, const std::string& m) {
    return m == "user-time" && level_of(p, c) == "2[a,b]" ? 1.01 : 1.0;
  };
  const Findings f = analyse_check(plan, synth_runs(plan, 30, s), kOptions);
  CHECK(verdict_of(f, "user-time", "2[a,b]").verdict == Verdict::inconclusive);
  CHECK(verdict_of(f, "a", "2[a,b]").verdict == Verdict::not_perturbed);
  CHECK(verdict_of(f, "wall-time", "2[a,b]").verdict == Verdict::not_perturbed);
  CHECK(f.decisive);
  CHECK_FALSE(f.all_decided);
  CHECK_FALSE(more_blocks_could_decide(f, 600));
  CHECK(more_blocks_could_decide(f, 600, /*all_metrics=*/true));
}

TEST_CASE("the first look is where the primary family's t-test can first decide") {
  // {a, b} external: a at 2[a,b], b at 2[a,b], wall time at 1[b] and 2[a,b].
  const Plan two = counter_plan({"a", "b"}, CountingMode::external);
  CHECK(planned_primary_family(two) == 4);
  CHECK(planned_family(two) == 2 + 7 * 2);
  CHECK(stats::magnitude_blocks_to_decide(kMagnitudeShare * 0.05 / 4) == 4);
  // ... but its four configurations hold a place in 4 blocks too often (4^-3 > 0.01).
  CHECK(first_look(two) == magnitude_first_blocks(two.block_size()));
  CHECK(first_look(two) == 5);
  // A family of three or fewer decides from 3 blocks (301 >= 3 / 0.01); never fewer.
  CHECK(stats::magnitude_blocks_to_decide(kMagnitudeShare * 0.05 / 3) == 3);
  const Plan one = counter_plan({"a"}, CountingMode::external);
  CHECK(planned_primary_family(one) == 0);  // one counter is its own reference
  // Two configurations (1[a] and its A/A copy): 2^(1 - n) <= 0.01 from 8 blocks on.
  CHECK(first_look(one) == 8);
}
