#include "analysis/summary.h"

#include <algorithm>

namespace obscheck {
namespace {

// A level programs the first k counters in order: it is a dose of the counter list
// (every other observer's levels program all of them, which is the same test).
bool programs_a_prefix(const Level& level) {
  for (std::size_t i = 0; i < level.programmed.size(); ++i)
    if (level.programmed[i] != i) return false;
  return true;
}

bool moves(Verdict v) { return v == Verdict::perturbed || v == Verdict::explained_by_layout; }

// The held comparison of a level verdict when there is one, else its first.
std::optional<std::size_t> shown_comparison(const Findings& f, const LevelVerdict& v) {
  if (v.comparisons.empty()) return std::nullopt;
  for (std::size_t i : v.comparisons)
    if (f.comparisons[i].layout == Layout::held) return i;
  return v.comparisons.front();
}

MetricAnswer answer_for(const Plan& plan, const Findings& f, std::size_t m, const std::vector<std::size_t>& axis) {
  MetricAnswer a;
  a.metric = m;
  a.verdict = m < f.metric_verdicts.size() ? f.metric_verdicts[m] : Verdict::inconclusive;
  a.asked = f.metrics[m].primary;
  for (std::size_t level : axis)
    for (std::size_t i = 0; i < f.verdicts.size(); ++i)
      if (f.verdicts[i].metric == m && f.verdicts[i].level_index == level) a.doses.push_back(i);
  bool all_safe_so_far = true;
  for (std::size_t i : a.doses) {
    const Verdict v = f.verdicts[i].verdict;
    if (v != Verdict::inconclusive) ++a.decided;
    if (v != Verdict::not_perturbed) all_safe_so_far = false;
    if (all_safe_so_far) a.highest_safe = i;
    if (moves(v) && !a.lowest_unsafe) a.lowest_unsafe = i;
  }
  if (!a.doses.empty()) a.largest = shown_comparison(f, f.verdicts[a.doses.back()]);
  for (const LevelVerdict& v : f.verdicts)
    if (v.metric == m && (moves(v.verdict) || v.verdict == Verdict::incomparable)) a.finding = true;
  (void)plan;
  return a;
}

}  // namespace

std::vector<std::size_t> dose_axis_levels(const Plan& plan) {
  std::vector<std::size_t> out;
  for (std::size_t i = 0; i < plan.spec.levels.size(); ++i)
    if (programs_a_prefix(plan.spec.levels[i])) out.push_back(i);
  std::stable_sort(out.begin(), out.end(), [&](std::size_t a, std::size_t b) {
    return plan.spec.levels[a].dose < plan.spec.levels[b].dose;
  });
  return out;
}

CheckSummary summarize_check(const Plan& plan, const Findings& f) {
  CheckSummary s;
  const std::vector<std::size_t> axis = dose_axis_levels(plan);
  s.single_level = plan.spec.levels.size() < 2;
  std::vector<MetricAnswer> others;
  for (std::size_t m = 0; m < f.metrics.size(); ++m) {
    if (!f.metrics[m].judged) continue;  // the profiler's cost: no answer (report/ gives it per dose)
    MetricAnswer a = answer_for(plan, f, m, axis);
    (a.asked ? s.metrics : others).push_back(std::move(a));
  }
  for (MetricAnswer& a : others) s.metrics.push_back(std::move(a));
  s.any_verdict = !f.verdicts.empty();
  if (!s.any_verdict) return s;
  s.overall = Verdict::not_perturbed;
  for (const MetricAnswer& a : s.metrics) {
    if (!a.asked) continue;  // the overall answer rests on the primary family (MetricInfo::primary)
    for (const LevelVerdict& v : f.verdicts) {
      if (v.metric != a.metric) continue;
      s.outcomes.emplace_back(verdict_key(v.verdict));
      if (verdict_severity(v.verdict) > verdict_severity(s.overall)) s.overall = v.verdict;
    }
  }
  return s;
}

}  // namespace obscheck
