// The magnitude test and the fixed-design tests (stats/magnitude.h): exact values on
// fixed data and closed forms.
#include <catch2/catch.hpp>

#include <math.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>
#include <utility>
#include <stdexcept>
#include <vector>

#include "stats/magnitude.h"

using namespace obscheck::stats;

TEST_CASE("sequential t-test: the Bayes factor's closed form") {
  // ln BF(4, 30) = -ln(401)/2 + 2 (ln(1 + 900/3) - ln(1 + 900/(3 * 401))).
  const double expected = -0.5 * std::log(401.0) + 2 * (std::log(301.0) - std::log(1 + 900.0 / 1203.0));
  CHECK(safe_t_log_bf(4, 30) == Approx(expected).epsilon(1e-12));
  CHECK(std::exp(safe_t_log_bf(4, 30)) == Approx(1480.5173942698).epsilon(1e-9));
  // At t = 0 the evidence is (1 + n g)^(-1/2): it favours the null.
  CHECK(safe_t_log_bf(5, 0) == Approx(-0.5 * std::log(501.0)));
  // Even in t, rising in |t| towards (1 + n g)^((n-1)/2).
  CHECK(safe_t_log_bf(6, -7) == safe_t_log_bf(6, 7));
  CHECK(safe_t_log_bf(6, 8) > safe_t_log_bf(6, 7));
  CHECK(safe_t_log_bf(4, 1e9) == Approx(1.5 * std::log(401.0)).epsilon(1e-6));
  // Fewer than two values: no evidence at all.
  CHECK(safe_t_log_bf(1, 50) == 0);
  CHECK(safe_t_log_bf(0, 50) == 0);
}

TEST_CASE("sequential t-test: the critical t and the first block that can decide") {
  CHECK(safe_t_critical(4, 0.01) == Approx(12.154592887202).epsilon(1e-9));
  CHECK(safe_t_critical(10, 0.05) == Approx(4.876690168720).epsilon(1e-9));
  CHECK(std::exp(safe_t_log_bf(4, safe_t_critical(4, 0.01))) == Approx(100).epsilon(1e-9));
  // (1 + 3 * 100)^1 = 301 < 1000: three blocks cannot reach alpha = 0.001.
  CHECK(std::isinf(safe_t_critical(3, 0.001)));
  CHECK(std::isinf(safe_t_critical(1, 0.5)));
  // The maxima 14.2, 301, 8,030, 251,001 at 2..5 blocks.
  CHECK(magnitude_blocks_to_decide(0.1) == 2);
  CHECK(magnitude_blocks_to_decide(1.0 / 300) == 3);
  CHECK(magnitude_blocks_to_decide(1.0 / 302) == 4);
  CHECK(magnitude_blocks_to_decide(0.2 * 0.05 / 15) == 4);  // a four-counter check's primary family
  CHECK(magnitude_blocks_to_decide(1.0 / 9000) == 5);
  CHECK_THROWS_AS(magnitude_blocks_to_decide(0), std::invalid_argument);
}

