// Descriptive statistics on one sample.
//
// Every function takes the sample as std::span<const double>, never modifies it, and
// throws std::invalid_argument when a value is NaN or infinite or when the sample is
// too small for the statistic to be defined (the minimum n is stated per function).
// "All values equal" is always legal: spreads are then exactly 0.
#pragma once

#include <cstddef>
#include <limits>
#include <span>
#include <vector>

namespace obscheck::stats {

// Arithmetic mean, summed with Neumaier's compensated summation so that n = 10^7
// values of similar magnitude lose no more than a few ulps. n >= 1.
double mean(std::span<const double> x);

// Sample variance with divisor n - 1 (two-pass: mean first, then squared
// deviations). n >= 2 (undefined for n = 1). All values equal -> 0.
double variance(std::span<const double> x);
// The same about a mean the caller already has for x, without variance's checks: for
// values finite by construction (bootstrap replicates). n >= 2.
double variance_about(std::span<const double> x, double mean);

// sqrt(variance(x)). n >= 2.
double stddev(std::span<const double> x);

// Quantile by Hyndman & Fan (1996) definition 7 — the default of R's quantile() and
// NumPy's percentile(): with the sorted sample x_(0) <= ... <= x_(n-1) and
// h = (n - 1) p, Q(p) = x_(floor h) + (h - floor h) (x_(floor h + 1) - x_(floor h)).
// Q(0) = min, Q(1) = max, Q(0.5) = median. n >= 1, 0 <= p <= 1.
double quantile(std::span<const double> x, double p);

// The same on data the caller has already sorted ascending (not checked beyond
// finiteness, O(1)).
double quantile_sorted(std::span<const double> sorted, double p);

// Median: the middle value (n odd) or the mean of the two middle values (n even).
// n >= 1. O(n) expected (selection, not a full sort).
double median(std::span<const double> x);

// Median absolute deviation from the median, unscaled: median(|x_i - median(x)|).
// Multiply by kMadNormalScale for a consistent estimate of sigma under normality.
// n >= 1 (n = 1 -> 0).
double mad(std::span<const double> x);

// 1 / Phi^-1(3/4): MAD * this estimates the standard deviation of normal data.
inline constexpr double kMadNormalScale = 1.482602218505602;

// Interquartile range Q(0.75) - Q(0.25), definition 7 as in quantile(). n >= 1.
double iqr(std::span<const double> x);

// Tukey's five numbers with definition-7 quartiles (not Tukey's hinges; for n = 5
// they agree). n >= 1.
struct FiveNumber {
  double min, q1, median, q3, max;
};
FiveNumber five_number(std::span<const double> x);

// Coefficient of variation stddev(x) / |mean(x)|. n >= 2; throws when the mean is 0
// (the ratio is undefined).
double cv(std::span<const double> x);

// Welford's (1962) single-pass mean and variance, with Chan, Golub & LeVeque's (1979)
// pairwise merge. Numerically stable for long streams of nearly equal values. Holds
// no sample; O(1) memory.
class Welford {
 public:
  // Throws std::invalid_argument on NaN or infinity.
  void add(double x);
  void add(std::span<const double> xs);
  // Combine two accumulators as if all values had been added to one.
  void merge(const Welford& other);

  std::size_t count() const { return n_; }
  // n >= 1 (throws std::invalid_argument when empty).
  double mean() const;
  // Divisor n - 1; n >= 2.
  double variance() const;
  double stddev() const;
  // n >= 1.
  double min() const;
  double max() const;

 private:
  std::size_t n_ = 0;
  double mean_ = 0.0;
  double m2_ = 0.0;
  double min_ = std::numeric_limits<double>::infinity();
  double max_ = -std::numeric_limits<double>::infinity();
};

// A sorted copy of x (after the finiteness check). Useful to compute several
// quantiles at once with quantile_sorted().
std::vector<double> sorted_copy(std::span<const double> x, const char* where = "sorted_copy");

}  // namespace obscheck::stats
