#include "stats/density.h"

#include <algorithm>
#include <cmath>
#include <numbers>
#include <stdexcept>

#include "stats/descriptive.h"
#include "stats/rng.h"

namespace obscheck::stats {
namespace {

constexpr double kIqrToSigma = 1.34;      // IQR of a normal distribution in standard deviations
constexpr double kSilvermanFactor = 0.9;  // Silverman's constant (bw.nrd0)

}  // namespace

std::vector<double> jitter(std::size_t n, std::uint64_t seed) {
  std::vector<double> out;
  out.reserve(n);
  for (std::size_t i = 0; i < n; ++i) {
    Rng rng(seed + i);
    out.push_back(2 * rng.uniform() - 1);
  }
  return out;
}

double silverman_bandwidth(std::span<const double> x) {
  if (x.size() < 2) throw std::invalid_argument("silverman_bandwidth: needs at least 2 values");
  const double sd = stddev(x);
  double lo = std::min(sd, iqr(x) / kIqrToSigma);
  if (!(lo > 0)) lo = sd;
  if (!(lo > 0)) lo = std::abs(x[0]);
  if (!(lo > 0)) lo = 1;
  return kSilvermanFactor * lo * std::pow(static_cast<double>(x.size()), -0.2);
}

std::vector<double> kde(std::span<const double> x, double h, std::span<const double> at) {
  std::vector<double> out(at.size(), 0.0);
  if (x.empty() || !(h > 0)) return out;
  const double norm = 1 / (static_cast<double>(x.size()) * h * std::sqrt(2 * std::numbers::pi));
  for (std::size_t k = 0; k < at.size(); ++k) {
    double sum = 0;
    for (double xi : x) {
      const double u = (at[k] - xi) / h;
      sum += std::exp(-0.5 * u * u);
    }
    out[k] = sum * norm;
  }
  return out;
}

}  // namespace obscheck::stats
