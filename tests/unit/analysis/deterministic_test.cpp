// analysis/deterministic: verdicts on exact counts (--backend sim). Every value below
// is an integer count chosen by hand, so every effect is an exact ratio.
#include <catch2/catch.hpp>

#include <cmath>
#include <functional>
#include <string>

#include "analysis/deterministic.h"
#include "util/error.h"

using namespace obscheck;

namespace {

// The count of `metric` in configuration `c` of block `block`.
using Count = std::function<double(std::size_t block, const Configuration& c, const std::string& metric)>;

Plan sim_plan(std::vector<std::string> counters, CountingMode mode, std::size_t blocks = 2) {
  PlanSpec s;
  s.counters = std::move(counters);
  s.levels = counter_levels(s.counters);
  s.layouts = layouts_for(mode);
  s.seed = 5;
  s.fixed_blocks = blocks;
  s.warmup_blocks = 0;
  return make_plan(s);
}

std::vector<RunRecord> sim_runs(const Plan& plan, const Count& count, std::size_t blocks = 2) {
  std::vector<RunRecord> runs;
  for (const Trial& t : trials(plan, 0, blocks)) {
    RunRecord r = run_record_for(plan, t);
    const Configuration& c = plan.configs[t.config];
    r.exit.exit_code = 0;
    r.exit.wall_ns = 1000000 + 1000 * t.index;  // the simulator's time: never compared
    r.exit.output_digest = std::string(64, 'b');
    for (std::size_t i : c.level.programmed) {
      Reading reading;
      reading.name = plan.spec.counters[i];
      reading.value = count(t.block, c, reading.name);
      reading.raw = static_cast<std::uint64_t>(reading.value);
      reading.time_enabled = reading.time_running = 1;
      r.readings.push_back(reading);
    }
    runs.push_back(std::move(r));
  }
  return runs;
}

const LevelVerdict& deterministic_verdict(const Findings& f, const std::string& metric, const std::string& level) {
  for (const LevelVerdict& v : f.verdicts)
    if (f.metrics[v.metric].name == metric && v.level_label == level) return v;
  FAIL("no verdict for " << metric << " at " << level);
  return f.verdicts.front();
}

const Comparison& deterministic_comparison(const Findings& f, const std::string& metric, const std::string& level, Layout layout) {
  for (const Comparison& c : f.comparisons)
    if (f.metrics[c.metric].name == metric && c.level_label == level && c.layout == layout && !c.aa) return c;
  FAIL("no comparison for " << metric << " at " << level);
  return f.comparisons.front();
}

bool contains(const std::string& s, const std::string& part) { return s.find(part) != std::string::npos; }

}  // namespace

TEST_CASE("deterministic: identical counts are not perturbed, exactly, with no interval or p-value") {
  const Plan plan = sim_plan({"cycles", "l1d"}, CountingMode::external);
  const Findings f = analyse_deterministic(plan, sim_runs(plan, [](auto, auto&, auto& m) { return m == "cycles" ? 1000000.0 : 600.0; }), 0.01);
  CHECK(f.deterministic);
  CHECK(f.decisive);
  REQUIRE(f.metrics.size() == 2);  // the driver metrics are the simulator's and left out
  CHECK(f.metrics[0].name == "cycles");
  CHECK(f.metrics[1].name == "l1d");
  CHECK(f.measured_blocks == 2);
  CHECK(f.runs == 2 * plan.block_size());
  const Comparison& c = deterministic_comparison(f, "cycles", "2[cycles,l1d]", Layout::held);
  CHECK(c.effect == 0.0);
  CHECK(std::isnan(c.ci_lo));
  CHECK(std::isnan(c.ci_hi));
  CHECK(std::isnan(c.p_value));
  CHECK(std::isnan(c.p_holm));
  CHECK(c.ci_method == kDeterministicMethod);
  CHECK(c.n == 2);
  CHECK(c.equivalent);
  CHECK_FALSE(c.significant);
  CHECK(deterministic_verdict(f, "cycles", "2[cycles,l1d]").verdict == Verdict::not_perturbed);
  CHECK(deterministic_verdict(f, "l1d", "2[cycles,l1d]").verdict == Verdict::not_perturbed);
  CHECK(f.aa.ok);
  bool confirmed = false;
  for (const std::string& n : f.notes) confirmed = confirmed || contains(n, "determinism confirmed");
  CHECK(confirmed);
}

