// Hypothesis tests, multiplicity and effect sizes.
//
// All p-values are two-sided unless a function says otherwise. NaN/inf input ->
// std::invalid_argument. Distributions come from Boost.Math.
#pragma once

#include <cstddef>
#include <cstdint>
#include <span>
#include <vector>

#include "stats/bootstrap.h"

namespace obscheck::stats {

// ---- Sign-flip randomization test on paired differences -------------------------

// Up to 2^16 sign patterns are enumerated exactly (exact up to 2^16).
inline constexpr std::size_t kSignFlipExactMaxN = 16;
// Monte Carlo patterns beyond that.
inline constexpr std::size_t kSignFlipResamples = 10000;

struct SignFlipOptions {
  std::size_t exact_max_n = kSignFlipExactMaxN;  // n <= this -> all 2^n patterns (at most 30)
  std::size_t resamples = kSignFlipResamples;    // B for Monte Carlo, >= 1
  std::uint64_t seed = 0;
};

struct SignFlipResult {
  double statistic;      // sum of d (the observed pattern)
  double p_value;        // two-sided
  bool exact;            // true: all 2^n patterns; false: Monte Carlo
  std::size_t patterns;  // 2^n when exact, else B
};

// H0: each d_i is symmetric about 0 (under a randomized within-block order this holds
// by design). Statistic |sum d|. Exact: p = #{patterns s : |sum s_i d_i| >= |sum d|} / 2^n
// (the observed pattern included, so p >= 2/2^n unless sum d = 0). Monte Carlo:
// p = (1 + #{b : |T*_b| >= |T|}) / (B + 1) (Phipson & Smyth 2010), never 0.
// Ties are counted with a relative tolerance of 1e-12 sum|d_i|. n >= 1 (n = 1 -> p = 1;
// all d equal to c != 0 -> the most extreme patterns only).
SignFlipResult sign_flip_test(std::span<const double> d, const SignFlipOptions& options = {});

// ---- t tests ----------------------------------------------------------------------

struct TTestResult {
  double t;
  double df;
  double p_value;    // two-sided
  double estimate;   // mean difference (or mean of d)
  double se;
  Interval ci;       // estimate +- t_{df,(1+level)/2} se
};

// Welch's unequal-variance t test of mean(a) - mean(b), Welch-Satterthwaite df.
// Both n >= 2. When the standard error is 0 (each sample constant): equal means ->
// t = 0, p = 1; different means -> t = +-inf, p = 0, df = n_a + n_b - 2.
TTestResult welch_t(std::span<const double> a, std::span<const double> b, double level = 0.95);

// One-sample t test of mean(x) = mu0; df = n - 1. n >= 2. se = 0 handled as above.
TTestResult one_sample_t(std::span<const double> x, double mu0 = 0.0, double level = 0.95);

// Paired t test: one_sample_t on a_i - b_i. Same length, n >= 2.
TTestResult paired_t(std::span<const double> a, std::span<const double> b, double level = 0.95);

// ---- Mann-Whitney U ---------------------------------------------------------------

// Exact null distribution when both samples have no ties and n_a + n_b <= this
// (the rule R's wilcox.test uses, n < 50 per sample, tightened to the total so the
// counting table stays small).
inline constexpr std::size_t kMannWhitneyExactMaxTotal = 50;

struct MannWhitneyResult {
  double u;        // U for a: #{(i,j): a_i > b_j} + 0.5 #{a_i = b_j}
  double z;        // normal approximation z (0 when exact)
  double p_value;  // two-sided
  bool exact;
};

// Exact: p = min(1, 2 min(P(U <= u), P(U >= u))) from the permutation distribution.
// Otherwise the normal approximation with tie correction
// var = n_a n_b / 12 ((n+1) - sum(t^3 - t) / (n (n - 1))) and continuity correction
// 0.5 (as R's wilcox.test(correct = TRUE)). All values equal -> p = 1. Both n >= 1.
MannWhitneyResult mann_whitney_u(std::span<const double> a, std::span<const double> b);

// ---- Equivalence ------------------------------------------------------------------

struct TostResult {
  double lower;         // equivalence bounds on the tested scale
  double upper;
  double p_lower;       // H0: mean <= lower
  double p_upper;       // H0: mean >= upper
  double p_value;       // max(p_lower, p_upper)
  bool equivalent;      // p_value < alpha, i.e. the (1 - 2 alpha) CI lies inside (lower, upper)
};

// Schuirmann's (1987) two one-sided tests from an estimate, its standard error and
// degrees of freedom (t distribution; df = inf -> normal). se = 0 -> equivalent iff the
// estimate lies strictly inside the bounds. lower < upper required.
TostResult tost(double estimate, double se, double df, double lower, double upper, double alpha);

// TOST on log ratios d_i = ln(x_i / y_i) with margin eps on the ratio scale: bounds
// (ln(1 - eps), ln(1 + eps)) — "within +-eps" in ratio terms, slightly asymmetric in
// logs. iid standard error, df = n - 1. n >= 2, 0 < eps < 1.
TostResult tost_log_ratio(std::span<const double> d, double eps, double alpha = 0.05);

// ---- Multiplicity -----------------------------------------------------------------

// Holm (1979) step-down adjusted p-values, monotone, capped at 1, in input order.
// Each p must lie in [0, 1]. Empty input -> empty output.
std::vector<double> holm_adjust(std::span<const double> p);
// reject[i] = holm_adjust(p)[i] <= alpha.
std::vector<bool> holm_reject(std::span<const double> p, double alpha);

// ---- Page's L trend test ----------------------------------------------------------

// Exact null distribution when there are no ties within a block, k <= kPageExactMaxK
// (k! = 720 rank permutations per block) and n <= kPageExactMaxN (the convolution of n
// block distributions stays cheap; beyond it the normal approximation is accurate to
// well under 0.001 in p).
inline constexpr std::size_t kPageExactMaxK = 6;
inline constexpr std::size_t kPageExactMaxN = 50;

struct PageResult {
  double l;        // L = sum_j j R_j, R_j the rank sum of treatment j (j = 1..k)
  double z;        // (L - n k (k+1)^2 / 4) / sqrt(n k^2 (k+1) (k^2-1) / 144)
  double p_value;  // one-sided: P(L >= l) under H0 (no trend)
  bool exact;
};

// Page (1963), "Ordered hypotheses for multiple treatments". `data` is row-major n
// blocks x k treatments, the treatments in the order of the predicted increase (e.g.
// dose 0, 1, 2, ...). Ranks within each block, ties get mid-ranks. Exact when there are no ties,
// k <= kPageExactMaxK and n <= kPageExactMaxN; otherwise the normal approximation
// without tie correction (ties shrink Var(L), so this is conservative).
// n >= 1, k >= 2, data.size() == n k.
PageResult page_trend_test(std::span<const double> data, std::size_t k);

// ---- Effect sizes -----------------------------------------------------------------

// Cohen's d = (mean(a) - mean(b)) / s_pooled, s_pooled^2 = ((n_a-1)s_a^2 + (n_b-1)s_b^2)
// / (n_a + n_b - 2). Both n >= 2; throws when s_pooled = 0 (d undefined).
double cohens_d(std::span<const double> a, std::span<const double> b);

// Cliff's delta = (#{a_i > b_j} - #{a_i < b_j}) / (n_a n_b), in [-1, 1]. Both n >= 1.
// O((n_a + n_b) log n_b).
double cliffs_delta(std::span<const double> a, std::span<const double> b);

}  // namespace obscheck::stats
