// Inference that uses the size of the paired differences, and the exact tests of a
// design whose number of blocks was fixed before the first run. Companions of the
// sign-based confidence sequence (stats/sequential.h); analysis/check_inference.cpp combines them.
//
// The impossibility these answer to: a test valid under "d is symmetric about 0" alone
// (what randomising within a block gives) sees at most the 2^n sign patterns of n
// blocks, so its p-value is at least 2^(1-n) (two-sided); no e-process on signs,
// signed ranks or a bounded transform of d can beat that. Deciding a giant effect in
// 3-4 blocks at a family-wise alpha therefore needs an assumption on the noise's
// shape: the magnitude test below assumes Gaussian noise of d (whatever its variance),
// and the analysis floors its scale by the metric's pooled spread so that a bimodal
// host's rare run of equal-looking blocks cannot pass for a tiny variance, taking that
// spread on its own degrees of freedom, those of all the metric's comparisons, so that
// an honest but wide bimodal scale does not also pay for a comparison's few blocks
// (docs/statistics.md, "Magnitudes").
//
// 1. The sequential t-test: the Bayes factor for "mean of d = 0" against a normal
//    prior N(0, g) on the standardised effect delta = mu / sigma, with the right-Haar
//    prior 1/sigma on the scale. It is a nonnegative supermartingale under every
//    Gaussian null whatever sigma (Perez-Ortiz, Lardy, de Heide and Grunwald,
//    "E-statistics, group invariance and anytime-valid testing"), so by Ville's
//    inequality it exceeds 1/alpha at some n with probability at most alpha. Its closed
//    form (Rouder, Speckman, Sun, Morey and Iverson, "Bayesian t tests for accepting and
//    rejecting the null hypothesis", with g fixed), t the one-sample t of d, nu = n - 1:
//
//      BF(n, t) = (1 + n g)^(-1/2) [ (1 + t^2/nu) / (1 + t^2/(nu (1 + n g))) ]^(n/2)
//
//    It rises with |t| to (1 + n g)^((n-1)/2). Its confidence sequence for the mean is
//    {m : BF(d - m) < 1/alpha} = mean ± c_n s / sqrt(n), c_n the root of BF(n, c) = 1/alpha.
// 2. The running range [min d, max d]: once one value lies on each side of the median
//    it covers it for ever, so from n0 blocks on it covers the median at every n at
//    once, failing with probability at most 2^(1 - n0). A metric equal in every block
//    is decided by it as soon as that probability is within the share of alpha it has.
// 3. Fixed designs: the exact binomial sign test and the exact order-statistic
//    interval [d_(k), d_(n+1-k)] for the median (ties at the null dropped, as the sign
//    test does; the interval is closed, conservative for ties).
#pragma once

#include <cstddef>
#include <span>

