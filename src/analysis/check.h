// analysis/: the main job's verdicts. The Plan and the runs the journal holds in,
// Findings out (DESIGN.md "The causal intervention", "Statistics"). Pure: no I/O, no
// clocks; the only randomness (sign flips, bootstrap) is seeded from AnalysisOptions.
//
// What is compared: every metric (each distinct reading name of the runs, and the
// driver's wall time and rusage) for every configuration against its comparison
// baseline (plan/ comparison_baseline), paired by measured block (warm-ups are never
// used; a block missing either side is skipped, so an interrupted sweep is analysed
// as far as it got). d = ln(config) − ln(baseline) goes through
// stats::paired_log_effect; the p-values of all comparisons but the A/A control are
// Holm-adjusted together.
//
// Verdict per metric and level (the baseline level and a counter's solo level are
// references and get none), first rule that applies:
//   incomparable   a run exited differently from the baseline's runs, the modal output
//                  digest differs, the counter was multiplexed in a paired run, or (counter
//                  observer) "instructions" moved beyond ±margin under held layout;
//   inconclusive   the metric's A/A control failed (unless a held effect's CI clears
//                  ±(margin + the A/A's largest |CI bound|) and no rule below applies:
//                  then perturbed), fewer than kMinPairedBlocks pairs, the baseline's
//                  median is below the rare-metric floor, or drift in d;
//   perturbed      held: Holm-significant and the whole CI beyond ±margin;
//   explained by layout  natural or sham: significant and beyond ±margin, held: TOST-equivalent;
//   not perturbed  every layout's comparison TOST-equivalent within ±margin;
//   inconclusive   otherwise, naming the comparison that is neither.
// Findings::decisive: there are verdicts and none is inconclusive, except for a rare
// metric's: more runs cannot make a metric that counts a handful of events comparable
// as a ratio, so it must not keep the sweep going to --max-runs.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <vector>

#include "analysis/findings.h"
#include "plan/plan.h"
#include "record/run_record.h"

namespace obscheck {

struct AnalysisOptions {
  double margin = 0.01;            // ±ε on the ratio scale (--margin); 0 < margin < 1
  double alpha = 0.05;             // family-wise, over all looks; 0 < alpha < 1
  std::size_t looks_planned = 1;   // each look tests at alpha / looks_planned (stats/sequential.h)
  std::uint64_t seed = 0;          // drives the sign flips and bootstraps
  // Comparisons are computed on this many threads (0: one per hardware thread). Each
  // comparison is seeded on its own, so the findings never depend on it.
  std::size_t threads = 0;
};

// Below five pairs the sign-flip test cannot reach p < 0.05 at all (its smallest
// two-sided p is 2/2^n = 0.0625 at n = 4) and a HAC standard error is meaningless.
inline constexpr std::size_t kMinPairedBlocks = 5;
// Rare metrics (seeds/004 §4.1.1 sets infrequent metrics aside): below 20 events a
// single event moves the ratio by 5% or more, and below 20 µs rusage tick granularity
// does; the comparison is computed but cannot carry a verdict.
inline constexpr double kRareCountFloor = 20;
inline constexpr double kRareTimeFloorNs = 20000;

// The metrics a check compares: the counters' readings (each distinct Reading::name in
// `runs`, ordered by plan counter item, then by first appearance), then the driver's
// metrics, always present: wall-time (ns), user-time (ns), system-time (ns), max-rss
// (KiB), minor-faults(ru), vol-ctx-switches(ru), invol-ctx-switches(ru) (count).
// A reading's counter item is the solo_of of the first run whose level programs only
// that item and has the reading, else the plan counter whose name (or {group} member)
// equals the reading's name; when neither, `counter` is unset and the metric is listed
// but not compared.
std::vector<MetricInfo> check_metrics(const Plan& plan, const std::vector<RunRecord>& runs);

// The value compared for one run: a reading's (multiplex-scaled) value, or the driver
// metric from exit.wall_ns / exit.usage. nullopt when the run has no such reading or
// its value is not finite (a counter that never ran).
std::optional<double> metric_value(const MetricInfo& metric, const RunRecord& run);

// Throws Error(io) when `run` names a configuration the plan does not have (a journal
// written for another plan). Every analysis of a journal's runs checks each run so.
void require_run_in_plan(const Plan& plan, const RunRecord& run);

// Throws Error(usage) when margin or alpha is outside (0, 1) or looks_planned is 0.
// Runs whose config is not in the plan are an Error(io) (a journal of another plan).
Findings analyse_check(const Plan& plan, const std::vector<RunRecord>& runs, const AnalysisOptions& o);

}  // namespace obscheck
