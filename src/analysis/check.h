// analysis/: the main job's verdicts. The Plan and the runs the journal holds in,
// Findings out (docs/statistics.md). Pure: no I/O, no
// clocks; the only randomness (sign flips, bootstrap) is seeded from AnalysisOptions.
//
// What is compared: every metric (each distinct reading name of the runs, and the
// driver's wall time and rusage) for every configuration against its comparison
// baseline (plan/ comparison_baseline), paired by measured block (warm-ups are never
// used; a block missing either side is skipped, so an interrupted sweep is analysed
// as far as it got). docs/statistics.md states every method below, with its reason
// and the calibration that backs it.
//
// Per comparison: d per block on the metric's scale (findings.h Scale: log ratio, or a
// difference per run for small counts and coarse clocks); the effect is the median of
// d; its interval at 1 - 2 alpha intersects, by a Bonferroni split of that alpha,
//   sequential (default): the sign-based confidence sequence for the median
//     (stats/sequential.h), the sequential t-test's sequence for the mean with its scale
//     floored by the metric's pooled spread, on that spread's degrees of freedom (the
//     sum of the metric's comparisons' n - 1; stats/magnitude.h), and from
//     range_first_blocks on the running range [min d, max d];
//   fixed design (AnalysisOptions::fixed_design: one look): the exact order-statistic
//     interval for the median and the sequential t-test's interval;
// and its p-value for the question "perturbed" answers, "|effect| within ±margin"
// (the A/A control: "no difference"), is the smaller of the sign test's (always-valid,
// or exact binomial in a fixed design) and the t-test's, each taken at the point of the
// margin's region nearest its estimate and divided by its share. The t-test takes part
// from magnitude_first_blocks on.
// Holm adjusts the primary family (MetricInfo::primary) and the other metrics apart;
// the A/A control's comparisons form a third family. docs/statistics.md states every
// method, its source, its shares and the calibration that backs it.
//
// Verdict per metric and level (the baseline level and a counter's solo level are
// references and get none), first rule that applies:
//   incomparable   a run exited differently from the baseline's runs, the modal output
//                  digest differs, the counter was multiplexed in a paired run (unless
//                  allow_multiplex: then only one that never ran; the verdict that
//                  follows is labelled scaled), a counter read zero or negative (a
//                  fault) in a paired run, or (counter
//                  observer) "instructions" moved beyond ±margin under held layout;
//   inconclusive   the metric's A/A control failed (unless a held effect's interval
//                  clears ±(margin + the A/A's largest |bound|): then perturbed), fewer
//                  than kMinPairedBlocks pairs, or drift in d that changes the conclusion;
//   perturbed      held: Holm-significant and the whole interval beyond ±margin;
//   explained by layout  natural or sham: significant and beyond ±margin, held: within it;
//   not perturbed  every layout's interval within ±margin ("equal in all n blocks" when
//                  d is 0 in every block), and the whole distribution too: not when the
//                  mean is shown beyond the margin or sits beyond it with the blocks
//                  beyond the margin on its side (Comparison::median_only: inconclusive,
//                  "1 run in 4: +64"), and not before intermittent_cover_blocks
//                  (Comparison::unseen_runs: inconclusive, "an effect on 1 run in 4
//                  would not yet have shown");
//   inconclusive   otherwise, with what the interval shows ("no effect beyond ±2.4%" when it
//                  holds 0, "at least +28%" when it excludes 0)
//                  and the blocks ±margin would need at the noise seen.
// Findings::decisive: every primary verdict is decided; Findings::all_decided: every one.
// Findings::counters: each counter's validity (analysis/counter_validity.h).
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string_view>
#include <vector>

#include "analysis/findings.h"
#include "analysis/rules.h"
#include "plan/plan.h"
#include "record/run_record.h"
#include "record/run_table.h"