TEST_CASE("sequential t-test: its interval and p-value for the mean") {
  const std::vector<double> d{1, 2, 3, 4};
  const MeanSequence m = mean_sequence(d, 0.05);
  CHECK(m.n == 4);
  CHECK(m.mean == 2.5);
  CHECK(m.scale == Approx(1.2909944487358));
  // t = 2.5 / (1.291 / 2) = 3.873
  CHECK(m.p_value == Approx(0.570207607825).epsilon(1e-9));
  CHECK(m.lo == Approx(-2.501396692440).epsilon(1e-9));
  CHECK(m.hi == Approx(7.501396692440).epsilon(1e-9));
  // A floor above the sample's spread widens the interval and weakens the evidence.
  const MeanSequence floored = mean_sequence(d, 0.05, 2.0);
  CHECK(floored.scale == 2.0);
  CHECK(floored.p_value > m.p_value);
  CHECK(floored.hi - floored.lo > m.hi - m.lo);
  // A giant effect in four blocks: t = 100 / (0.1 / 2) = 2000.
  const std::vector<double> big{99.9, 100.0, 100.1, 100.0};
  const MeanSequence b = mean_sequence(big, 0.01);
  CHECK(b.p_value < 1.0 / 8000);
  CHECK(b.lo > 99);
  CHECK(b.hi < 101);
  // Equal values: no scale, no evidence (the range decides those).
  const std::vector<double> same{3, 3, 3, 3, 3};
  const MeanSequence e = mean_sequence(same, 0.05);
  CHECK(e.p_value == 1);
  CHECK(std::isinf(e.lo));
  CHECK(std::isinf(e.hi));
  // Two values or fewer: unbounded, p = 1.
  const std::vector<double> one{5};
  CHECK(mean_sequence(one, 0.05).p_value == 1);
  CHECK(std::isnan(mean_sequence(std::vector<double>{}, 0.05).mean));
  const std::vector<double> bad{1, std::numeric_limits<double>::infinity()};
  CHECK_THROWS_AS(mean_sequence(bad, 0.05), std::invalid_argument);
  CHECK_THROWS_AS(mean_sequence(d, 1.0), std::invalid_argument);
  CHECK_THROWS_AS(mean_sequence(d, 0.05, -1), std::invalid_argument);
}

TEST_CASE("sequential t-test: a scale of more degrees of freedom than the blocks") {
  // ln BF(6, 5; 30) = -ln(601)/2 + 15.5 (ln(1 + 25/30) - ln(1 + 25/(30 * 601))): 480.26,
  // against 8.59 on the one-sample form's 5 degrees of freedom.
  const double expected = -0.5 * std::log(601.0) + 15.5 * (std::log1p(25.0 / 30) - std::log1p(25.0 / (30 * 601.0)));
  CHECK(safe_t_log_bf(6, 5, 100, 30) == Approx(expected).epsilon(1e-12));
  CHECK(std::exp(safe_t_log_bf(6, 5, 100, 30)) == Approx(480.261341215375).epsilon(1e-9));
  CHECK(std::exp(safe_t_log_bf(6, 5)) == Approx(8.594528551218).epsilon(1e-9));
  // nu at or below n - 1 is the one-sample form.
  CHECK(safe_t_log_bf(6, 5, 100, 5) == safe_t_log_bf(6, 5));
  CHECK(safe_t_log_bf(6, 5, 100, 2) == safe_t_log_bf(6, 5));
  // The supremum (1 + n g)^(nu/2): at nu = 30, 601^15.
  CHECK(safe_t_log_bf(6, 1e9, 100, 30) == Approx(15 * std::log(601.0)).epsilon(1e-6));
  CHECK(safe_t_critical(6, 0.01, 100, 30) == Approx(4.437337004842).epsilon(1e-9));
  CHECK(std::exp(safe_t_log_bf(6, safe_t_critical(6, 0.01, 100, 30), 100, 30)) == Approx(100).epsilon(1e-9));
}

