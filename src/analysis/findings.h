// analysis/: what a check found — the value every reporter formats (docs/design.md:
// analysis/ passes → Findings). Pure data: no I/O, no formatting beyond the fixed
// verdict names.
#pragma once

#include <cmath>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "plan/plan.h"

namespace obscheck {

// The causal intervention (docs/statistics.md): the five verdicts, per metric and dose level.
enum class Verdict { perturbed, explained_by_layout, not_perturbed, incomparable, inconclusive };

// "perturbed by the measurement", "explained by layout", "not perturbed (within ±ε)",
// "incomparable", "inconclusive".
std::string_view verdict_text(Verdict v);
// Stable machine keys: "perturbed", "layout", "not-perturbed", "incomparable", "inconclusive".
std::string_view verdict_key(Verdict v);
Verdict verdict_from_key(std::string_view key);  // throws Error(io)
// Which verdict a metric's summary shows when its levels differ, the higher first:
// perturbed > layout > incomparable > inconclusive > not perturbed.
int verdict_severity(Verdict v);

// A metric the check compares: one of the counters' readings (by event name) or a
// driver metric the runner takes identically at every level (wall time, rusage).
struct MetricInfo {
  std::string name;                        // "task-clock", "wall-time", "user-time", ...
  std::string unit;                        // "ns", "count", "KiB"
  bool driver = false;                     // taken by the driver, not a counter
  std::optional<std::size_t> counter;      // index into plan.spec.counters for a counter metric
  // The question the user asked: the plan's counters' readings and wall time. Their
  // verdicts form the primary Holm family, the overall answer and the exit code, and
  // decide when a check may stop; the other driver metrics (rusage) are a family of
  // their own, reported, and never keep a check running.
  bool primary = false;
  // What the metric describes when not the program alone: under a profiler command the
  // rusage of the reaped process holds the profiler's own with the target's, so those
  // metrics say kTargetAndProfiler ("" for every other metric: the target, or the
  // program as the check runs it).
  std::string scope;
  // Whether its comparisons get verdicts. A metric that holds the profiler's own work
  // (scope kTargetAndProfiler) does not: what moves it is the profiler's cost, not the
  // target's perturbation. Its comparisons (effect and interval per dose) are kept and
  // reported as that cost; it has no LevelVerdict, so no answer, no exit code and no
  // place in the certificate's verdicts.
  bool judged = true;
  // Why a metric the target's own runs cannot give is not judged (judged false), when
  // that is not the profiler's cost: max-rss whose runs did not exceed obscheck's own
  // peak before the exec ("hidden by obscheck's own peak before exec (<= 7324 KiB)"),
  // or whose journal does not record that peak. "" otherwise.
  std::string hidden;
};
inline constexpr const char* kTargetAndProfiler = "target + profiler";

// How a comparison measures its effect (docs/statistics.md "Each metric on its own scale").
//   ratio:      d = ln(x_config) - ln(x_baseline) per block; effect and interval are
//               ratios minus one (+0.03: the configuration is 3% larger); the margin is ε.
//   difference: d = x_config - x_baseline per block, in the metric's unit per run (a
//               count that is small or sometimes zero, a clock near its resolution);
//               the margin is the larger of ε times the baseline's median and half the
//               data's resolution (one event; the clock's smallest step).
enum class Scale { ratio, difference };
std::string_view to_string(Scale s);  // "ratio", "difference"

// One configuration against its comparison baseline (plan/ comparison_baseline) for
// one metric, over the measured blocks in which both ran.
struct Comparison {
  std::size_t metric = 0;       // into Findings::metrics
  std::size_t config = 0;       // plan config index
  std::size_t baseline = 0;     // plan config index it is compared against
  std::size_t level_index = 0;  // plan config's level (the dose axis)
  int dose = 0;
  std::string level_label;
  Layout layout = Layout::held;
  bool aa = false;              // the A/A control (baseline against its duplicate)
  std::size_t n = 0;            // paired blocks used
  Scale scale = Scale::ratio;
  double margin = 0;            // ±margin on this comparison's scale (see Scale)
  double effect = 0;            // the median of d, on the comparison's scale
  double ci_lo = 0, ci_hi = 0;  // the confidence sequence for it (may be ±inf: too few blocks)
  double level = 0.90;          // the sequence's coverage (1 - 2 alpha: the TOST convention)
  std::string ci_method;
  // p for "the effect is within ±margin" (the A/A control: for "no difference"),
  // always-valid or exact in a fixed design; p_holm: Holm across the family.
  double p_value = 1, p_holm = 1;
  std::string p_method;
  bool significant = false;     // p_holm < alpha (the A/A: Holm over the A/A's own family) and CI excludes 0
  bool equivalent = false;      // the whole interval within ±margin
  bool outside_margin = false;  // the whole interval beyond ±margin
  double bound = 0;             // the interval's largest |end|: "no effect beyond ±bound" (inf: none shown)
  std::size_t blocks_needed = 0;  // blocks the interval would need to decide at this noise (0: unknown)
  double median_config = 0, median_baseline = 0;  // raw medians, for the report
  std::string drift;            // non-empty: a change in d that changes the conclusion
  bool primary = false;         // in the primary Holm family (MetricInfo::primary)
  // The smallest and largest d on the comparison's scale (ratio: minus one): every
  // block lies within them. NaN without pairs.
  double range_lo = 0, range_hi = 0;
  std::size_t equal_blocks = 0;  // n when d is exactly 0 in every block ("equal in all n blocks"), else 0
  // The sign sequence's half-width on d's scale (inf while unbounded; NaN: not known,
  // the interval's own is used): what the projections of "more blocks" scale,
  // whichever method made the interval.
  double sequence_half_width = NAN;
  // The whole distribution (docs/statistics.md, "Not perturbed means the whole
  // distribution"). The mean of d on the comparison's scale (ratio: exp(mean) - 1) and
  // the sequential t-test's interval for it (±inf while it has none); the blocks whose
  // d lies beyond the margin on the side of the mean, and the median of their raw
  // differences config - baseline in the metric's unit ("1 run in 4: +64"); and
  // median_only: the median's interval is within the margin, but the mean is shown
  // beyond it, or sits beyond it with the blocks beyond the margin all (or
  // significantly more) on its side: an intermittent effect, never "not perturbed".
  double mean_effect = NAN, mean_lo = -INFINITY, mean_hi = INFINITY;
  std::size_t tail_blocks = 0;
  double tail_size = NAN;
  bool median_only = false;
  bool mean_beyond = false;  // the mean's whole interval beyond the margin
  // Within the margin in every way above, but on fewer blocks than an effect on 1 run
  // in 4 needs to have shown (analysis/check.h intermittent_cover_blocks): not yet
  // "not perturbed", and blocks_needed names that count.
  bool unseen_runs = false;
  // The doses of its metric the intermittent cover is split over (the metric's
  // levels it is compared at, the A/A control aside; 1 for the A/A control itself).
  std::size_t cover_doses = 1;
  // Readings in its pairs (either side) that were multiplexed but ran, so their values
  // are raw counts scaled up (AnalysisOptions::allow_multiplex let them be compared),
  // and the largest such scale. 0 and 1 for a driver metric or an exact counter.
  std::size_t scaled_runs = 0;
  double max_scale = 1;
};

// "+4.1% [+3.2%, +5.0%]" (ratio) or "+2 per run [+1, +3]", "+1.5 ms per run [...]"
// (difference, in the metric's unit); an unbounded end prints as ∞; exact counts (no
// interval: the simulated PMU) as "-3.3% (exact)".
std::string effect_text(const Comparison& c, const std::string& unit);
// One value in the metric's unit: "+64" (a count), "+1.50 ms" (a time), "+∞", "n/a".
std::string value_text(double v, const std::string& unit, bool sign);
// "±1%" (ratio) or "±0.5 per run", "±1 µs per run" (difference).
std::string margin_text(const Comparison& c, const std::string& unit);
// "±2.4%" / "±3 per run": the bound that holds, or "" when the interval is unbounded.
std::string bound_text(const Comparison& c, const std::string& unit);
// The end of an interval that excludes 0, said as what it shows: "at least +28%",
// "at least 12% lower", "at least +3 per run", "at least 1.5 ms per run lower"; "" when
// the interval holds 0, is not finite at that end, or the counts are exact.
std::string least_text(const Comparison& c, const std::string& unit);
// Exact counts (analysis/deterministic.h): a fraction as "+7.30%" ("n/a" when not
// finite, never "-0.00%"), a count as "1234", and a comparison as
// "held: +7.30% (1234 vs 1150)".
std::string exact_percent_text(double fraction);
std::string exact_count_text(double v);
std::string exact_effect_text(const Comparison& c);

// A comparison of metric `metric` in configuration `c` against `baseline`, with the
// fields both analyses fill from the plan; the statistics are left to the analysis.
Comparison comparison_of(const Plan& plan, std::size_t metric, const Configuration& c, std::size_t baseline);

// Per metric and dose level, across the layout conditions of that level.
struct LevelVerdict {
  std::size_t metric = 0;
  std::size_t level_index = 0;
  int dose = 0;
  std::string level_label;
  Verdict verdict = Verdict::inconclusive;
  std::string reason;                   // one line, e.g. "held: +4.1% [+3.2%, +5.0%], Holm p = 0.0002"
  std::vector<std::size_t> comparisons; // into Findings::comparisons, one per layout
  // Decided on values scaled from multiplexed counts (--allow-multiplex): the verdict
  // is labelled "scaled" wherever it is shown.
  bool scaled = false;
};

// Page's L test: does the metric grow (or shrink) with the dose? Per metric, per layout,
// over the prefix levels (dose 1..N) in the blocks where all of them ran.
struct Trend {
  std::size_t metric = 0;
  Layout layout = Layout::held;
  std::size_t levels = 0, blocks = 0;
  double L = 0;
  double p_value = 1;        // one-sided, increasing with the dose
  double p_decreasing = 1;   // one-sided, decreasing with the dose
  std::string method;
};

// A run that breaks an assumption of the comparison (the verdict "incomparable").
struct IncomparableRun {
  std::size_t run_index = 0;
  std::size_t config = 0;
  std::string why;  // "exited with code 1 (baseline exits 0)", "output digest differs", "task-clock multiplexed (x1.31)"
};

// How far a counter's readings can be trusted (analysis/counter_validity.h).
// One counter in one configuration, over its measured runs (warm-ups excluded).
struct CounterRunning {
  std::size_t config = 0;         // plan config index
  std::size_t runs = 0;           // measured runs with this reading
  // time_running / time_enabled over those runs: 1 exact, < 1 multiplexed, 0 never ran.
  double running_min = 0, running_median = 0;
  std::size_t scaled_runs = 0;    // multiplexed but ran: the value is the raw count scaled up
  double max_scale = 1;           // the largest time_enabled / time_running among them
  std::size_t never_ran = 0;      // time running 0: no value at all
  std::size_t faults = 0;         // ran, but the count is no value (reads zero or negative)
  // At least two runs, each with a value, all the same.
  bool identical = false;
};

// Whether a counter gave the same count in every run of one configuration, run once
// per block: the A/A control (the baseline and its duplicate) when it counts the
// counter, else the counter's reference (the level that counts it alone, held layout:
// under the counter observer the A/A copy counts nothing).
enum class Determinism {
  not_known,      // no such runs, fewer than two values, or scaled or faulty in some run
  deterministic,  // the same exact count in every one of those runs
  varies,         // exact counts that differ between them
};
// "not-known", "deterministic", "varies".
std::string_view determinism_key(Determinism d);

struct CounterValidity {
  std::size_t metric = 0;               // into Findings::metrics (a counter)
  std::vector<CounterRunning> configs;  // plan order; configurations that count it
  Determinism determinism = Determinism::not_known;
  // Which runs it was judged on and what they showed, in a phrase: "the same count
  // (8000000) in all 12 A/A runs", "varies over the 6 runs of counters=1[cycles]/held:
  // 1000 to 1100 (10% of the smallest)", "scaled or faulty in 3 of 20 A/A runs: no
  // exact count to compare", "no A/A or reference runs count it".
  std::string determinism_text;
  std::size_t scaled_runs = 0;          // over every configuration
  std::size_t never_ran = 0, faults = 0;
};

struct AAControl {
  bool ok = true;           // false: the A/A control shows a difference for some metric
  std::string reason;       // which metric(s), with the effect and CI
  std::vector<std::size_t> comparisons;  // into Findings::comparisons
};

struct Findings {
  std::vector<MetricInfo> metrics;
  std::vector<Comparison> comparisons;
  std::vector<LevelVerdict> verdicts;    // metric-major, then level order
  std::vector<Trend> trends;
  AAControl aa;
  std::vector<IncomparableRun> incomparable;
  // Per counter metric that was read: its running fraction, scaling and faults per
  // configuration, and whether the A/A runs gave one exact count.
  std::vector<CounterValidity> counters;
  std::size_t runs = 0;                  // run lines analysed (warm-ups excluded)
  std::size_t measured_blocks = 0;       // complete measured blocks
  std::size_t warmup_runs_dropped = 0;
  double margin = 0.01, alpha = 0.05;
  std::size_t looks_planned = 1;         // looks the live check took (informational: every look is valid)
  std::vector<std::string> notes;        // warm-up transients dropped, drift, scales, ...
  // Per metric: the pooled standard deviation of d over its comparisons (the t-test's
  // scale floor; 0 below two pairs), on each comparison's scale.
  std::vector<double> spread;
  // Per metric: that spread's degrees of freedom, the sum of n - 1 over the comparisons
  // pooled (the t-test's: stats/magnitude.h mean_sequence's floor_df).
  std::vector<double> spread_df;
  // Per metric: the median over its comparisons of two pairs or more of their d's
  // interquartile range, scaled to a standard deviation (IQR / 1.349: the noise near
  // the median, which the sign sequence's width follows, not swayed by the far
  // shoulders of a bimodal d; 0 when none has two pairs). For the forecast.
  std::vector<double> robust_spread;
  // The worst verdict per metric over its levels (perturbed > layout > incomparable >
  // inconclusive > not perturbed), for the one-line summary; index = metric.
  std::vector<Verdict> metric_verdicts;
  // True when every level verdict of the primary family (MetricInfo::primary) is
  // decided (not inconclusive, or inconclusive for a reason more runs cannot change):
  // the question asked is answered and the sweep may stop.
  bool decisive = false;
  // The same over every metric's verdicts, rusage included.
  bool all_decided = false;
  // decisive and all_decided without the exception: no verdict of the family is
  // inconclusive at all. decisive && !answered: the rest is out of reach within the
  // plan's cap (--max-runs), which a resume may raise.
  bool answered = false;
  bool all_answered = false;
  // The counts came from a deterministic source (the simulated PMU): effects are exact
  // ratios of one run per configuration, with no interval and no p-value (those fields
  // are NaN and their methods say why); see analysis/deterministic.h.
  bool deterministic = false;
};

// One level's verdict as an analysis judges it.
struct LevelJudgement {
  Verdict verdict = Verdict::inconclusive;
  std::string reason;
  // Inconclusive for a reason more runs cannot change (a metric too rare to compare
  // as a ratio): it does not keep the sweep going.
  bool final = false;
  bool scaled = false;  // LevelVerdict::scaled
};
// Judges one metric at one level from the indexes of its comparisons (A/A excluded).
using LevelJudge =
    std::function<LevelJudgement(std::size_t metric, std::size_t level, const std::vector<std::size_t>& comparisons)>;

// Fills f.verdicts (metric-major, then level order; one per judged metric
// (MetricInfo::judged) and level with a comparison other than the A/A control), f.metric_verdicts (the worst per metric:
// perturbed > layout > incomparable > inconclusive > not perturbed), f.decisive (there
// are primary verdicts, and none is inconclusive unless `final`) and f.all_decided (the
// same over every verdict), calling `judge`
// once per metric and level. f.metrics and f.comparisons must be filled.
void judge_levels(const Plan& plan, Findings& f, const LevelJudge& judge);

}  // namespace obscheck
