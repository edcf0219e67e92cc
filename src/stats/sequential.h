// Anytime-valid inference for the median of a series: the verdicts may be looked at
// after every block, and the sweep stopped as soon as they decide, without the error
// rate growing with the number of looks.
//
// The series is d_1..d_n, independent (one per block). For a candidate median m, the
// signs of d_i - m (ties dropped) are fair coin flips when m is the median. Against the
// alternative "heads with probability theta", the likelihood ratio mixed over a
// Beta(a, a) prior on theta (Robbins' method of mixtures) is
//
//   M_t(m) = B(a + k, a + t - k) / B(a, a) * 2^t,   k = #{d_i > m}, t = #{d_i != m},
//
// a nonnegative martingale with M_0 = 1 under the null, so by Ville's inequality
// P(M_t(m) >= 1/alpha for some t) <= alpha. Hence:
//   - the confidence sequence {m : M_t(m) < 1/alpha} covers the median at every n at
//     once with probability >= 1 - alpha (Howard & Ramdas, "Sequential estimation of
//     quantiles with applications to A/B-testing and best-arm identification", 2022);
//   - p_t = min(1, 1 / M_t(0)) is a p-value at any stopping time (an "always-valid
//     p-value": Johari, Pekelis & Walsh, "Always valid inference", 2017).
// Nothing is assumed of the distribution of d beyond independence: not symmetry, not a
// finite variance; bimodal and heavy-tailed run times are covered as they are.
//
// The set {m : M_t(m) < 1/alpha} is the closed span of order statistics
// [d_(j1), d_(j2 + 1)] (d_(0) = -inf, d_(n + 1) = +inf), where j1..j2 are the counts j
// of values below m for which M_n(n - j) < 1/alpha; closing it makes it conservative
// for tied values (counts, clocks with coarse ticks).
#pragma once

#include <cstddef>
#include <span>

namespace obscheck::stats {

// The Beta(a, a) prior. a = 4 makes the sequence's half-width about 2.6-2.9 standard
// errors of the median at 100-300 blocks (a fixed-n interval: 1.64 at 90%), while an
// effect every block agrees on is decided after 11 blocks at alpha = 0.05 and 19 at
// alpha = 0.05 / 60 (Holm over a four-counter check). Smaller a decides giant effects
// a few blocks sooner and resolves small ones later; larger a the reverse. Measured:
// docs/statistics.md, "The confidence sequence".
inline constexpr double kMixturePrior = 4.0;

// ln M_t for k of t signs positive under the Beta(a, a) mixture. t >= k >= 0, a > 0.
double sign_mixture_log(std::size_t t, std::size_t k, double a = kMixturePrior);

// The smallest number of blocks, all agreeing in sign, after which the p-value can
// fall below alpha: the first look that can decide anything.
std::size_t blocks_to_decide(double alpha, double a = kMixturePrior);

struct MedianSequence {
  std::size_t n = 0;       // values used
  double median = 0;       // the sample median (mean of the two middle values when n is even)
  double lo = 0, hi = 0;   // the confidence sequence at this n (may be -inf / +inf)
  double p_value = 1;      // anytime-valid, two-sided, for median == null
};

// The sample median, the 1 - alpha confidence sequence for the median at this n, and
// the anytime-valid p-value for "the median is `null`". O(n) (selection, then binary
// searches over the counts). n == 0: median NaN, interval (-inf, +inf), p = 1.
// Throws std::invalid_argument on a non-finite value or alpha outside (0, 1).
MedianSequence median_sequence(std::span<const double> d, double alpha, double null = 0.0,
                               double a = kMixturePrior);

// The width of the sequence at n blocks, in standard errors of the sample median
// (sqrt(n) / 2 ranks); infinite while the sequence is unbounded.
double sequence_width_in_se(std::size_t n, double alpha, double a = kMixturePrior);

// Blocks after which a sequence now `half_width` wide at `n` blocks would be `target`
// wide, if the noise stays as it is: the width scales as sequence_width_in_se(m) /
// sqrt(m). For the report's "about N blocks would decide". Returns 0 when the sequence
// is unbounded now, target >= half_width, or no m up to max_n reaches it.
std::size_t blocks_for_half_width(double half_width, std::size_t n, double target, double alpha,
                                  std::size_t max_n = 1000000, double a = kMixturePrior);

// The half-width a sequence now `half_width` wide at `n` blocks would have at `m`
// blocks if the noise stays as it is (the same scaling as blocks_for_half_width).
// Infinite while the sequence is unbounded at n or at m.
double projected_half_width(double half_width, std::size_t n, std::size_t m, double alpha, double a = kMixturePrior);

}  // namespace obscheck::stats