TEST_CASE("deterministic: an exact effect under held is perturbed, under natural only it is layout") {
  const Plan plan = sim_plan({"cycles", "l1d"}, CountingMode::inprocess);
  // l1d: 600 misses alone; at level 2 under natural 630 (+5%), held and sham 600.
  // cycles: 1,000,000 everywhere except held level 2: 1,020,000 (+2%).
  const auto count = [&](std::size_t, const Configuration& c, const std::string& m) {
    const bool level2 = c.level.programmed.size() == 2 || c.level.announced.size() == 2;
    if (m == "l1d") return level2 && c.layout == Layout::natural ? 630.0 : 600.0;
    return level2 && c.layout == Layout::held ? 1020000.0 : 1000000.0;
  };
  const Findings f = analyse_deterministic(plan, sim_runs(plan, count), 0.01);
  const Comparison& l1d_natural = deterministic_comparison(f, "l1d", "2[cycles,l1d]", Layout::natural);
  CHECK(l1d_natural.effect == Approx(0.05).epsilon(1e-12));
  CHECK(l1d_natural.median_config == 630);
  CHECK(l1d_natural.median_baseline == 600);
  CHECK(l1d_natural.outside_margin);
  const LevelVerdict& l1d = deterministic_verdict(f, "l1d", "2[cycles,l1d]");
  CHECK(l1d.verdict == Verdict::explained_by_layout);
  CHECK(l1d.reason == "natural: +5.00% (630 vs 600); held: +0.00% within ±1%");
  const LevelVerdict& cycles = deterministic_verdict(f, "cycles", "2[cycles,l1d]");
  CHECK(cycles.verdict == Verdict::perturbed);
  CHECK(cycles.reason == "held: +2.00% (1020000 vs 1000000), exact");
  CHECK(f.metric_verdicts[0] == Verdict::perturbed);
  CHECK(f.metric_verdicts[1] == Verdict::explained_by_layout);
}

TEST_CASE("deterministic: counts that do not repeat make the level incomparable when the difference decides") {
  const Plan plan = sim_plan({"cycles", "l1d"}, CountingMode::external);
  // l1d alone counts 600 in block 0 and `second` in block 1; level 2 counts 600.
  const auto with = [&](double second) {
    return [=](std::size_t block, const Configuration& c, const std::string& m) {
      if (m == "cycles") return 1000000.0;
      return c.level.programmed.size() == 1 && c.level.programmed[0] == 1 && block == 1 ? second : 600.0;
    };
  };
  // 600 vs 630: the effect is -4.76% to 0% over the repeats, across ±1%.
  Findings f = analyse_deterministic(plan, sim_runs(plan, with(630)), 0.01);
  const LevelVerdict& v = deterministic_verdict(f, "l1d", "2[cycles,l1d]");
  CHECK(v.verdict == Verdict::incomparable);
  CHECK(contains(v.reason, "not deterministic: l1d counted 600 in run"));
  CHECK(contains(v.reason, "and 630 in run"));
  CHECK(contains(v.reason, "the effect is -4.76% to +0.00% over the repeats, across ±1%"));
  CHECK(deterministic_verdict(f, "cycles", "2[cycles,l1d]").verdict == Verdict::not_perturbed);

  // 600 vs 601: -0.17% to 0%, within ±1% whichever count is taken: the verdict stands.
  f = analyse_deterministic(plan, sim_runs(plan, with(601)), 0.01);
  CHECK(deterministic_verdict(f, "l1d", "2[cycles,l1d]").verdict == Verdict::not_perturbed);
  bool noted = false;
  for (const std::string& n : f.notes)
    noted = noted || contains(n, "l1d 2[cycles,l1d]/held: not deterministic (l1d counted 600 in run");
  CHECK(noted);
}

