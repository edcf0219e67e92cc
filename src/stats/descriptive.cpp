#include "stats/descriptive.h"

#include <algorithm>
#include <cmath>
#include <stdexcept>
#include <string>

#include "stats/validate.h"

namespace obscheck::stats {

namespace {

// Neumaier (1974) compensated sum.
double compensated_sum(std::span<const double> x) {
  double sum = 0.0, c = 0.0;
  for (double v : x) {
    const double t = sum + v;
    if (std::fabs(sum) >= std::fabs(v)) {
      c += (sum - t) + v;
    } else {
      c += (v - t) + sum;
    }
    sum = t;
  }
  return sum + c;
}

void require_probability(double p, const char* where) {
  if (!(p >= 0.0 && p <= 1.0)) {
    throw std::invalid_argument(std::string(where) + ": probability " + std::to_string(p) +
                                " must lie in [0, 1]");
  }
}

// Median of a scratch buffer, reordering it.
double median_in_place(std::vector<double>& v) {
  const std::size_t n = v.size();
  const std::size_t mid = n / 2;
  std::nth_element(v.begin(), v.begin() + mid, v.end());
  const double upper = v[mid];
  if (n % 2 == 1) return upper;
  const double lower = *std::max_element(v.begin(), v.begin() + mid);
  return lower + (upper - lower) / 2.0;
}

}  // namespace

double mean(std::span<const double> x) {
  require_sample(x, 1, "mean");
  return compensated_sum(x) / static_cast<double>(x.size());
}

double variance_about(std::span<const double> x, double mean) {
  double ss = 0.0, c = 0.0;
  for (double v : x) {
    const double d = v - mean;
    ss += d * d;
    c += d;
  }
  // Corrected two-pass formula (Chan, Golub & LeVeque 1983): subtract the rounding
  // left in the mean.
  ss -= c * c / static_cast<double>(x.size());
  return std::max(ss, 0.0) / static_cast<double>(x.size() - 1);
}

double variance(std::span<const double> x) {
  require_sample(x, 2, "variance");
  return variance_about(x, compensated_sum(x) / static_cast<double>(x.size()));
}

double stddev(std::span<const double> x) { return std::sqrt(variance(x)); }

double quantile_sorted(std::span<const double> sorted, double p) {
  require_sample(sorted, 1, "quantile");
  require_probability(p, "quantile");
  const double h = static_cast<double>(sorted.size() - 1) * p;
  const auto lo = static_cast<std::size_t>(std::floor(h));
  if (lo + 1 >= sorted.size()) return sorted.back();
  const double frac = h - static_cast<double>(lo);
  return sorted[lo] + frac * (sorted[lo + 1] - sorted[lo]);
}

std::vector<double> sorted_copy(std::span<const double> x, const char* where) {
  require_finite(x, where);
  std::vector<double> v(x.begin(), x.end());
  std::sort(v.begin(), v.end());
  return v;
}

double quantile(std::span<const double> x, double p) {
  require_sample(x, 1, "quantile");
  require_probability(p, "quantile");
  // Selection instead of a sort: the two neighbouring order statistics only.
  std::vector<double> v(x.begin(), x.end());
  const double h = static_cast<double>(v.size() - 1) * p;
  const auto lo = static_cast<std::size_t>(std::floor(h));
  std::nth_element(v.begin(), v.begin() + static_cast<std::ptrdiff_t>(lo), v.end());
  const double a = v[lo];
  if (lo + 1 >= v.size()) return a;
  const double b = *std::min_element(v.begin() + static_cast<std::ptrdiff_t>(lo) + 1, v.end());
  return a + (h - static_cast<double>(lo)) * (b - a);
}

double median(std::span<const double> x) {
  require_sample(x, 1, "median");
  std::vector<double> v(x.begin(), x.end());
  return median_in_place(v);
}

double mad(std::span<const double> x) {
  require_sample(x, 1, "mad");
  std::vector<double> v(x.begin(), x.end());
  const double m = median_in_place(v);
  for (double& e : v) e = std::fabs(e - m);
  return median_in_place(v);
}

double iqr(std::span<const double> x) {
  const auto v = sorted_copy(x, "iqr");
  require_size(v, 1, "iqr");
  return quantile_sorted(v, 0.75) - quantile_sorted(v, 0.25);
}

FiveNumber five_number(std::span<const double> x) {
  const auto v = sorted_copy(x, "five_number");
  require_size(v, 1, "five_number");
  return {v.front(), quantile_sorted(v, 0.25), quantile_sorted(v, 0.5),
          quantile_sorted(v, 0.75), v.back()};
}

double cv(std::span<const double> x) {
  require_sample(x, 2, "cv");
  const double m = mean(x);
  if (m == 0.0) {
    throw std::invalid_argument("cv: the mean is 0, so the coefficient of variation is undefined");
  }
  return stddev(x) / std::fabs(m);
}

void Welford::add(double x) {
  if (!std::isfinite(x)) {
    throw std::invalid_argument("Welford::add: value " + std::to_string(x) +
                                " is not finite; statistics need finite samples");
  }
  ++n_;
  const double delta = x - mean_;
  mean_ += delta / static_cast<double>(n_);
  m2_ += delta * (x - mean_);
  min_ = std::min(min_, x);
  max_ = std::max(max_, x);
}

void Welford::add(std::span<const double> xs) {
  for (double x : xs) add(x);
}

void Welford::merge(const Welford& o) {
  if (o.n_ == 0) return;
  if (n_ == 0) {
    *this = o;
    return;
  }
  const double na = static_cast<double>(n_), nb = static_cast<double>(o.n_);
  const double n = na + nb;
  const double delta = o.mean_ - mean_;
  mean_ += delta * nb / n;
  m2_ += o.m2_ + delta * delta * na * nb / n;
  n_ += o.n_;
  min_ = std::min(min_, o.min_);
  max_ = std::max(max_, o.max_);
}

double Welford::mean() const {
  if (n_ == 0) throw std::invalid_argument("Welford::mean: no values added");
  return mean_;
}

double Welford::variance() const {
  if (n_ < 2) {
    throw std::invalid_argument("Welford::variance: has " + std::to_string(n_) +
                                " values, needs at least 2");
  }
  return std::max(m2_, 0.0) / static_cast<double>(n_ - 1);
}

double Welford::stddev() const { return std::sqrt(variance()); }

double Welford::min() const {
  if (n_ == 0) throw std::invalid_argument("Welford::min: no values added");
  return min_;
}

double Welford::max() const {
  if (n_ == 0) throw std::invalid_argument("Welford::max: no values added");
  return max_;
}

}  // namespace obscheck::stats
