#include "analysis/findings.h"

#include <array>
#include <utility>
#include <string>

#include "util/error.h"

namespace obscheck {
namespace {

struct VerdictName {
  Verdict verdict;
  std::string_view text;
  std::string_view key;
};

constexpr std::array<VerdictName, 5> kVerdictNames{{
    {Verdict::perturbed, "perturbed by the measurement", "perturbed"},
    {Verdict::explained_by_layout, "explained by layout", "layout"},
    {Verdict::not_perturbed, "not perturbed (within ±ε)", "not-perturbed"},
    {Verdict::incomparable, "incomparable", "incomparable"},
    {Verdict::inconclusive, "inconclusive", "inconclusive"},
}};

const VerdictName& name_of(Verdict v) {
  for (const VerdictName& n : kVerdictNames)
    if (n.verdict == v) return n;
  throw Error(ErrorKind::internal, "verdict out of range: " + std::to_string(static_cast<int>(v)));
}

}  // namespace

std::string_view verdict_text(Verdict v) { return name_of(v).text; }

std::string_view verdict_key(Verdict v) { return name_of(v).key; }

Verdict verdict_from_key(std::string_view key) {
  for (const VerdictName& n : kVerdictNames)
    if (n.key == key) return n.verdict;
  throw Error(ErrorKind::io, "unknown verdict \"" + std::string(key) + "\"",
              "expected one of: perturbed, layout, not-perturbed, incomparable, inconclusive");
}

int verdict_severity(Verdict v) {
  switch (v) {
    case Verdict::perturbed: return 4;
    case Verdict::explained_by_layout: return 3;
    case Verdict::incomparable: return 2;
    case Verdict::inconclusive: return 1;
    case Verdict::not_perturbed: return 0;
  }
  return 1;
}

Comparison comparison_of(const Plan& plan, std::size_t metric, const Configuration& c, std::size_t baseline) {
  Comparison cmp;
  cmp.metric = metric;
  cmp.config = c.index;
  cmp.baseline = baseline;
  cmp.level_index = c.level_index;
  cmp.dose = plan.spec.levels[c.level_index].dose;
  cmp.level_label = plan.spec.levels[c.level_index].label;
  cmp.layout = c.layout;
  cmp.aa = c.aa_duplicate;
  return cmp;
}

void judge_levels(const Plan& plan, Findings& f, const LevelJudge& judge) {
  f.metric_verdicts.assign(f.metrics.size(), Verdict::inconclusive);
  std::vector<bool> any(f.metrics.size(), false);
  bool unsettled = false;
  for (std::size_t mi = 0; mi < f.metrics.size(); ++mi)
    for (std::size_t li = 0; li < plan.spec.levels.size(); ++li) {
      std::vector<std::size_t> idx;
      for (std::size_t i = 0; i < f.comparisons.size(); ++i)
        if (f.comparisons[i].metric == mi && f.comparisons[i].level_index == li && !f.comparisons[i].aa)
          idx.push_back(i);
      if (idx.empty()) continue;
      LevelJudgement j = judge(mi, li, idx);
      if (j.verdict == Verdict::inconclusive && !j.final) unsettled = true;
      LevelVerdict v;
      v.metric = mi;
      v.level_index = li;
      v.dose = plan.spec.levels[li].dose;
      v.level_label = plan.spec.levels[li].label;
      v.verdict = j.verdict;
      v.reason = std::move(j.reason);
      v.comparisons = std::move(idx);
      if (!any[mi] || verdict_severity(v.verdict) > verdict_severity(f.metric_verdicts[mi])) f.metric_verdicts[mi] = v.verdict;
      any[mi] = true;
      f.verdicts.push_back(std::move(v));
    }
  f.decisive = !f.verdicts.empty() && !unsettled;
}

}  // namespace obscheck
