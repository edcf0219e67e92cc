#include "analysis/settled.h"

namespace obscheck {
namespace {

// Shown within, shown beyond, or an intermittent effect whose mean is shown beyond
// the margin while its median is within it (never "not perturbed" whatever comes).
// Within by equality alone ("equal in all n blocks") is not settled: it says nothing
// of runs not yet seen, and a dose that moves one run in four leaves 7 blocks equal
// in 13% of checks; the configuration runs on while the check does, so such an effect
// still shows (docs/statistics.md, "Not perturbed means the whole distribution").
bool comparison_settled(const Comparison& c) {
  return (c.equivalent && c.equal_blocks == 0) || (c.significant && c.outside_margin) ||
         (c.median_only && c.mean_beyond);
}

}  // namespace

bool in_stopping_family(const MetricInfo& m) { return m.primary; }

std::vector<std::size_t> settled_configs(const Plan& plan, const Findings& f, bool all_metrics) {
  std::vector<bool> needed(plan.configs.size(), false);
  const auto need = [&](std::size_t c) {
    if (c < needed.size()) needed[c] = true;
  };
  for (const LevelVerdict& v : f.verdicts) {
    const bool open = v.verdict == Verdict::inconclusive || v.verdict == Verdict::not_perturbed;
    if (!open || v.metric >= f.metrics.size()) continue;
    if (!all_metrics && !in_stopping_family(f.metrics[v.metric])) continue;
    for (std::size_t i : v.comparisons) {
      const Comparison& c = f.comparisons.at(i);
      if (comparison_settled(c)) continue;
      need(c.config);
      need(c.baseline);
    }
  }
  // The A/A control runs beside its baseline: the verdicts against it rest on it.
  if (plan.aa < needed.size() && !plan.baselines.empty() && needed[plan.baselines.front()]) needed[plan.aa] = true;
  std::vector<std::size_t> out;
  for (std::size_t c = 0; c < needed.size(); ++c)
    if (!needed[c]) out.push_back(c);
  return out;
}

}  // namespace obscheck