TEST_CASE("sequential t-test: a floor brings its degrees of freedom, whichever scale is the larger") {
  // Own sd 0.0816 under a floor of 0.5 of 30 degrees of freedom: t = 2.5 / (0.5 / 2) = 10.
  const std::vector<double> tight{2.4, 2.5, 2.6, 2.5};
  const MeanSequence pooled = mean_sequence(tight, 0.05, 0.5, 0, kMagnitudePriorG, 30);
  CHECK(pooled.scale == 0.5);
  CHECK(pooled.df == 30);
  CHECK(pooled.p_value == Approx(3.065877959922e-9).epsilon(1e-8));
  CHECK(pooled.lo == Approx(1.557517388983).epsilon(1e-9));
  CHECK(pooled.hi == Approx(3.442482611017).epsilon(1e-9));
  // The same floor with its degrees of freedom unknown: the one-sample form's 3.
  const MeanSequence own = mean_sequence(tight, 0.05, 0.5);
  CHECK(own.df == 3);
  CHECK(own.p_value == Approx(0.019929565164).epsilon(1e-9));
  CHECK(own.lo == Approx(0.562967390240).epsilon(1e-9));
  CHECK(own.hi == Approx(4.437032609760).epsilon(1e-9));
  // A comparison noisier than the floor keeps its own, larger scale, on the floor's
  // degrees of freedom: t = 2.5 / (1.291 / 2) = 3.873, p = 1 / BF(4, 3.873; 30) = 0.038.
  const std::vector<double> d{1, 2, 3, 4};
  const MeanSequence noisy = mean_sequence(d, 0.05, 1.0, 0, kMagnitudePriorG, 30);
  CHECK(noisy.scale == Approx(1.2909944487358));
  CHECK(noisy.df == 30);
  CHECK(noisy.p_value == Approx(0.038066760031).epsilon(1e-9));
  CHECK(noisy.p_value < mean_sequence(d, 0.05).p_value);
  // No floor: the one-sample form, whatever floor_df says.
  CHECK(mean_sequence(d, 0.05, 0, 0, kMagnitudePriorG, 30).df == 3);
  CHECK_THROWS_AS(mean_sequence(d, 0.05, 1.0, 0, kMagnitudePriorG, -1), std::invalid_argument);
}

TEST_CASE("running range: the first block from which it covers at the given rate") {
  // 2^(1 - n0) <= miscoverage.
  CHECK(range_first_blocks(1.0) == 1);
  CHECK(range_first_blocks(0.5) == 2);
  CHECK(range_first_blocks(0.0625) == 5);
  CHECK(range_first_blocks(0.02) == 7);
  CHECK(range_first_blocks(0.015625) == 7);
  CHECK(range_first_blocks(0.0156) == 8);
  CHECK_THROWS_AS(range_first_blocks(0), std::invalid_argument);
}

TEST_CASE("fixed design: the exact sign test") {
  CHECK(sign_test_p(10, 0) == Approx(1.0 / 512));        // 2 * 2^-10
  CHECK(sign_test_p(0, 10) == Approx(1.0 / 512));
  CHECK(sign_test_p(7, 3) == Approx(2.0 * 176 / 1024));  // 2 (1 + 10 + 45 + 120) / 2^10
  CHECK(sign_test_p(5, 5) == 1);
  CHECK(sign_test_p(0, 0) == 1);
  CHECK(sign_test_p(3000, 0) == 0);                        // underflows to 0, never NaN
}

TEST_CASE("fixed design: the exact order-statistic interval for the median") {
  // n = 10, 90%: k = 2 covers 1 - 2 * 11/1024 = 0.9785; k = 3 only 0.8906.
  const std::vector<double> d{5, 1, 9, 3, 7, 2, 8, 4, 6, 10};
  const OrderInterval i = exact_median_interval(d, 0.10);
  CHECK(i.k == 2);
  CHECK(i.coverage == Approx(1 - 22.0 / 1024));
  CHECK(i.lo == 2);
  CHECK(i.hi == 9);
  // n = 6 at 92%: only the range, 1 - 2/64.
  const std::vector<double> six{0, 0, 0, 0, 0, 0};
  const OrderInterval r = exact_median_interval(six, 0.08);
  CHECK(r.k == 1);
  CHECK(r.coverage == Approx(0.96875));
  CHECK(r.lo == 0);
  CHECK(r.hi == 0);
  // n = 4: the range covers 1 - 2/16 = 0.875 < 0.90: unbounded.
  const std::vector<double> four{1, 2, 3, 4};
  const OrderInterval u = exact_median_interval(four, 0.10);
  CHECK(u.k == 0);
  CHECK(std::isinf(u.lo));
  CHECK(std::isinf(u.hi));
}

