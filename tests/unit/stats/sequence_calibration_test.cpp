// Calibration of the methods behind the check's verdicts (analysis/check.h) on
// simulated noise shaped like a 2-vCPU virtual machine's: each run independently fast
// or slow (a third of them 57% slower), with a heavy tail (Student's t with 2 degrees
// of freedom), and pairs of runs per block. The truth is known, everything is seeded,
// and each rate is checked against its promise with the binomial sampling error of
// the number of simulations allowed for (three standard errors).
//
// What is checked:
//   - the confidence sequence covers the median at every look at once (looks after
//     every 10 blocks up to 500): the anytime promise, not only the fixed-n one;
//   - the always-valid p-value, looked at as often, rejects a true null at most alpha;
//   - Pettitt's drift test flags at most alpha of drift-free series, and finds a step;
//   - the sequential t-test, looked at after every block, rejects a Gaussian null at
//     most alpha and its sequence covers the mean at every look at once; on the
//     bimodal noise, floored by the pooled spread of the check's other comparisons (as
//     analysis/check.cpp floors it), it still rejects a true null at most alpha.
#include <catch2/catch.hpp>

#include <cmath>
#include <vector>

#include "stats/changepoint.h"
#include "stats/magnitude.h"
#include "stats/rng.h"
#include "stats/sequential.h"

using namespace obscheck::stats;

namespace {

constexpr std::size_t kSimulations = 1000;

// ln of one run's time: fast or slow mode, a tight spread, a heavy tail.
double run_log_time(Rng& rng) {
  const double mode = rng.uniform() < 1.0 / 3 ? std::log(1.57) : 0.0;
  // Student's t(2) = N / sqrt(chi2_2 / 2); chi2_2 / 2 = -ln(U).
  const double t2 = rng.normal() / std::sqrt(-std::log(rng.uniform_open()));
  return mode + 0.01 * t2;
}

// d of one block: the configuration's run against the baseline's, on the log scale.
double block_d(Rng& rng, double effect) { return run_log_time(rng) + std::log1p(effect) - run_log_time(rng); }

// Upper limit of a rate that should be at most `p`: p plus three binomial standard errors.
double allowed(double p) { return p + 3 * std::sqrt(p * (1 - p) / static_cast<double>(kSimulations)); }

}  // namespace

TEST_CASE("calibration: the confidence sequence covers the median at every look at once") {
  Rng rng(20261123);
  const double alpha = 0.10;  // the check's 90% sequence
  std::size_t missed = 0;
  for (std::size_t sim = 0; sim < kSimulations; ++sim) {
    std::vector<double> d;
    bool miss = false;
    for (std::size_t n = 1; n <= 500; ++n) {
      d.push_back(block_d(rng, 0.0));
      if (n % 10 != 0) continue;
      const MedianSequence s = median_sequence(d, alpha);
      // The true median of d is 0: the difference of two identically distributed runs.
      if (s.lo > 0 || s.hi < 0) miss = true;
    }
    missed += miss;
  }
  const double rate = static_cast<double>(missed) / kSimulations;
  INFO("missed at some look in " << missed << " of " << kSimulations);
  CHECK(rate <= allowed(alpha));
}

TEST_CASE("calibration: always-valid p-values looked at 50 times reject a true null at most alpha") {
  Rng rng(7);
  std::size_t rejected = 0;
  for (std::size_t sim = 0; sim < kSimulations; ++sim) {
    std::vector<double> d;
    bool reject = false;
    for (std::size_t n = 1; n <= 500 && !reject; ++n) {
      d.push_back(block_d(rng, 0.0));
      if (n % 10 == 0 && median_sequence(d, 0.10).p_value < 0.05) reject = true;
    }
    rejected += reject;
  }
  INFO("rejected in " << rejected << " of " << kSimulations);
  CHECK(static_cast<double>(rejected) / kSimulations <= allowed(0.05));
}

TEST_CASE("calibration: Pettitt's test flags at most alpha of drift-free heavy-tailed series, and finds a step") {
  Rng rng(99);
  for (std::size_t n : {50, 200, 500}) {
    std::size_t flagged = 0, found = 0;
    for (std::size_t sim = 0; sim < kSimulations; ++sim) {
      std::vector<double> calm(n), step(n);
      for (std::size_t i = 0; i < n; ++i) {
        calm[i] = block_d(rng, 0.0);
        step[i] = block_d(rng, i < n / 2 ? 0.0 : 0.10);  // +10% from half-way
      }
      flagged += pettitt_test(calm).p_value < 0.05;
      found += pettitt_test(step).p_value < 0.05;
    }
    INFO("n = " << n << ": flagged " << flagged << ", found " << found << " of " << kSimulations);
    CHECK(static_cast<double>(flagged) / kSimulations <= allowed(0.05));
    if (n >= 200) CHECK(static_cast<double>(found) / kSimulations >= 0.90);
  }
}

TEST_CASE("calibration: the sequential t-test looked at after every block keeps alpha on Gaussian noise") {
  Rng rng(31);
  const double alpha = 0.05;
  std::size_t rejected = 0, missed = 0;
  for (std::size_t sim = 0; sim < kSimulations; ++sim) {
    std::vector<double> d, shifted;
    bool reject = false, miss = false;
    for (std::size_t n = 1; n <= 200; ++n) {
      const double z = 0.3 * rng.normal();  // sigma is unknown to the test
      d.push_back(z);
      shifted.push_back(z + 5.0);
      if (n < 2) continue;
      reject |= mean_sequence(d, alpha).p_value < alpha;
      const MeanSequence s = mean_sequence(shifted, alpha);
      miss |= s.lo > 5.0 || s.hi < 5.0;
    }
    rejected += reject;
    missed += miss;
  }
  INFO("rejected in " << rejected << ", missed the mean in " << missed << " of " << kSimulations);
  CHECK(static_cast<double>(rejected) / kSimulations <= allowed(alpha));
  CHECK(static_cast<double>(missed) / kSimulations <= allowed(alpha));
}

TEST_CASE("calibration: on bimodal noise the floored t-test keeps alpha over its first 30 blocks") {
  // The trap: d near +0.45 in a few blocks in a row has a tiny sample spread. The
  // floor is the pooled spread of this comparison and six others of the same blocks
  // (a four-counter check has more), as the analysis pools a metric's comparisons.
  Rng rng(32);
  const double alpha = 0.05;
  constexpr std::size_t kOthers = 6;
  std::size_t floored = 0, bare = 0;
  for (std::size_t sim = 0; sim < kSimulations; ++sim) {
    std::vector<std::vector<double>> d(kOthers + 1);
    bool reject_floored = false, reject_bare = false;
    for (std::size_t n = 1; n <= 30; ++n) {
      for (auto& series : d) series.push_back(block_d(rng, 0.0));
      if (n < 3) continue;
      double ss = 0;
      for (const auto& series : d) ss += static_cast<double>(n - 1) * mean_sequence(series, alpha).scale *
                                         mean_sequence(series, alpha).scale;
      const double pooled = std::sqrt(ss / static_cast<double>((kOthers + 1) * (n - 1)));
      reject_floored |= mean_sequence(d[0], alpha, pooled).p_value < alpha;
      reject_bare |= mean_sequence(d[0], alpha).p_value < alpha;
    }
    floored += reject_floored;
    bare += reject_bare;
  }
  INFO("floored: rejected in " << floored << " of " << kSimulations << "; without the floor: " << bare);
  CHECK(static_cast<double>(floored) / kSimulations <= allowed(alpha));
}
