// The summary says an undecided interval as an interval: "at least +28%" and why it is
// not yet decided where the interval excludes 0, never "no effect beyond ±122%"; the
// safe-dose line's per-dose text and the JSON's per_dose text give the interval too.
// Under a profiler command, a metric that holds the profiler's own work has no answer
// and is given as the profiler's cost.
#include <catch2/catch.hpp>

#include <algorithm>
#include <cmath>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "analysis/summary.h"
#include "report/check_report.h"

using namespace obscheck;

namespace {

// 0, 100, 4000 Hz of a sampling check, task-clock at each.
Plan sampling_plan() {
  PlanSpec s;
  s.observer = ObserverKind::sampling;
  s.counters = {"task-clock"};
  for (int hz : {0, 100, 4000}) {
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

// task-clock: 100 Hz not perturbed within ±1%, 4000 Hz undecided at +4.3% [lo, hi].
Findings findings_with(const Plan& plan, double lo, double hi, bool outside_margin, bool significant) {
  Findings f;
  f.metrics = {{"task-clock", "ns", false, 0, true}};
  const struct {
    std::size_t level;
    double effect, lo, hi;
    Verdict v;
  } rows[] = {{1, 0.001, -0.004, 0.006, Verdict::not_perturbed}, {2, 0.043, lo, hi, Verdict::inconclusive}};
  for (const auto& r : rows) {
    Comparison c = comparison_of(plan, 0, plan.configs[r.level], plan.baselines[0]);
    c.n = 12;
    c.effect = r.effect, c.ci_lo = r.lo, c.ci_hi = r.hi;
    c.margin = 0.01;
    c.bound = std::max(std::fabs(r.lo), std::fabs(r.hi));
    c.equivalent = r.v == Verdict::not_perturbed;
    c.outside_margin = r.v == Verdict::inconclusive && outside_margin;
    c.significant = r.v == Verdict::inconclusive && significant;
    c.p_holm = significant ? 0.01 : 0.2;
    f.comparisons.push_back(c);
    LevelVerdict v;
    v.metric = 0;
    v.level_index = r.level;
    v.dose = plan.spec.levels[r.level].dose;
    v.level_label = plan.spec.levels[r.level].label;
    v.verdict = r.v;
    v.comparisons = {f.comparisons.size() - 1};
    f.verdicts.push_back(v);
  }
  f.metric_verdicts = {Verdict::inconclusive};
  return f;
}

std::string line_with(const std::vector<std::string>& lines, const std::string& start) {
  for (const std::string& l : lines)
    if (l.rfind(start, 0) == 0) return l;
  return {};
}

}  // namespace

TEST_CASE("an undecided interval that excludes 0 is said as the least effect, with why it is not decided") {
  const Plan plan = sampling_plan();
  const std::vector<std::string> lines = summary_lines(plan, findings_with(plan, 0.020, 0.066, false, false), {});
  const std::string answer = line_with(lines, "task-clock");
  INFO(answer);
  CHECK(answer.find("undecided at 1 of 2 doses: at least +2.0% (largest, 4000Hz: +4.3% [+2.0, +6.6])") != std::string::npos);
  CHECK(answer.find("not yet decided: its interval still reaches within ±1%") != std::string::npos);
  CHECK(answer.find("no effect beyond") == std::string::npos);
  const std::string safe = line_with(lines, "safe dose:");
  INFO(safe);
  CHECK(safe.find(" at least +2.0%, undecided (+4.3% [+2.0, +6.6])") != std::string::npos);
  CHECK(safe.find(" no effect beyond ±0.6%") != std::string::npos);

  // Beyond the margin but not yet significant over the family: that is what it lacks.
  const std::vector<std::string> holm = summary_lines(plan, findings_with(plan, 0.028, 1.22, true, false), {});
  const std::string held_back = line_with(holm, "task-clock");
  INFO(held_back);
  CHECK(held_back.find("undecided at 1 of 2 doses: at least +2.8%") != std::string::npos);
  CHECK(held_back.find("not yet decided: Holm p = 0.2, not yet below α = 0.05") != std::string::npos);
}

TEST_CASE("an undecided interval that holds 0 keeps the bound, and the per-dose text gives the interval") {
  const Plan plan = sampling_plan();
  const Findings f = findings_with(plan, -0.021, 0.029, false, false);
  const std::vector<std::string> lines = summary_lines(plan, f, {});
  CHECK(line_with(lines, "task-clock").find("undecided at 1 of 2 doses: no effect beyond ±2.9%") != std::string::npos);
  CHECK(line_with(lines, "safe dose:").find(" undecided: +4.3% [-2.1, +2.9]") != std::string::npos);
  const nlohmann::json j = nlohmann::json::parse(check_json(plan, f, {}));
  const nlohmann::json& per_dose = j.at("answer").at("metrics").at(0).at("per_dose");
  REQUIRE(per_dose.size() == 2);
  CHECK(per_dose.at(1).at("text") == "undecided: +4.3% [-2.1, +2.9]");
  CHECK(j.at("answer").at("profiler_cost").empty());
}
