// Calibration: does the paired pipeline keep its promises on simulated experiments
// where the truth is known? Each TEST_CASE is one noise model so CTest runs them in
// parallel. An experiment is 2n runs in time order; block i holds runs 2i and 2i+1,
// and a fair coin decides which of the two is the configuration (the randomized
// interleaved order of plan/). Everything is seeded.
//
// Why the pipeline exists: the same data analysed the naive way — all baseline runs
// first, then all configuration runs (AAA...BBB), Welch's t as if runs were iid —
// rejects far more often than alpha when the machine drifts or runs are
// autocorrelated. These tests show both.
#include <catch2/catch.hpp>

#include <cmath>
#include <cstdio>
#include <functional>
#include <vector>

#include <boost/math/distributions/binomial.hpp>

#include "stats/hypothesis.h"
#include "stats/pipeline.h"
#include "stats/rng.h"

using namespace obscheck::stats;

namespace {

constexpr std::size_t kExperiments = 1000;  // the issue asks for >= 1000
constexpr std::size_t kBlocks = 30;         // 60 runs per experiment
constexpr double kAlpha = 0.05;
constexpr double kLevel = 0.95;             // CI level 1 - alpha

// ln(x_t) noise for runs t = 0..2n-1 (the multiplicative effect is applied on top).
using NoiseModel = std::function<std::vector<double>(Rng&, std::size_t runs)>;

std::vector<double> iid_noise(Rng& rng, std::size_t runs) {
  std::vector<double> e(runs);
  for (double& v : e) v = 0.02 * rng.normal();
  return e;
}

std::vector<double> ar1_noise(Rng& rng, std::size_t runs, double phi) {
  // Stationary sd 2%.
  std::vector<double> e(runs);
  double s = 0.02 * rng.normal();
  const double innovation = 0.02 * std::sqrt(1.0 - phi * phi);
  for (double& v : e) {
    s = phi * s + innovation * rng.normal();
    v = s;
  }
  return e;
}

std::vector<double> drift_noise(Rng& rng, std::size_t runs) {
  // The machine slows down by 5% over the experiment, plus 1% iid noise.
  std::vector<double> e(runs);
  for (std::size_t t = 0; t < runs; ++t) {
    e[t] = 0.05 * static_cast<double>(t) / static_cast<double>(runs) + 0.01 * rng.normal();
  }
  return e;
}

std::vector<double> lognormal_noise(Rng& rng, std::size_t runs) {
  // Skewed, heavy-tailed additive interference: x = 100 + 2 LogNormal(0, 1) in ln form.
  std::vector<double> e(runs);
  for (double& v : e) v = std::log(100.0 + 2.0 * std::exp(rng.normal())) - std::log(100.0);
  return e;
}

struct Outcome {
  std::size_t rejections = 0;  // pipeline p < alpha
  std::size_t covered = 0;     // pipeline CI contains the true log ratio
  std::size_t naive_rejections = 0;
};

Outcome simulate(const NoiseModel& noise, double effect, std::uint64_t seed, bool naive) {
  Rng rng(seed);
  Outcome out;
  const double truth = std::log1p(effect);
  std::vector<double> conf(kBlocks), base(kBlocks), first(kBlocks), second(kBlocks);
  for (std::size_t e = 0; e < kExperiments; ++e) {
    const auto ln = noise(rng, 2 * kBlocks);
    for (std::size_t i = 0; i < kBlocks; ++i) {
      const bool config_first = rng.coin();
      const double a = ln[2 * i], b = ln[2 * i + 1];
      conf[i] = 100.0 * std::exp((config_first ? a : b) + truth);
      base[i] = 100.0 * std::exp(config_first ? b : a);
    }
    PairedOptions o;
    o.alpha = kAlpha;
    o.seed = seed * 1000003 + e;
    const auto r = paired_log_effect(conf, base, o);
    if (r.p_value < kAlpha) ++out.rejections;
    if (r.ci_log.contains(truth)) ++out.covered;

    if (naive) {
      // AAA...BBB: baseline in the first half of the runs, configuration in the second.
      for (std::size_t i = 0; i < kBlocks; ++i) {
        first[i] = 100.0 * std::exp(ln[i]);
        second[i] = 100.0 * std::exp(ln[kBlocks + i] + truth);
      }
      if (welch_t(second, first, kLevel).p_value < kAlpha) ++out.naive_rejections;
    }
  }
  return out;
}

// Two-sided 95% binomial bounds for a count out of kExperiments with probability p.
std::size_t upper_bound_count(double p) {
  return static_cast<std::size_t>(
      boost::math::quantile(boost::math::binomial(static_cast<double>(kExperiments), p), 0.975));
}
std::size_t lower_bound_count(double p) {
  return static_cast<std::size_t>(
      boost::math::quantile(boost::math::binomial(static_cast<double>(kExperiments), p), 0.025));
}

// The whole check for one noise model. `naive_must_fail`: whether the naive analysis is
// expected to exceed the bound (drift, autocorrelation) — asserted, not just printed.
void calibrate(const char* name, const NoiseModel& noise, std::uint64_t seed, bool naive_must_fail) {
  const auto null = simulate(noise, 0.0, seed, true);
  const std::size_t fp_bound = upper_bound_count(kAlpha);
  const std::size_t cover_bound = lower_bound_count(kLevel);
  const auto p2 = simulate(noise, 0.02, seed + 1, false);
  const auto p5 = simulate(noise, 0.05, seed + 2, false);
  std::printf(
      "%-14s false positives %4zu/%zu (bound %zu), naive AAA..BBB Welch %4zu/%zu; coverage %4zu/%zu "
      "(bound %zu); power at 2%%: %.3f (coverage %zu); power at 5%%: %.3f (coverage %zu)\n",
      name, null.rejections, kExperiments, fp_bound, null.naive_rejections, kExperiments,
      null.covered, kExperiments, cover_bound,
      static_cast<double>(p2.rejections) / kExperiments, p2.covered,
      static_cast<double>(p5.rejections) / kExperiments, p5.covered);
  CHECK(null.rejections <= fp_bound);
  CHECK(null.covered >= cover_bound);
  CHECK(p2.covered >= cover_bound);
  CHECK(p5.covered >= cover_bound);
  if (naive_must_fail) CHECK(null.naive_rejections > fp_bound);
}

}  // namespace

TEST_CASE("calibration: iid noise") {
  calibrate("iid", iid_noise, 1001, false);
}

TEST_CASE("calibration: AR(1) phi = 0.5") {
  calibrate("AR(1) 0.5", [](Rng& r, std::size_t n) { return ar1_noise(r, n, 0.5); }, 2001, true);
}

TEST_CASE("calibration: AR(1) phi = 0.9") {
  calibrate("AR(1) 0.9", [](Rng& r, std::size_t n) { return ar1_noise(r, n, 0.9); }, 3001, true);
}

TEST_CASE("calibration: linear drift") {
  calibrate("linear drift", drift_noise, 4001, true);
}

TEST_CASE("calibration: lognormal noise") {
  calibrate("lognormal", lognormal_noise, 5001, false);
}
