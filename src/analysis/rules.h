// analysis/: the rule book. Every rule that turns statistics into a verdict, side by
// side, each defined here once and called by the passes that need it:
//   - interval rules: when a comparison's interval (sequential or fixed design alike;
//     check_inference.cpp builds it) is within the margin, beyond it, excludes zero, is
//     significant over its family, is decisive, and whether more blocks could still
//     change it;
//   - exact rules: the same questions for exact counts (the simulated PMU), where the
//     effect is a ratio of two counts and there is no interval;
//   - the A/A control: the check's (a significant difference or a drift between the
//     baseline and its duplicate), the exact check's (the duplicate counted beyond
//     ±margin) and compare's (the A/A pair came out better, worse or incomparable);
//   - a metric's verdict at a level: the check's (judge_level, in the order of
//     check.h's table) and the exact check's (judge_exact_level, deterministic.h's);
//   - compare's outcome from its intervals and its equivalence test (compare.h's).
// The layering test holds each of these names to one definition, in rules.cpp. Pure.
#pragma once

#include <cstddef>
#include <map>
#include <string>
#include <vector>

#include "analysis/compare.h"
#include "analysis/findings.h"

namespace obscheck {

// ---- interval rules ------------------------------------------------------------------

// [lo, hi] inside (-margin, margin): shown within the margin (Comparison::equivalent).
bool within_margin(double lo, double hi, double margin);
// [lo, hi] wholly above margin or below -margin (Comparison::outside_margin).
bool beyond_margin(double lo, double hi, double margin);
// At least two pairs and an interval that excludes 0.
bool ci_excludes_zero(const Comparison& c);
// Comparison::significant: at least two pairs, the Holm-adjusted p-value below alpha and
// an interval that excludes 0.
bool significant_at(const Comparison& c, double alpha);
// Significant and beyond the margin.
bool decisive_effect(const Comparison& c);
// Whether running up to `blocks` measured blocks in all could settle this comparison
// at the noise seen: its interval is still unbounded, it drifts, it is beyond the
// margin but not yet Holm-significant, or an interval of the width `blocks` would give
// could be shown within the margin or beyond it. A decided comparison (equivalent, or
// significant and beyond) has nothing to settle.
bool more_blocks_could_decide(const Comparison& c, std::size_t blocks);
// The same over every inconclusive verdict of `f`'s primary family (or of every metric
// when `all_metrics`): what keeps a sweep going.
bool more_blocks_could_decide(const Findings& f, std::size_t blocks, bool all_metrics = false);

// ---- exact rules (deterministic counts) --------------------------------------------

// c's flags from its exact effect: significant = the two counts differ; outside_margin
// = |effect| > margin; equivalent = not outside.
void judge_exact_comparison(Comparison& c, double config_count, double baseline_count, double margin);

// ---- the A/A control -----------------------------------------------------------------

// What a failed A/A control leaves for each metric's verdicts.
struct AaOutcome {
  std::vector<std::string> failed;  // per metric: non-empty = the reason
  std::vector<double> discrepancy;  // per metric: the failed A/A's largest |bound|
};
// The check's A/A control (f.aa, and what it leaves per metric). It fails when
// identical configurations differ *significantly* (Holm over the A/A's metrics) or
// drift apart; it is not required to show equivalence, which a low-powered A/A would
// fail at every level while masking nothing: an A/A that is only noisy already keeps
// each level's interval wide.
AaOutcome judge_aa_control(Findings& f);
// The exact check's A/A control: the baseline's duplicate should count exactly what the
// baseline did; it fails when the two differ beyond ±margin, a smaller difference is a
// note.
void judge_exact_aa_control(Findings& f, double margin);
// compare's A/A pair should show nothing: better, worse or incomparable there means
// the comparison cannot be trusted.
bool compare_aa_failed(const VariantComparison& aa);

// ---- a metric's verdict at a level -------------------------------------------------

// What the check's verdict rules read beside the comparisons.
struct VerdictInputs {
  const Findings& f;
  const std::vector<std::string>& incomparable;   // per comparison
  const std::vector<std::string>& aa_failed;      // per metric: non-empty = the reason
  const std::vector<double>& aa_discrepancy;      // per metric: the failed A/A's largest |bound|
  const std::map<std::size_t, std::string>& level_incomparable;  // instructions moved
  std::size_t max_blocks;                         // the plan's cap on measured blocks
};
// The check's verdict of `metric` at `level` from its comparisons `idx`: the first rule
// that applies, in the order of check.h's table.
LevelJudgement judge_level(const VerdictInputs& x, std::size_t metric, std::size_t level,
                           const std::vector<std::size_t>& idx);
// A judgement decided on scaled values (AnalysisOptions::allow_multiplex) says so.
LevelJudgement label_scaled(const Findings& f, const std::vector<std::size_t>& idx, LevelJudgement j);

// What the exact verdict rules read beside the comparisons.
struct ExactVerdictInputs {
  const Findings& f;
  const std::vector<std::string>& problem;        // per comparison: why it is incomparable
  const std::map<std::size_t, std::string>& level_incomparable;  // per level: instructions moved
  double margin;
};
// The exact check's verdict at level `li` from its comparisons `idx`, in the order of
// deterministic.h's table.
LevelJudgement judge_exact_level(const ExactVerdictInputs& x, std::size_t li, const std::vector<std::size_t>& idx);

// ---- compare's outcome -----------------------------------------------------------------

// c.outcome and c.verdict from its ratio's t interval, its bootstrap interval and its
// equivalence test (c.t, c.bootstrap and c.tost set), in the order of compare.h's rules
// (after incomparable): worse, better, equivalent, no difference.
void judge_compare_outcome(double margin, VariantComparison& c);

}  // namespace obscheck
