// analysis/check: the parts of the check's analysis its files share, internal to
// analysis/ (the API is check.h): the runs paired by block (check_metrics.cpp), one
// comparison's statistics (check_inference.cpp), what makes a comparison incomparable
// (check_comparability.cpp); check.cpp runs them as passes over the comparisons and
// judges them by the rule book (rules.h).
#pragma once

#include <cstddef>
#include <cstdint>
#include <limits>
#include <map>
#include <string>
#include <utility>
#include <vector>

#include "analysis/check.h"
#include "analysis/findings.h"
#include "analysis/rules.h"
#include "plan/plan.h"
#include "record/run_table.h"
#include "stats/magnitude.h"
#include "stats/special_values.h"

namespace obscheck::check_detail {

using stats::kNaN;
using stats::kInf;
inline constexpr std::size_t kNone = std::numeric_limits<std::size_t>::max();

// Measured blocks in order; per block the row of each configuration (kNone: did not run).
// One flat array of 32-bit rows, blocks by configurations: a million runs' blocks take
// a few MB, not a heap vector per block.
struct BlockRows {
  std::vector<std::size_t> blocks;  // block numbers, ascending
  std::size_t configs = 0;          // configurations per block (the plan's)
  std::vector<std::uint32_t> cells;  // [k * configs + config]: a row, or kNoRow