namespace obscheck::stats {

// The prior's variance of the standardised effect. Its maximum evidence at n blocks is
// (1 + n g)^((n-1)/2): with g = 100, 401^1.5 = 8,030 at 4 blocks, enough for an effect
// of many standard deviations (a x100 slowdown) to pass alpha = 0.01 / 30; a smaller g
// needs more blocks for a giant effect, a larger one more evidence for a moderate one
// (the factor (1 + n g)^(-1/2)). Measured: docs/statistics.md, "Magnitudes".
inline constexpr double kMagnitudePriorG = 100.0;

// ln BF(n, t) as above; n >= 2 (n < 2: 0, no evidence), t finite, g > 0.
//
// With a scale of nu degrees of freedom (nu >= n - 1; nu <= 0 means n - 1): the same
// Bayes factor when the sum of squares that estimates sigma has nu degrees of freedom
// and is independent of the mean of d, as a scale pooled over many comparisons of
// one noise is (t = mean sqrt(n) / s, s^2 that sum over nu):
//
//   BF(n, t; nu) = (1 + n g)^(-1/2) [ (1 + t^2/nu) / (1 + t^2/(nu (1 + n g))) ]^((nu+1)/2)
//
// (the right-Haar prior 1/sigma integrated out over the mean's and the scale's
// likelihoods together; nu = n - 1 is the one-sample form above). More degrees of
// freedom trust the scale more: at nu -> infinity it is the z-test's mixture
// (1 + n g)^(-1/2) exp(t^2/2 · n g / (1 + n g)).
double safe_t_log_bf(std::size_t n, double t, double g = kMagnitudePriorG, double nu = 0);

// The |t| at which BF(n, t; nu) reaches 1/alpha: c_n. Infinite when no t can reach
// it ((1 + n g)^(nu/2) < 1/alpha: at nu = n - 1, (1 + n g)^((n-1)/2)) or n < 2.
double safe_t_critical(std::size_t n, double alpha, double g = kMagnitudePriorG, double nu = 0);

// The smallest n at which BF can reach 1/alpha at all.
std::size_t magnitude_blocks_to_decide(double alpha, double g = kMagnitudePriorG);

struct MeanSequence {
  std::size_t n = 0;
  double mean = 0;        // of d
  double scale = 0;       // the standard deviation used: max(sample sd, floor)
  double df = 0;          // its degrees of freedom: max(floor_df, n - 1) under a floor, else n - 1
  double lo = 0, hi = 0;  // the 1 - alpha confidence sequence for the mean (may be ±inf)
  double p_value = 1;     // min(1, 1 / BF) at the null: anytime-valid, two-sided
};

// The sequential t-test's sequence and p-value for the mean of d. `scale_floor` >= 0
// is a lower bound on the standard deviation used (a smaller t: evidence only falls, so
// validity under Gaussian noise is kept). `floor_df` is the floor's own degrees of
// freedom (a spread pooled over comparisons that share one noise: the sum of their
// n - 1): when it exceeds n - 1 (and the floor is positive) the evidence is
// BF(n, t; floor_df) at the larger of the two scales, which trusts the pooled scale as
// far as its degrees of freedom allow (d's own sd, where larger, only lowers t); else
// it is the one-sample BF(n, t). The pooled form assumes that d of the comparisons
// pooled share one Gaussian scale (one program on one host, paired alike); a
// comparison truly noisier than its pool is judged on too many degrees of freedom. A
// zero scale (every d equal, no floor) gives no evidence: interval unbounded, p = 1 —
// equal values are the range's to decide. Throws std::invalid_argument on a
// non-finite value, alpha outside (0, 1), a negative or non-finite floor, or a
// negative or non-finite floor_df.
MeanSequence mean_sequence(std::span<const double> d, double alpha, double scale_floor = 0, double null = 0,
                           double g = kMagnitudePriorG, double floor_df = 0);

// The smallest n0 with 2^(1 - n0) <= miscoverage: from n0 blocks on, the running range
// is a confidence sequence for the median at 1 - miscoverage. miscoverage in (0, 1].
std::size_t range_first_blocks(double miscoverage);

// Exact two-sided binomial sign test of "median = 0" with `above` values above and
// `below` below (ties dropped): min(1, 2 P(Bin(t, 1/2) <= min(above, below))).
double sign_test_p(std::size_t above, std::size_t below);

struct OrderInterval {
  double lo = 0, hi = 0;  // ±inf when no k reaches the coverage
  std::size_t k = 0;      // the order statistics used (0: none)
  double coverage = 1;    // exact: 1 - 2 P(Bin(n, 1/2) <= k - 1)
};

// The exact fixed-n interval for the median: [d_(k), d_(n+1-k)] with the largest k
// whose coverage is at least 1 - alpha. Throws std::invalid_argument on a non-finite
// value or alpha outside (0, 1).
OrderInterval exact_median_interval(std::span<const double> d, double alpha);

// What of that interval depends on n and alpha alone, its k and coverage: comparisons
// of the same n can share it (at a large n the binomial sum costs more than the
// order statistics). Throws std::invalid_argument for alpha outside (0, 1).
struct MedianRank {
  std::size_t k = 0;
  double coverage = 1;
};
MedianRank exact_median_rank(std::size_t n, double alpha);
// exact_median_interval(d, alpha) from rank = exact_median_rank(d.size(), alpha).
// Throws std::invalid_argument on a non-finite value or a rank beyond d's middle.
OrderInterval exact_median_interval(std::span<const double> d, const MedianRank& rank);

}  // namespace obscheck::stats