namespace {
// The fixed design's binomial sums as first written (ln Γ(n + 1) taken at every k, exp
// called on every sum, the order statistics read from a full sort): the reference the
// cheaper forms must equal exactly.
double reference_log_choose(std::size_t n, std::size_t k) {
  const double nn = static_cast<double>(n), kk = static_cast<double>(k);
  int sign = 0;
  return ::lgamma_r(nn + 1, &sign) - ::lgamma_r(kk + 1, &sign) - ::lgamma_r(nn - kk + 1, &sign);
}
double reference_log_add(double a, double b) {
  const double inf = std::numeric_limits<double>::infinity();
  if (a == -inf) return b;
  if (b == -inf) return a;
  const double hi = std::max(a, b), lo = std::min(a, b);
  return hi + std::log1p(std::exp(lo - hi));
}
double reference_sign_test_p(std::size_t above, std::size_t below) {
  const std::size_t t = above + below;
  if (t == 0) return 1;
  double acc = -std::numeric_limits<double>::infinity();
  for (std::size_t i = 0; i <= std::min(above, below); ++i) acc = reference_log_add(acc, reference_log_choose(t, i));
  return std::min(1.0, 2 * std::exp(acc - static_cast<double>(t) * std::log(2.0)));
}
OrderInterval reference_median_interval(const std::vector<double>& d, double alpha) {
  const double inf = std::numeric_limits<double>::infinity();
  OrderInterval out{-inf, inf, 0, 1};
  const std::size_t n = d.size();
  double log_cdf = -inf;
  for (std::size_t k = 1; 2 * k <= n + 1; ++k) {
    log_cdf = reference_log_add(log_cdf, reference_log_choose(n, k - 1) - static_cast<double>(n) * std::log(2.0));
    const double coverage = 1 - 2 * std::exp(log_cdf);
    if (coverage < 1 - alpha) break;
    out.k = k;
    out.coverage = coverage;
  }
  if (out.k == 0) return out;
  std::vector<double> s(d);
  std::sort(s.begin(), s.end());
  out.lo = s[out.k - 1];
  out.hi = s[n - out.k];
  return out;
}
}  // namespace

TEST_CASE("fixed design: the exact interval and sign test equal their first, slower form") {
  // Seeded noise with ties (rounded to tenths), 1 to 30,000 values, at the alphas the
  // check uses and two others.
  std::uint64_t state = 46;
  const auto uniform = [&] {
    state = state * 6364136223846793005ULL + 1442695040888963407ULL;
    return static_cast<double>(state >> 11) * 0x1.0p-53;
  };
  for (std::size_t n : {1u, 2u, 5u, 6u, 17u, 100u, 1001u, 30000u}) {
    std::vector<double> d(n);
    for (double& v : d) v = std::round(10 * (uniform() - 0.5)) / 10;
    for (double alpha : {0.01, 0.08, 0.1, 0.5}) {
      const OrderInterval got = exact_median_interval(d, alpha), want = reference_median_interval(d, alpha);
      INFO("n = " << n << ", alpha = " << alpha);
      CHECK(got.k == want.k);
      CHECK(got.coverage == want.coverage);
      CHECK(got.lo == want.lo);
      CHECK(got.hi == want.hi);
      // The same from a rank found once for n (as comparisons of one length share it).
      const OrderInterval shared = exact_median_interval(d, exact_median_rank(n, alpha));
      CHECK(shared.k == want.k);
      CHECK(shared.coverage == want.coverage);
      CHECK(shared.lo == want.lo);
      CHECK(shared.hi == want.hi);
    }
  }
  CHECK_THROWS_AS(exact_median_interval(std::vector<double>{1, 2, 3}, MedianRank{3, 0.5}), std::invalid_argument);
  for (auto [above, below] : {std::pair<std::size_t, std::size_t>{0, 0}, {3, 1}, {10, 10}, {400, 340}, {15000, 14700}}) {
    INFO(above << " above, " << below << " below");
    CHECK(sign_test_p(above, below) == reference_sign_test_p(above, below));
  }
}