TEST_CASE("deterministic: the A/A copy must count what the baseline counts") {
  const Plan plan = sim_plan({"cycles", "l1d"}, CountingMode::external, 1);
  const auto with = [&](double duplicate) {
    return [=](std::size_t, const Configuration& c, const std::string&) { return c.aa_duplicate ? duplicate : 1000.0; };
  };
  Findings f = analyse_deterministic(plan, sim_runs(plan, with(1100), 1), 0.01);
  CHECK_FALSE(f.aa.ok);
  CHECK(f.aa.reason == "cycles: 1100 vs 1000");
  // One block: nothing repeated but the baseline, and its repeat differs by 10%.
  CHECK(deterministic_verdict(f, "cycles", "2[cycles,l1d]").verdict == Verdict::incomparable);

  // A difference within ±ε: the control holds, with a note that the counts wobble.
  f = analyse_deterministic(plan, sim_runs(plan, with(1001), 1), 0.01);
  CHECK(f.aa.ok);
  bool noted = false;
  for (const std::string& n : f.notes) noted = noted || contains(n, "A/A control: cycles counted 1001 in the duplicate");
  CHECK(noted);
  CHECK(deterministic_verdict(f, "cycles", "2[cycles,l1d]").verdict == Verdict::not_perturbed);
}

TEST_CASE("deterministic: a configuration not run yet leaves its level inconclusive and the sweep undecided") {
  const Plan plan = sim_plan({"cycles", "l1d"}, CountingMode::external, 1);
  std::vector<RunRecord> runs = sim_runs(plan, [](auto, auto&, auto&) { return 500.0; }, 1);
  std::erase_if(runs, [&](const RunRecord& r) { return plan.configs[r.config].level.programmed.size() == 2; });
  const Findings f = analyse_deterministic(plan, runs, 0.01);
  const LevelVerdict& v = deterministic_verdict(f, "cycles", "2[cycles,l1d]");
  CHECK(v.verdict == Verdict::inconclusive);
  CHECK(v.reason == "held: not run yet");
  CHECK_FALSE(f.decisive);

  // Every configuration run once: the verdicts stand, but determinism is only assumed.
  const Findings once = analyse_deterministic(plan, sim_runs(plan, [](auto, auto&, auto&) { return 500.0; }, 1), 0.01);
  CHECK(deterministic_verdict(once, "cycles", "2[cycles,l1d]").verdict == Verdict::not_perturbed);
  bool assumed = false;
  for (const std::string& n : once.notes) assumed = assumed || contains(n, "determinism assumed there");
  CHECK(assumed);
}

TEST_CASE("deterministic: a zero count is compared as (x+1)/(y+1), and a different exit is incomparable") {
  const Plan plan = sim_plan({"cycles", "l1d"}, CountingMode::external);
  std::vector<RunRecord> runs = sim_runs(plan, [](auto, const Configuration& c, auto& m) {
    return m == "l1d" ? (c.level.programmed.size() == 2 ? 3.0 : 0.0) : 100.0;
  });
  Findings f = analyse_deterministic(plan, runs, 0.01);
  const Comparison& l1d = deterministic_comparison(f, "l1d", "2[cycles,l1d]", Layout::held);
  CHECK(l1d.effect == 3.0);  // (3 + 1) / (0 + 1) - 1
  CHECK(deterministic_verdict(f, "l1d", "2[cycles,l1d]").verdict == Verdict::perturbed);

  for (RunRecord& r : runs)
    if (plan.configs[r.config].level.programmed.size() == 2) r.exit.exit_code = 3;
  f = analyse_deterministic(plan, runs, 0.01);
  const LevelVerdict& v = deterministic_verdict(f, "cycles", "2[cycles,l1d]");
  CHECK(v.verdict == Verdict::incomparable);
  INFO(v.reason);
  CHECK(contains(v.reason, "exit status differs from the baseline's (code 3 signal 0 vs code 0 signal 0)"));
  CHECK_FALSE(f.incomparable.empty());
}

TEST_CASE("deterministic: a margin outside (0, 1) is a usage error") {
  const Plan plan = sim_plan({"cycles"}, CountingMode::external);
  CHECK_THROWS_AS(analyse_deterministic(plan, {}, 0.0), Error);
  CHECK_THROWS_AS(analyse_deterministic(plan, {}, 1.0), Error);
}
