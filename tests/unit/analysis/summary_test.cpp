// The summary's decisions on fixed findings: which dose is the highest shown safe and
// which the lowest shown to move the metric, the asked-for metrics first, the overall
// verdict.
#include <catch2/catch.hpp>

#include <limits>

#include "analysis/summary.h"

using namespace obscheck;

namespace {

// A sampling check: 0 (none), 100, 1000, 10000 Hz, task-clock counted at each.
Plan sampling_plan() {
  PlanSpec s;
  s.observer = ObserverKind::sampling;
  s.counters = {"task-clock"};
  for (int hz : {0, 100, 1000, 10000}) {
    Level l;
    l.dose = hz;
    l.label = hz == 0 ? "0Hz[none]" : std::to_string(hz) + "Hz";
    l.programmed = {0};
    l.announced = {0};
    l.knob = SampledAt{static_cast<std::uint64_t>(hz)};
    s.levels.push_back(l);
  }
  s.layouts = {Layout::held};
  s.seed = 1;
  return make_plan(s);
}

// task-clock (asked) and user-time (a driver metric), one verdict per non-zero dose.
Findings findings_with(const Plan& plan, const std::vector<Verdict>& task_clock, Verdict user_time) {
  Findings f;
  f.metrics = {{"task-clock", "ns", false, 0, true}, {"user-time", "ns", true, std::nullopt, false}};
  for (std::size_t m = 0; m < 2; ++m)
    for (std::size_t level = 1; level < 4; ++level) {
      Comparison c = comparison_of(plan, m, plan.configs[level], plan.baselines[0]);
      c.n = 20;
      c.effect = 0.01 * static_cast<double>(level);
      c.ci_lo = c.effect - 0.005;
      c.ci_hi = c.effect + 0.005;
      c.margin = 0.01;
      f.comparisons.push_back(c);
      LevelVerdict v;
      v.metric = m;
      v.level_index = level;
      v.dose = plan.spec.levels[level].dose;
      v.level_label = plan.spec.levels[level].label;
      v.verdict = m == 0 ? task_clock[level - 1] : user_time;
      v.comparisons = {f.comparisons.size() - 1};
      f.verdicts.push_back(v);
    }
  for (std::size_t m = 0; m < 2; ++m) {
    Verdict worst = Verdict::not_perturbed;
    for (const LevelVerdict& v : f.verdicts)
      if (v.metric == m && verdict_severity(v.verdict) > verdict_severity(worst)) worst = v.verdict;
    f.metric_verdicts.push_back(worst);
  }
  return f;
}

}  // namespace

TEST_CASE("summary: the dose axis is every level in dose order") {
  const Plan plan = sampling_plan();
  CHECK(dose_axis_levels(plan) == std::vector<std::size_t>{0, 1, 2, 3});
}

TEST_CASE("summary: safe up to 1000 Hz, not at 10000 Hz") {
  const Plan plan = sampling_plan();
  const Findings f = findings_with(
      plan, {Verdict::not_perturbed, Verdict::not_perturbed, Verdict::perturbed}, Verdict::not_perturbed);
  const CheckSummary s = summarize_check(plan, f);
  REQUIRE(s.metrics.size() == 2);
  const MetricAnswer& tc = s.metrics[0];
  CHECK(tc.metric == 0);
  CHECK(tc.asked);
  CHECK(tc.verdict == Verdict::perturbed);
  CHECK(tc.doses == std::vector<std::size_t>{0, 1, 2});
  CHECK(tc.decided == 3);
  REQUIRE(tc.highest_safe);
  CHECK(f.verdicts[*tc.highest_safe].level_label == "1000Hz");
  REQUIRE(tc.lowest_unsafe);
  CHECK(f.verdicts[*tc.lowest_unsafe].level_label == "10000Hz");
  CHECK(tc.largest == std::optional<std::size_t>{2});
  CHECK(tc.finding);
  CHECK_FALSE(s.metrics[1].asked);
  CHECK_FALSE(s.metrics[1].finding);
  CHECK(s.overall == Verdict::perturbed);
  CHECK(s.any_verdict);
}

TEST_CASE("summary: a dose that moves the metric below a safe one leaves no safe dose") {
  const Plan plan = sampling_plan();
  const Findings f = findings_with(
      plan, {Verdict::perturbed, Verdict::not_perturbed, Verdict::inconclusive}, Verdict::inconclusive);
  const CheckSummary s = summarize_check(plan, f);
  const MetricAnswer& tc = s.metrics[0];
  CHECK_FALSE(tc.highest_safe);
  REQUIRE(tc.lowest_unsafe);
  CHECK(f.verdicts[*tc.lowest_unsafe].level_label == "100Hz");
  CHECK(tc.decided == 2);
  CHECK(s.overall == Verdict::perturbed);
}

