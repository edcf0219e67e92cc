// job/: what a bias or compare sweep found, from its report's records: bias analyses
// every metric across the contexts (analysis/bias.h); compare pairs the variants per
// context (analysis/compare.h), the A/A pair first when asked, and judges both. Each
// returns the outcomes found, in --fail-on's words; cli/cmd_bias.cpp and
// cli/cmd_compare.cpp print the report and pick the exit code.
#pragma once

#include <string>
#include <utility>
#include <vector>

#include "job/sweep/sweep_job.h"
#include "report/bias_report.h"

namespace obscheck {

// The outcomes bias can find ("bias": the chosen metric swings beyond run-to-run noise;
// "failed": a context made the program fail; "incomparable": a metric's counter was
// multiplexed in some run, without --allow-multiplex) and compare's ("aa": the A/A pair
// showed a difference, so the comparison cannot be trusted); those that exit 1 by
// default are job/common/request_bounds.h default_fail_on's.

// Analyses every metric of the brief into report.bias: a multiplexed counter's metric
// is incomparable unless report.allow_multiplex; a metric with no positive value in
// any context is noted, not analysed; and returns the outcomes found. Throws
// Error(target_failed) naming the first failure when the chosen metric has no value
// in any context of a sweep that ran to its end.
std::vector<std::string> judge_bias(SweepReport& report, const SweepBrief& brief, bool interrupted);

// Compares the baseline with the contender (and, with --aa, with its own copy) into
// report.comparison and report.aa (a multiplexed counter makes them incomparable unless
// report.allow_multiplex); returns the outcomes found. `allow_output_diff`:
// variants whose outputs differ are compared anyway.
std::vector<std::string> judge_compare(SweepReport& report, const SweepBrief& brief, bool allow_output_diff);

// Judges `report` as its brief's command asks (judge_bias, or judge_compare with
// `allow_output_diff`) and returns the exit code its outcomes call for under the
// brief's --fail-on (job/common/exit_codes.h findings_exit_code).
int judge_sweep(SweepReport& report, const SweepBrief& brief, bool interrupted,
                bool allow_output_diff);

// compare's target words split at ":::", as GNU parallel's: BASELINE ARGS and
// CONTENDER ARGS. Throws Error(usage) unless there are exactly two non-empty variants.
std::pair<std::vector<std::string>, std::vector<std::string>> split_variants(const std::vector<std::string>& words);

}  // namespace obscheck
