// The slope method of Rechistov, "Pitfalls of measuring software performance": time a loop of N repetitions for several N and fit
// duration = intercept + slope * N by least squares. The slope is the cost of one more
// repetition, free of the fixed overhead of the timer and the wrapper (the intercept).
#pragma once

#include <cstddef>
#include <optional>
#include <span>

#include "stats/bootstrap.h"

namespace obscheck::stats {

struct SlopeFit {
  double slope;
  double intercept;
  std::size_t n;
  double r_squared;              // 1 when all durations lie on the line; 1 also when they are all equal
  std::optional<double> se;      // standard error of the slope, n >= 3
  std::optional<double> df;      // n - 2
  std::optional<Interval> ci;    // slope +- t_{n-2,(1+level)/2} se, n >= 3
};

// Ordinary least squares of durations on repetitions (same length).
// n >= 2 and at least two distinct repetition counts (else the slope is undefined and
// std::invalid_argument is thrown). n = 2 is the seed's two-point formula
// (d2 - d1) / (N2 - N1) with no standard error. Durations all equal -> slope 0, se 0.
SlopeFit fit_slope(std::span<const double> repetitions, std::span<const double> durations,
                   double level = 0.95);

}  // namespace obscheck::stats