  static constexpr std::uint32_t kNoRow = std::numeric_limits<std::uint32_t>::max();
  std::size_t size() const { return blocks.size(); }
  // The row of `config` in the k-th block, or kNone.
  std::size_t row(std::size_t k, std::size_t config) const {
    const std::uint32_t r = cells[k * configs + config];
    return r == kNoRow ? kNone : r;
  }
};

// One comparison's paired data, beside its Comparison. Built from the table for one
// pass over one comparison at a time (series_of) and dropped after it: a journal of a
// million runs has a quarter of a million blocks, and every comparison's pairs held at
// once would outweigh the table itself.
struct Series {
  std::vector<std::uint32_t> joint;   // positions in BlockRows where both configurations ran
  std::vector<std::uint32_t> blocks;  // ... and both have the metric: the pairs (block numbers)
  std::vector<double> x, y;         // config, baseline: raw values
  std::vector<double> d;            // on the comparison's scale
  // The blocks whose d lies above / below the margin, and the median of their raw
  // differences config - baseline (NaN: none): an intermittent effect's size.
  std::size_t tail_up = 0, tail_down = 0;
  double tail_up_size = kNaN, tail_down_size = kNaN;
};

inline std::string layout_name(const Comparison& c) { return std::string(to_string(c.layout)); }

// ---- check_metrics.cpp: metrics and runs ------------------------------------------

// The check's driver metrics: those of record/run_table.h with a RunTable column.
const std::vector<DriverMetric>& check_driver_metrics();
// The column of a metric in the table (a driver metric's, or a reading's values).
const NumberColumn* column_of(const MetricInfo& m, const RunTable& t);
// max-rss is the target's only in runs whose peak exceeds obscheck's own peak before the
// exec (launch/launcher.h ExitInfo::pre_exec_maxrss_kb): the kernel keeps the larger.
// When a measured run's does not, or the journal does not record that peak, the metric
// is not judged and MetricInfo::hidden says why (docs/statistics.md, "max-rss").
void hide_censored_peaks(const RunTable& t, const BlockRows& b, Findings& f);
// Throws Error(io) when run `index` names a configuration the plan does not have.
void require_config_in_plan(const Plan& plan, std::size_t config, std::size_t index);
// The measured runs by block (warm-ups dropped and counted, a repeated trial's first
// run kept), with f's notes on incomplete blocks, warm-ups and repeats.
BlockRows index_runs(const Plan& plan, const RunTable& t, Findings& f);
// The pairs of `config` and `base` in `column` (null: the blocks where both ran only).
Series pair_series(const NumberColumn* column, const BlockRows& b, std::size_t config, std::size_t base);
// Comparison `c`'s pairs and their d on c.scale (fill_differences having set it), the
// raw values dropped: the same d as fill_differences gave, for a later pass.
Series series_of(const RunTable& t, const BlockRows& b, const Findings& f, const Comparison& c);

// ---- check.cpp: the metric's spreads --------------------------------------------------

// The spread of d about its median that the sign sequence sees: its interquartile range
// scaled to a standard deviation under normality (IQR / 1.349; Findings::robust_spread
// is its median over a metric's comparisons). n >= 2.
double central_scale(const std::vector<double>& d);

// ---- check_inference.cpp: one comparison's statistics ------------------------------

// The metric's one scale for all its comparisons (ratio, or difference for small values).
Scale scale_of(const MetricInfo& m, const NumberColumn* column, const BlockRows& b);
// The pairs' d on the comparison's scale, the raw medians and the margin (before any inference).
void fill_differences(Comparison& c, Series& s, const MetricInfo& m, Scale scale, double margin);
// d from the pairs' raw values on `scale` (fill_differences's).
void differences(Series& s, Scale scale);
// The sample standard deviation of d (0 below two pairs).
double spread_of(const std::vector<double>& d);
// The margin's region on d's scale: [ln(1 - margin), ln(1 + margin)] on the ratio
// scale, [-margin, margin] on the difference scale.
std::pair<double, double> margin_on_d(const Comparison& c);
// The blocks of s beyond c's margin on either side and the medians of their raw
// differences config - baseline (Series::tail_*); reads s.d, s.x and s.y.
void fill_tails(const Comparison& c, Series& s);
// A fixed design's exact median interval's rank by number of pairs (at the share of
// alpha its sign test has): found once for every comparison of that many pairs, where
// its binomial sum costs more than the rest of a large comparison's interval.
using MedianRanks = std::map<std::size_t, stats::MedianRank>;
stats::MedianRank fixed_median_rank(std::size_t pairs, double alpha);
// What infer() is given beside the comparison's d.
struct InferInputs {
  double alpha = 0.05;
  double floor = 0;                 // the metric's pooled spread: the t-test's scale floor
  bool fixed = false;               // a fixed design (one look)
  std::size_t max_blocks = 0;       // the largest block count a prediction names
  std::size_t magnitude_from = 0;   // the t-test takes part from this many blocks (check.h magnitude_first_blocks)
  const MedianRanks* ranks = nullptr;  // a fixed design's ranks (fixed_median_rank); null or absent: found here
  double median = kNaN;             // d's median when the first pass found it; NaN: found here
  double floor_df = 0;              // the pooled spread's degrees of freedom (sum of n - 1 over the metric's comparisons)
  std::size_t doses = 1;            // the levels the metric is compared at, A/A aside (intermittent_cover_blocks)
};
// The comparison's statistics from its d (fill_differences): its interval, its p-value
// for "within ±margin" (the A/A control's: for "no difference"), equivalence for the
// median and for the whole distribution (Comparison::median_only).
void infer(Comparison& c, const Series& s, const InferInputs& in);
// Pettitt's drift in d that changes the conclusion: {drift text, or a note when a
// change is found but ignored}.
std::pair<std::string, std::string> drift_of(const Comparison& c, const Series& s, std::size_t family,
                                             const std::string& unit);

// ---- check_comparability.cpp: incomparable runs ------------------------------------

// What makes comparisons incomparable, beside the runs it names.
struct Comparability {
  std::vector<std::string> incomparable;                  // per comparison: the reason, or empty
  std::map<std::size_t, std::string> level_incomparable;  // per level: instructions moved
};

// What breaks comparability: exit status, output, multiplexing, faults, instructions.
// Sets f.incomparable (the runs named, by run index).
Comparability check_comparability(const Plan& plan, const RunTable& t, const BlockRows& blocks, bool allow_scaled,
                                  Findings& f);

}  // namespace obscheck::check_detail