namespace obscheck {

// The counter whose count the counter observer's dose must not move (an incomparable
// run: the instruction count moved where the dose adds none); check_comparability.cpp
// and deterministic.cpp both apply it.
inline constexpr std::string_view kInstructionsMetric = "instructions";

struct AnalysisOptions {
  double margin = 0.01;            // ±ε on the ratio scale (--margin); 0 < margin < 1
  double alpha = 0.05;             // family-wise over levels, layouts, metrics and looks; 0 < alpha < 1
  std::size_t looks_planned = 1;   // the looks the live check took: reported, not used (every look is valid)
  std::uint64_t seed = 0;          // kept for the journal's replays; the methods draw no random numbers
  // Comparisons are computed on this many threads (0: one per hardware thread); the
  // findings never depend on it.
  std::size_t threads = 0;
  // The number of blocks was fixed before the first run (--runs N, a plan file's
  // blocks, a merge of shards): one look, so the exact fixed-n sign test and interval
  // replace the confidence sequence (docs/statistics.md, "Fixed designs").
  bool fixed_design = false;
  // --allow-multiplex: a counter's readings that were multiplexed but ran are compared
  // as their scaled values (raw x time_enabled / time_running) instead of making the
  // comparison incomparable; every verdict decided on them is labelled scaled. A
  // reading that never ran is never a value: it stays incomparable.
  bool allow_multiplex = false;
};

// Below three pairs nothing can be said: the t-test's evidence at two blocks is at
// most (1 + 2 g)^(1/2) = 14 (stats/magnitude.h), short of any family's threshold, and
// the sign test needs more still. The verdict then names the count.
inline constexpr std::size_t kMinPairedBlocks = 3;
// Pettitt's drift test is not run on fewer blocks: below ten its null distribution is
// too coarse to reach a Bonferroni-divided alpha.
inline constexpr std::size_t kMinDriftBlocks = 10;
// The Bonferroni shares of alpha (docs/statistics.md, "Combining the methods"). The
// p-value for "no effect" is min(1, p_sign / kSignShare, p_magnitude / kMagnitudeShare).
// The interval's 2 alpha first gives the running range up to kRangeShare of it (the
// range takes 2^(1 - n0) for the smallest n0 that fits: 1/64 at 2 alpha = 0.10, from
// 7 blocks on), then splits the rest by the same two shares. The sign sequence keeps
// the larger share: it assumes nothing of the noise's shape, and its width decides
// "not perturbed" on long checks; the t-test needs only a little alpha to decide giant
// effects, whose evidence grows like a power of n.
inline constexpr double kSignShare = 0.8;
inline constexpr double kMagnitudeShare = 0.2;
inline constexpr double kRangeShare = 0.2;
// Below these medians a ratio is not what a person reads (one event moves it by 5% or
// more; a clock's tick does): the metric is compared as a difference per run instead.
inline constexpr double kRareCountFloor = 20;
inline constexpr double kRareTimeFloorNs = 20000;
// The drift test's family-wise false-alarm rate per check (Bonferroni over the
// comparisons it tests): docs/statistics.md "Drift".
inline constexpr double kDriftAlpha = 0.05;

// The metrics a check compares: the counters' readings (each distinct Reading::name in
// `runs`, ordered by plan counter item, then by first appearance), then the driver's
// metrics, always present: wall-time (ns), user-time (ns), system-time (ns), max-rss
// (KiB), minor-faults(ru), vol-ctx-switches(ru), invol-ctx-switches(ru) (count).
// A reading's counter item is the solo_of of the first run whose level programs only
// that item and has the reading, else the plan counter whose name (or {group} member)
// equals the reading's name; when neither, `counter` is unset and the metric is listed
// but not compared.
std::vector<MetricInfo> check_metrics(const Plan& plan, const std::vector<RunRecord>& runs);
std::vector<MetricInfo> check_metrics(const Plan& plan, const RunTable& runs);

// The value compared for one run: a reading's (multiplex-scaled) value, or the driver
// metric from exit.wall_ns / exit.usage. nullopt when the run has no such reading or
// its value is not finite (a counter that never ran).
std::optional<double> metric_value(const MetricInfo& metric, const RunRecord& run);

// Throws Error(io) when `run` names a configuration the plan does not have (a journal
// written for another plan). Every analysis of a journal's runs checks each run so.
void require_run_in_plan(const Plan& plan, const RunRecord& run);

// The comparisons of `plan` that enter the Holm families (every configuration against its
// baseline, A/A apart) for its counters' readings and the driver's seven metrics,
// counting a {group} item's members each (readings named otherwise than the plan's
// counters are not foreseen).
std::size_t planned_family(const Plan& plan);
// Those of the primary family only: the counters' readings and wall time.
std::size_t planned_primary_family(const Plan& plan);
// The blocks from which the sequential t-test takes part in a plan of `block_size`
// configurations: the smallest n with block_size^(1 - n) <= kMagnitudeShare alpha.
// The t-test believes a tight run of agreeing blocks; under the randomised order one
// configuration holds the same place of its block (first, say, when the first run of
// a block is slower) in all of n blocks with probability block_size^(1 - n), and a
// configuration can sit in one mode of a bimodal host as long. Below that count such
// a run is as likely as the t-test's whole share of alpha, so the t-test says nothing
// (docs/statistics.md, "Magnitudes"). At alpha = 0.05: 6 blocks for 3 configurations
// (one dose, its baseline and the A/A copy), 5 for 4, 4 for 5 to 9, 3 from 10 on.
std::size_t magnitude_first_blocks(std::size_t block_size, double alpha = 0.05);
// "Not perturbed" covers the runs not yet made only as far as the runs seen can: an
// effect that touches one run in q, each run alike, leaves n runs of the dose all
// untouched with probability (1 - 1/q)^n, and then no interval, range or equality can
// show it (the median never moves for q > 2; the whole-distribution rule needs one
// touched run). So a comparison is "within ±margin" only from the blocks at which an
// effect on at least 1 run in kIntermittentOneIn would have touched one of them with
// probability 1 - alpha (the "rule of three" of Hanley and Lippman-Hand, "If nothing
// goes wrong, is everything all right?"): ceil(ln alpha / ln(1 - 1/q)), 11 blocks at
// alpha = 0.05. Before that it is inconclusive and keeps a check running
// (docs/statistics.md, "Not perturbed means the whole distribution"). q = 4 is the
// issue's dose and the rarest effect the default margin can be asked to cover cheaply:
// a rarer one must move its runs by more than q·ε to matter to the mean, and each
// doubling of q about doubles the blocks (q = 8: 23).
// The claim is made for every dose of a metric at once: a metric compared at K doses
// (the levels it is compared at, the A/A control aside) splits alpha over them (Bonferroni,
// alpha / K each), so that the chance that some dose's intermittent effect has not yet
// shown is at most alpha, not K alpha: ceil(ln(alpha / K) / ln(1 - 1/q)), 11 blocks for
// one dose, 13 for two, 17 for six, 20 for fifteen.
inline constexpr std::size_t kIntermittentOneIn = 4;
std::size_t intermittent_cover_blocks(double alpha = 0.05, std::size_t doses = 1);
// What n runs seen, none touched, cover over `doses` doses: the largest q for which an
// effect on at least 1 run in q would have touched one of them with probability
// 1 - alpha / doses (0 when not even q = 2 is covered).
std::size_t intermittent_covered(std::size_t n, double alpha = 0.05, std::size_t doses = 1);
// The first look at which the primary family can reject anything: the blocks after
// which the sequential t-test's largest evidence reaches planned_primary_family /
// (kMagnitudeShare alpha) (stats/magnitude.h magnitude_blocks_to_decide), never before
// the t-test takes part (magnitude_first_blocks) nor before kMinPairedBlocks. At alpha
// = 0.05: 6 blocks for one dose (3 configurations), 4 for a four-counter check (8
// configurations, 15 comparisons), 5 for a primary family of 81 to 2,510. Looking
// earlier could only say "too few blocks".
std::size_t first_look(const Plan& plan, double alpha = 0.05);

// Whether more blocks could still settle a comparison, or a check's inconclusive
// verdicts (more_blocks_could_decide), is a rule of the rule book (analysis/rules.h).

// The alpha the sign sequence runs at within the check's split of a 1 - 2 alpha
// interval (kSignShare of what the range leaves): Comparison::sequence_half_width is
// that sequence's, at every look and in a fixed design alike, so its width in standard
// errors (stats/sequential.h sequence_width_in_se) at this alpha gives the median's
// standard error.
double sequence_alpha(double alpha);

// Throws Error(usage) when margin or alpha is outside (0, 1) or looks_planned is 0.
// Runs whose config is not in the plan are an Error(io) (a journal of another plan).
Findings analyse_check(const Plan& plan, const RunTable& runs, const AnalysisOptions& o);
Findings analyse_check(const Plan& plan, const std::vector<RunRecord>& runs, const AnalysisOptions& o);

}  // namespace obscheck
