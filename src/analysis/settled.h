// analysis/: which configurations more blocks can still help, so that a check stops
// running the others (run/session.h: "spend runs where they can change an answer").
// Pure: the findings of a look in, configuration indexes out.
//
// A comparison is unsettled while its metric's verdict at its level is inconclusive,
// or while it is within ±margin by equality alone (every block equal so far: the runs
// to come may differ), and the comparison itself is neither shown within ±margin nor
// significant beyond it
// (the rule analysis/check.h more_blocks_could_decide starts from: a decided
// comparison waits on nothing). A configuration is needed while it, or a comparison
// that uses it as the reference, is unsettled; the A/A copy while its baseline is. The
// rest are settled: every layout their verdicts need is decided, so more of their runs
// cannot change an answer.
#pragma once

#include <cstddef>
#include <vector>

#include "analysis/findings.h"
#include "plan/plan.h"

namespace obscheck {

// The family whose answer stops a check: the primary Holm family (MetricInfo::primary:
// the counters the user named and wall time). The rusage metrics are reported, but
// never keep a check running (--decide-all does).
bool in_stopping_family(const MetricInfo& m);

// The configurations of `plan` no unsettled comparison of `f` needs, ascending. With
// `all_metrics` every metric counts, otherwise only in_stopping_family's.
std::vector<std::size_t> settled_configs(const Plan& plan, const Findings& f, bool all_metrics);

}  // namespace obscheck
