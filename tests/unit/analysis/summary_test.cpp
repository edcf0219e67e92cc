// The summary's decisions on fixed findings: which dose is the highest shown safe and
// which the lowest shown to move the metric, the asked-for metrics first, the overall
// verdict.
#include <catch2/catch.hpp>

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
    l.extra = {{"freq", hz}};
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

TEST_CASE("summary: all within the margin is not perturbed overall; undecided is inconclusive") {
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