TEST_CASE("summary: all within the margin is not perturbed overall, undecided is inconclusive") {
  const Plan plan = sampling_plan();
  const CheckSummary quiet = summarize_check(
      plan, findings_with(plan, {Verdict::not_perturbed, Verdict::not_perturbed, Verdict::not_perturbed},
                          Verdict::not_perturbed));
  CHECK(quiet.overall == Verdict::not_perturbed);
  REQUIRE(quiet.metrics[0].highest_safe);
  CHECK_FALSE(quiet.metrics[0].lowest_unsafe);
  const CheckSummary open = summarize_check(
      plan, findings_with(plan, {Verdict::not_perturbed, Verdict::inconclusive, Verdict::not_perturbed},
                          Verdict::not_perturbed));
  CHECK(open.overall == Verdict::inconclusive);
  CHECK(*open.metrics[0].highest_safe == 0);  // 100 Hz: the next dose is undecided
}

TEST_CASE("summary: no verdict yet, and a check of a single level") {
  PlanSpec s;
  s.counters = {"task-clock"};
  s.levels = counter_levels(s.counters);
  s.layouts = {Layout::held};
  const Plan one = make_plan(s);
  const CheckSummary sum = summarize_check(one, Findings{});
  CHECK_FALSE(sum.any_verdict);
  CHECK(sum.single_level);
}

TEST_CASE("summary: the overall answer rests on the primary family: rusage neither undecides nor moves it") {
  const Plan plan = sampling_plan();
  const CheckSummary s = summarize_check(
      plan, findings_with(plan, {Verdict::not_perturbed, Verdict::not_perturbed, Verdict::not_perturbed},
                          Verdict::inconclusive));
  CHECK(s.overall == Verdict::not_perturbed);
  CHECK(s.outcomes == std::vector<std::string>{"not-perturbed", "not-perturbed", "not-perturbed"});
  // A rusage metric that moved is reported (its own Holm family), but the question
  // asked was the counters' and wall time's: the overall answer and exit code stay.
  const CheckSummary moved = summarize_check(
      plan, findings_with(plan, {Verdict::not_perturbed, Verdict::not_perturbed, Verdict::not_perturbed},
                          Verdict::perturbed));
  CHECK(moved.overall == Verdict::not_perturbed);
  CHECK(moved.outcomes == std::vector<std::string>{"not-perturbed", "not-perturbed", "not-perturbed"});
}

TEST_CASE("summary: a metric that holds the profiler's own work is never judged, never answered") {
  const Plan plan = sampling_plan();
  Findings f = findings_with(plan, {Verdict::not_perturbed, Verdict::not_perturbed, Verdict::not_perturbed},
                             Verdict::perturbed);
  f.metrics[1].scope = kTargetAndProfiler;
  f.metrics[1].judged = false;
  // judge_levels gives it no verdict, whatever its comparisons show.
  f.verdicts.clear();
  f.metric_verdicts.clear();
  judge_levels(plan, f, [](std::size_t, std::size_t, const std::vector<std::size_t>&) {
    return LevelJudgement{Verdict::perturbed, "moved", false, false};
  });
  for (const LevelVerdict& v : f.verdicts) CHECK(v.metric == 0);
  CHECK(f.verdicts.size() == 3);
  const CheckSummary s = summarize_check(plan, f);
  REQUIRE(s.metrics.size() == 1);
  CHECK(s.metrics[0].metric == 0);
}

TEST_CASE("least_text says an interval that excludes 0 as the least effect it shows") {
  Comparison c;
  c.scale = Scale::ratio;
  c.effect = 0.75, c.ci_lo = 0.28, c.ci_hi = 1.22;
  CHECK(least_text(c, "ns") == "at least +28.0%");
  c.effect = 0.043, c.ci_lo = 0.020, c.ci_hi = 0.066;
  CHECK(least_text(c, "ns") == "at least +2.0%");
  c.effect = -0.2, c.ci_lo = -0.4, c.ci_hi = -0.12;
  CHECK(least_text(c, "count") == "at least 12.0% lower");
  c.effect = 0.01, c.ci_lo = -0.02, c.ci_hi = 0.04;  // holds 0: nothing to say
  CHECK(least_text(c, "ns").empty());
  c.ci_lo = 0.5, c.ci_hi = std::numeric_limits<double>::infinity();
  CHECK(least_text(c, "ns") == "at least +50.0%");
  c.ci_lo = std::numeric_limits<double>::quiet_NaN(), c.ci_hi = std::numeric_limits<double>::quiet_NaN();  // exact
  CHECK(least_text(c, "ns").empty());
  c.scale = Scale::difference;
  c.effect = 2, c.ci_lo = 1, c.ci_hi = 3;
  CHECK(least_text(c, "count") == "at least +1 per run");
  c.effect = -2e6, c.ci_lo = -3e6, c.ci_hi = -1.5e6;
  CHECK(least_text(c, "ns") == "at least 1.50 ms per run lower");
}
