// Serial dependence: autocovariance, standard errors of the mean that survive
// autocorrelation, effective sample size, and the automatic block length for the
// block bootstrap.
//
// Why this exists (Kołaczkowski, "Estimating Benchmark Results Uncertainty"): consecutive runs share state (frequency, caches,
// background load), so they are positively correlated and s / sqrt(n) understates
// the error of the mean. Var(mean) = (1/n) (gamma(0) + 2 sum_k (1 - k/n) gamma(k)).
//
// Conventions: autocovariances use divisor n (gamma(k) = (1/n) sum_{i<n-k}
// (x_i - mean)(x_{i+k} - mean)), the estimator that keeps the sequence positive
// semi-definite. All functions reject NaN/inf with std::invalid_argument.
#pragma once

#include <cstddef>
#include <span>
#include <vector>

namespace obscheck::stats {

// gamma(0..max_lag), divisor n. max_lag is clamped to n - 1. n >= 1.
// All values equal -> all zeros. O(n * max_lag).
std::vector<double> autocovariance(std::span<const double> x, std::size_t max_lag);

// rho(k) = gamma(k) / gamma(0), k = 0..max_lag (clamped to n - 1). n >= 1. When
// gamma(0) = 0 (all values equal) rho(0) = 1 and rho(k >= 1) = 0 by convention.
std::vector<double> autocorrelation(std::span<const double> x, std::size_t max_lag);

// s / sqrt(n) with the n - 1 sample standard deviation. n >= 2.
double iid_se(std::span<const double> x);

// Newey & West (1994) automatic bandwidth for the Bartlett kernel, applied to the
// mean of one series: with pre-whitening-free pilot lag n_pre = floor(4 (n/100)^(2/9)),
// s0 = gamma(0) + 2 sum_{j<=n_pre} gamma(j), s1 = 2 sum_{j<=n_pre} j gamma(j),
// lag = floor(1.1447 (s1/s0)^(2/3) n^(1/3)). The lag is capped at floor((n-1)/2) so
// every autocovariance used averages at least half the sample, and is 0 when s0 <= 0
// (no positive long-run variance to estimate) or when all values are equal. n >= 1.
std::size_t newey_west_lag(std::span<const double> x);

struct HacResult {
  double se;                 // standard error of the mean
  double long_run_variance;  // gamma(0) + 2 sum_j w_j gamma(j)
  std::size_t lag;           // truncation lag L used
};

// Newey & West (1987) HAC standard error of the mean with Bartlett weights
// w_j = 1 - j/(L + 1): se = sqrt(long_run_variance / n). Always >= 0 (the Bartlett
// kernel keeps the estimate non-negative). n >= 2; all values equal -> se = 0.
HacResult hac_se(std::span<const double> x, std::size_t lag);
// The same with lag = newey_west_lag(x).
HacResult hac_se(std::span<const double> x);

// The truncated-lag estimator of Kołaczkowski, "Estimating Benchmark Results Uncertainty", formula (6) cut at K:
// Var(mean) = (1/n) (gamma(0) + (2/n) sum_{k=1..K} (n - k) gamma(k)), clamped at 0.
// Default K = floor(sqrt(n)) as the seed proposes. (The seed's code sample stops one
// lag earlier, at ceil(sqrt(n)) - 1; the formula is what is implemented here.) n >= 2.
double truncated_lag_se(std::span<const double> x);
double truncated_lag_se(std::span<const double> x, std::size_t max_lag);

// n_eff = n gamma(0) / long-run variance (Newey-West automatic lag): the number of
// independent samples carrying the same information about the mean. Can exceed n
// for negatively correlated series. n >= 2; all values equal -> n.
double effective_sample_size(std::span<const double> x);

struct BlockLength {
  double circular;    // optimal expected block length, circular block bootstrap
  double stationary;  // ... for the stationary bootstrap
  std::size_t circular_blocks;  // max(1, ceil(circular)), the integer to use
  std::size_t m_hat;            // lag after which the correlogram looks like noise
};

// Politis & White (2004), with the correction of Patton, Politis & White (2009):
// m_hat = smallest m with |rho(m + k)| < 2 sqrt(log10(n) / n) for k = 1..K_n,
// K_n = max(5, ceil(sqrt(log10 n))); M = 2 m_hat; flat-top lag window
// lambda(t) = 1 (|t| <= 1/2), 2(1 - |t|) (1/2 < |t| <= 1), 0 otherwise;
// G = sum_{|k|<=M} lambda(k/M) |k| gamma(k), g = sum_{|k|<=M} lambda(k/M) gamma(k);
// b_CB = (2 G^2 / ((4/3) g^2))^(1/3) n^(1/3), b_SB = (2 G^2 / (2 g^2))^(1/3) n^(1/3),
// both capped at min(3 sqrt(n), n/3). Uncorrelated data -> b = 1.
// n >= 2; all values equal -> b = 1.
BlockLength politis_white_block_length(std::span<const double> x);

}  // namespace obscheck::stats
