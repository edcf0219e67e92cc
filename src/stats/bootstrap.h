// Bootstrap confidence intervals (Efron & Tibshirani 1993, "An Introduction to the
// Bootstrap"): percentile and BCa for one-sample statistics and for the ratio of two
// medians; the circular block bootstrap for dependent series (Politis & Romano 1992);
// and the two-level hierarchical bootstrap of Kalibera & Jones (2013, "Rigorous
// benchmarking in reasonable time") for contexts -> runs.
//
// Every function is deterministic given BootstrapOptions::seed. Percentile limits are
// definition-7 quantiles (descriptive.h) of the B replicates at (1-level)/2 and
// (1+level)/2. NaN/inf input -> std::invalid_argument. Memory is O(n + B).
#pragma once

#include <cstddef>
#include <cstdint>
#include <span>
#include <vector>

namespace obscheck::stats {

struct Interval {
  double lo;
  double hi;
  double width() const { return hi - lo; }
  bool contains(double v) const { return lo <= v && v <= hi; }
};

// Efron & Tibshirani (1993, ch. 13/14) advise 1000-2000 replicates for percentile and
// BCa limits at 95%; 10,000 keeps the Monte Carlo error of a 2.5% quantile below
// about a tenth of its bootstrap standard error.
inline constexpr std::size_t kDefaultResamples = 10000;

struct BootstrapOptions {
  std::size_t resamples = kDefaultResamples;  // B >= 1
  double level = 0.95;                        // two-sided confidence level
  std::uint64_t seed = 0;
};

enum class Statistic { mean, median };

struct BootstrapResult {
  double estimate;      // the statistic on the original data
  Interval percentile;  // percentile interval
  Interval bca;         // bias-corrected and accelerated interval
  double z0;            // BCa bias correction
  double acceleration;  // BCa acceleration (jackknife)
  double se;            // standard deviation of the replicates
  std::size_t resamples;
};

// One-sample bootstrap of the mean or the median. n >= 2.
// Median resamples are drawn exactly in distribution without materialising a
// resample: the k-th smallest of n uniform indices is ceil(n U_(k)) with
// U_(k) ~ Beta(k, n - k + 1) (and the next order statistic conditionally), so each
// replicate costs O(1) after one sort; mean resamples cost O(n).
// The BCa z0 counts replicates equal to the estimate as half below (the median's
// bootstrap distribution is discrete); z0's proportion is clamped to
// [1/(2B), 1 - 1/(2B)]. All values equal -> every interval is [v, v].
BootstrapResult bootstrap(std::span<const double> x, Statistic statistic,
                          const BootstrapOptions& options = {});

// The sorted positions one median replicate takes: lo alone for odd n, lo and hi
// (lo <= hi) for even n, whose midpoint is the replicate.
struct MedianPositions {
  std::size_t lo, hi;
};

// The positions of all B replicates of a median bootstrap of n values. They depend on n,
// B and the seed alone, not on the values: one table, drawn once, serves every sample
// of n values (a measure's metrics all have one value per run). 16 bytes a replicate.
// n >= 2; options as bootstrap()'s (the level is not used here).
class MedianResampleTable {
 public:
  MedianResampleTable(std::size_t n, const BootstrapOptions& options);
  std::size_t n() const { return n_; }
  // Whether this table holds the draws of a bootstrap of n values with these options.
  bool serves(std::size_t n, const BootstrapOptions& options) const;

 private:
  friend Interval bootstrap_median_percentile(std::span<const double>, double, const MedianResampleTable&);
  std::size_t n_;
  BootstrapOptions options_;
  std::vector<MedianPositions> positions_;
};

// The percentile interval of bootstrap(x, Statistic::median, options) alone: the same
// replicates from the same seed, hence the same interval, without what only the other
// fields need (the jackknife, the BCa limits, a sort of the replicates: two selections
// find the quantiles). All values bit-for-bit equal -> [v, v] without drawing (every
// replicate would be v). NaN/inf input -> std::invalid_argument. n >= 2.
Interval bootstrap_median_percentile(std::span<const double> x, const BootstrapOptions& options = {});

// The same from a table drawn for x.size() values with options of this seed and number
// of resamples: the same interval, without drawing. x.size() != table.n() ->
// std::invalid_argument.
Interval bootstrap_median_percentile(std::span<const double> x, double level, const MedianResampleTable& table);

// Two independent samples, statistic median(numerator) / median(denominator), each
// sample resampled separately. Both n >= 2 and both medians must be > 0 (a ratio of
// durations or counts). BCa acceleration uses the two-sample jackknife of Efron &
// Tibshirani (1993, eq. 14.15 generalised): a = sum U^3 / (6 (sum U^2)^(3/2)) with
// U = (theta_bar_k - theta_(k,i)) / n_k over both samples k.
BootstrapResult bootstrap_ratio_of_medians(std::span<const double> numerator,
                                           std::span<const double> denominator,
                                           const BootstrapOptions& options = {});

struct BlockBootstrapResult {
  double estimate;      // mean of x
  Interval percentile;  // percentile interval of the resampled means
  double se;            // standard deviation of the resampled means
  std::size_t block_length;
  std::size_t resamples;
};

// Circular block bootstrap of the mean (Politis & Romano 1992): x is wrapped on a
// circle, ceil(n/b) blocks of length b start at uniform positions, the last one is
// cut so every resample has exactly n values. Each replicate costs O(n/b) using
// circular prefix sums, divided by k when the full blocks are drawn k at a time from
// a table of the sums of every k-tuple of windows (n^k <= 16384 entries; the same
// distribution of replicates). n < 2^32. block_length 0 -> politis_white_block_length(x).circular_blocks;
// a given block_length is clamped to [1, n]. n >= 2.
BlockBootstrapResult circular_block_bootstrap_mean(std::span<const double> x,
                                                   const BootstrapOptions& options = {},
                                                   std::size_t block_length = 0);

// Two-level hierarchical bootstrap (Kalibera & Jones 2013): resample contexts (e.g.
// process executions, machine boots) with replacement, then runs within each drawn
// context with replacement; the statistic is the mean of all resampled runs. At least
// 2 contexts, each with at least 1 run. Only the percentile interval is given.
struct HierarchicalResult {
  double estimate;
  Interval percentile;
  double se;
  std::size_t resamples;
};
HierarchicalResult hierarchical_bootstrap_mean(std::span<const std::vector<double>> contexts,
                                               const BootstrapOptions& options = {});
// Ratio of the grand means of two hierarchical samples (each resampled independently),
// as Kalibera & Jones use to report a speed-up. The denominator mean must be > 0.
HierarchicalResult hierarchical_bootstrap_ratio_of_means(
    std::span<const std::vector<double>> numerator,
    std::span<const std::vector<double>> denominator, const BootstrapOptions& options = {});

// Percentile interval of a set of replicates at the given level (definition-7
// quantiles). May reorder `replicates`. At least 1 replicate.
Interval percentile_interval(std::vector<double>& replicates, double level);

}  // namespace obscheck::stats
