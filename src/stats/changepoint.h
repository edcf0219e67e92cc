// Warm-up and drift: where does a series change its level or its spread?
//
// Changepoints are found with PELT (Killick, Fearnhead & Eckley 2012), which returns
// the exact minimiser of  sum over segments of cost(segment) + penalty * #changepoints.
// Costs are Gaussian negative log-likelihoods (times 2, constants dropped):
//   mean model:            sum (x_i - mean_seg)^2 / sigma^2, sigma from the whole series
//                           robustly: MAD(first differences) * 1.4826 / sqrt(2), so a
//                           level shift does not inflate it;
//   mean-and-variance:     n_seg * ln(var_seg) with var_seg the segment's MLE variance,
//                           floored at 1e-6 * (whole-series variance) so constant stretches
//                           cannot produce -infinity.
// Default penalty: 3 ln(n) per changepoint, the leading term of the modified BIC of
// Zhang & Siegmund (2007) — stricter than BIC (which uses #parameters * ln n) because
// run series are mildly autocorrelated and a spurious changepoint would mark a clean
// experiment "inconclusive".
#pragma once

#include <cstddef>
#include <optional>
#include <span>
#include <vector>

namespace obscheck::stats {

enum class ChangeModel { mean, mean_and_variance };

// Zhang & Siegmund (2007) leading term: 3 ln n.
inline constexpr double kChangepointPenaltyPerLogN = 3.0;
// Shortest segment allowed: a variance needs a few points to mean anything.
inline constexpr std::size_t kChangepointMinSegment = 5;

struct ChangepointOptions {
  ChangeModel model = ChangeModel::mean_and_variance;
  double penalty = 0.0;                          // 0 -> kChangepointPenaltyPerLogN * ln(n)
  std::size_t min_segment = kChangepointMinSegment;  // >= 2
};

struct Changepoints {
  // Indices where a new segment starts, ascending, each in (0, n). Empty: no change.
  std::vector<std::size_t> starts;
  double penalty;  // the penalty actually used
};

// n >= 0 (n < 2 * min_segment -> no changepoints possible, empty result). All values
// equal -> no changepoints. NaN/inf -> std::invalid_argument.
Changepoints detect_changepoints(std::span<const double> x, const ChangepointOptions& options = {});

// the chapter "Measurement Methodology" ("CV convergence"): a rolling window's coefficient of variation
// (population standard deviation / mean, as numpy.std) is computed for the windows
// x[i - window, i), i = window..n; the first window whose CV is below `threshold`
// marks the end of warm-up and the function returns its start i - window (the number
// of leading values to drop). Unlike the seed, it returns std::nullopt rather than
// n/2 when no window is stable: "never stabilised" must not look like a measurement.
// window >= 2; windows whose mean is <= 0 never count as stable. n < window -> nullopt.
inline constexpr std::size_t kWarmupWindow = 10;      // the chapter "Measurement Methodology" default
inline constexpr double kWarmupCvThreshold = 0.05;    // the chapter "Measurement Methodology" default
std::optional<std::size_t> warmup_rolling_cv(std::span<const double> x,
                                             std::size_t window = kWarmupWindow,
                                             double threshold = kWarmupCvThreshold);


// Pettitt's test for one change in location ("A non-parametric approach to the
// change-point problem", Pettitt 1979): with r_i the mid-ranks of x,
//   U_t = 2 * sum_{i<=t} r_i - t (n + 1),   K = max_t |U_t|,   p ~= 2 exp(-6 K^2 / (n^3 + n^2)),
// the p-value approximation being conservative (it overstates p) for the sizes used
// here. Rank-based, so a heavy tail or a handful of outliers cannot make a change;
// O(n log n). `at` is the first index of the second segment (the t maximising |U_t|,
// plus one). n < 2: no change possible (p = 1, at = 0). NaN/inf, or more than 2^32 - 1
// values -> std::invalid_argument.
struct ChangeTest {
  std::size_t at = 0;
  double statistic = 0;  // K
  double p_value = 1;
};
ChangeTest pettitt_test(std::span<const double> x);

}  // namespace obscheck::stats
