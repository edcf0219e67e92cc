// analysis/: verdicts for a deterministic backend (`--backend sim`, the
// simulated PMU). A simulated count is a pure function of the program, its input,
// its layout and the cache geometry, so one run per configuration measures it
// exactly; a confidence interval or a p-value would pretend to a sampling error there
// is none of. Every further run of a configuration (a later block, and the A/A copy,
// which is the baseline run again) serves only to confirm that the counts repeat.
//
// What is compared: the counter metrics of check_metrics (driver metrics — wall time,
// rusage — measure the simulator, not the program, and are left out with a note), each
// configuration against its comparison_baseline, as in analyse_check. The effect is
// x_config / x_baseline − 1 from each side's first measured run (ln(x+1) convention:
// (x+1)/(y+1) − 1 when a side counted 0). ci_lo, ci_hi, p_value and p_holm are NaN,
// ci_method and p_method say "none: deterministic"; significant = the counts differ,
// outside_margin = |effect| > margin, equivalent = |effect| <= margin.
//
// Verdict per metric and level, first rule that applies:
//   incomparable   a run exited differently from the baseline's, the output digest
//                  differs, a configuration's repeated runs (or the baseline's A/A copy)
//                  counted differently and the difference decides the verdict (the
//                  effect over every combination of the two sides' repeated counts
//                  straddles ±margin: one run cannot stand for the configuration), or
//                  (counter observer) "instructions" moved beyond ±margin under held;
//   inconclusive   a configuration of the level has no measured run yet;
//   perturbed      held: |effect| > margin;
//   explained by layout  natural or sham beyond ±margin, held within it;
//   not perturbed  every layout within ±margin;
//   inconclusive   otherwise (beyond ±margin without a held comparison).
// Repeats that differ without deciding anything are named in a note: cachegrind is
// deterministic for a given address layout, yet at some environment sizes a few
// misses in thousands were seen to vary between otherwise identical runs (valgrind
// 3.19 here), and a verdict that holds at every repeat's count is still a verdict.
// Findings::decisive: every configuration has a measured run. The A/A control fails
// when the duplicate's count differs from the baseline's beyond ±margin; a smaller
// difference is a note.
#pragma once

#include <vector>

#include "analysis/findings.h"
#include "plan/plan.h"
#include "record/run_record.h"

namespace obscheck {

inline constexpr const char* kDeterministicMethod = "none: deterministic (exact simulated counts)";

// Throws Error(usage) when margin is outside (0, 1); Error(io) for a run whose config
// is not in the plan.
Findings analyse_deterministic(const Plan& plan, const std::vector<RunRecord>& runs, double margin);

}  // namespace obscheck
