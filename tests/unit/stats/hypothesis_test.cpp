#include <catch2/catch.hpp>

#include <algorithm>
#include <cmath>
#include <limits>
#include <numeric>
#include <stdexcept>
#include <vector>

#include "stats/changepoint.h"
#include "stats/hypothesis.h"
#include "stats/rng.h"
#include "stats/sequential.h"
#include "stats/slope.h"

using namespace obscheck::stats;
using Catch::Matchers::Contains;

namespace {
// Student's sleep data (Cushny & Peebles 1905; R's `sleep` data set).
const std::vector<double> kSleep1{0.7, -1.6, -0.2, -1.2, -0.1, 3.4, 3.7, 0.8, 0.0, 2.0};
const std::vector<double> kSleep2{1.9, 0.8, 1.1, 0.1, -0.1, 4.4, 5.5, 1.6, 4.6, 3.4};
}  // namespace

TEST_CASE("sign-flip test: exact p-values by enumeration by hand") {
  // d = 1 2 3: the 8 sums +-1+-2+-3 are 6 4 2 0 0 -2 -4 -6; |T| >= 6 twice -> p = 2/8.
  auto r = sign_flip_test(std::vector<double>{1, 2, 3});
  CHECK(r.exact);
  CHECK(r.patterns == 8);
  CHECK(r.statistic == 6.0);
  CHECK(r.p_value == 0.25);
  // d = 1 1 1 -1: T = 2, and s_i d_i are 4 fair +-1, so P(|sum| >= 2) = (1+4+4+1)/16.
  CHECK(sign_flip_test(std::vector<double>{1, 1, 1, -1}).p_value == 10.0 / 16.0);
  CHECK(sign_flip_test(std::vector<double>{1, -1}).p_value == 1.0);
  CHECK(sign_flip_test(std::vector<double>{0.3}).p_value == 1.0);
  // Sixteen equal differences: only all-plus and all-minus reach |T| -> 2 / 2^16.
  CHECK(sign_flip_test(std::vector<double>(16, 0.01)).p_value == 2.0 / 65536.0);
}

TEST_CASE("sign-flip test: Monte Carlo p = (1 + #)/(B + 1) and agreement with exact") {
  // 20 equal differences: P(a random pattern reaches |T|) = 2^-19, so with seed 1 none
  // of the 10,000 patterns does and p = 1/10001.
  const auto mc = sign_flip_test(std::vector<double>(20, 0.02), {16, 10000, 1});
  CHECK_FALSE(mc.exact);
  CHECK(mc.patterns == 10000);
  CHECK(mc.p_value == 1.0 / 10001.0);

  Rng rng(5);
  std::vector<double> d(16);
  for (double& v : d) v = rng.normal() + 0.4;
  const auto exact = sign_flip_test(d);
  const auto approx = sign_flip_test(d, {0, 200000, 2});
  REQUIRE(exact.exact);
  CHECK(approx.p_value == Approx(exact.p_value).margin(0.004));
  // All differences 0: every pattern ties the observed |T| = 0, so p = 1 whether
  // enumerated (2^5 patterns) or drawn (B of them).
  const auto zeros_exact = sign_flip_test(std::vector<double>(5, 0.0));
  CHECK(zeros_exact.exact);
  CHECK(zeros_exact.patterns == 32);
  CHECK(zeros_exact.p_value == 1.0);
  const auto zeros_mc = sign_flip_test(std::vector<double>(20, 0.0), {16, 300, 1});
  CHECK_FALSE(zeros_mc.exact);
  CHECK(zeros_mc.patterns == 300);
  CHECK(zeros_mc.p_value == 1.0);
  CHECK_THROWS_AS(sign_flip_test(std::vector<double>(20, 0.0), {16, 0, 1}), std::invalid_argument);
  CHECK_THROWS_AS(sign_flip_test(std::vector<double>{}), std::invalid_argument);
  CHECK_THROWS_WITH(sign_flip_test(std::vector<double>{1.0, std::numeric_limits<double>::infinity()}),
                    Contains("d[1]"));
}

TEST_CASE("paired and Welch t on Student's sleep data match R's published output") {
  // R: t.test(extra ~ group, data = sleep, paired = TRUE) (R >= 4.0 documentation):
  // t = -4.0621, df = 9, p-value = 0.002833, 95% CI -2.4598858 -0.7001142, mean -1.58.
  const auto p = paired_t(kSleep1, kSleep2);
  CHECK(p.t == Approx(-4.0621).margin(1e-4));
  CHECK(p.df == 9.0);
  CHECK(p.p_value == Approx(0.002833).margin(1e-6));
  CHECK(p.estimate == Approx(-1.58));
  CHECK(p.ci.lo == Approx(-2.4598858).margin(1e-7));
  CHECK(p.ci.hi == Approx(-0.7001142).margin(1e-7));
  // R: t.test(extra ~ group, data = sleep): t = -1.8608, df = 17.776,
  // p-value = 0.07939, 95% CI -3.3654832 0.2054832.
  const auto w = welch_t(kSleep1, kSleep2);
  CHECK(w.t == Approx(-1.8608).margin(1e-4));
  CHECK(w.df == Approx(17.776).margin(1e-3));
  CHECK(w.p_value == Approx(0.07939).margin(1e-5));
  CHECK(w.ci.lo == Approx(-3.3654832).margin(1e-6));
  CHECK(w.ci.hi == Approx(0.2054832).margin(1e-6));
}

TEST_CASE("t tests with zero standard error and too few values") {
  const std::vector<double> a(5, 1.0), b(4, 2.0);
  const auto w = welch_t(a, b);
  CHECK(w.p_value == 0.0);
  CHECK(std::isinf(w.t));
  CHECK(one_sample_t(a, 1.0).p_value == 1.0);
  CHECK_THROWS_AS(welch_t(std::vector<double>{1.0}, b), std::invalid_argument);
  CHECK_THROWS_WITH(paired_t(a, b), Contains("equal lengths"));
}

TEST_CASE("Mann-Whitney U: exact distribution and tie-corrected normal approximation") {
  // m = 2, n = 3: the 10 orderings give U = 0 1 2 2 3 3 4 4 5 6; a = {1,2} below all of
  // b gives U = 0, P(U <= 0) = 1/10 -> two-sided 0.2. a = {1,3}: U = 1 -> 2 * 2/10.
  auto r = mann_whitney_u(std::vector<double>{1, 2}, std::vector<double>{3, 4, 5});
  CHECK(r.exact);
  CHECK(r.u == 0.0);
  CHECK(r.p_value == Approx(0.2));
  r = mann_whitney_u(std::vector<double>{1, 3}, std::vector<double>{2, 4, 5});
  CHECK(r.u == 1.0);
  CHECK(r.p_value == Approx(0.4));

  // Ties: a = 1 2 2, b = 2 3 4. Mid-ranks 1 | 3 3 3 | 5 6; R1 = 7, U = 7 - 6 = 1.
  // Tie term 3^3 - 3 = 24; var = 9/12 (7 - 24/30) = 4.65; z = (1 - 4.5 + 0.5)/sqrt(4.65)
  // = -1.391217; p = 2 Phi(-1.391217) = 0.16417 (normal table).
  r = mann_whitney_u(std::vector<double>{1, 2, 2}, std::vector<double>{2, 3, 4});
  CHECK_FALSE(r.exact);
  CHECK(r.u == 1.0);
  CHECK(r.z == Approx(-3.0 / std::sqrt(4.65)));
  CHECK(r.p_value == Approx(0.16417).margin(2e-4));
  CHECK(mann_whitney_u(std::vector<double>(4, 1.0), std::vector<double>(3, 1.0)).p_value == 1.0);
}

TEST_CASE("TOST, Holm, Cohen's d and Cliff's delta by hand") {
  // Estimate 0, se 0.004, normal: p for each side = P(Z > 0.01/0.004 = 2.5) = 0.0062097.
  const auto t = tost(0.0, 0.004, std::numeric_limits<double>::infinity(), -0.01, 0.01, 0.05);
  CHECK(t.p_value == Approx(0.0062097).margin(1e-7));
  CHECK(t.equivalent);
  CHECK_FALSE(tost(0.009, 0.004, 30, -0.01, 0.01, 0.05).equivalent);
  CHECK(tost(0.005, 0.0, 10, -0.01, 0.01, 0.05).equivalent);
  const auto lr = tost_log_ratio(std::vector<double>(5, 0.0), 0.01);
  CHECK(lr.lower == Approx(std::log(0.99)));
  CHECK(lr.upper == Approx(std::log(1.01)));
  CHECK(lr.equivalent);

  // Holm: sorted 0.005 0.01 0.03 0.04 times 4 3 2 1 = 0.02 0.03 0.06 0.04 -> monotone
  // 0.02 0.03 0.06 0.06, back in input order.
  const std::vector<double> p{0.01, 0.04, 0.03, 0.005};
  const auto adj = holm_adjust(p);
  CHECK(adj[0] == Approx(0.03));
  CHECK(adj[1] == Approx(0.06));
  CHECK(adj[2] == Approx(0.06));
  CHECK(adj[3] == Approx(0.02));
  CHECK(holm_reject(p, 0.05) == std::vector<bool>{true, false, false, true});
  CHECK(holm_adjust(std::vector<double>{}).empty());
  CHECK_THROWS_AS(holm_adjust(std::vector<double>{1.5}), std::invalid_argument);

  // Same spread (variance 32/7), means 5 and 4: d = 1 / sqrt(32/7) = 0.467707.
  const std::vector<double> a{2, 4, 4, 4, 5, 5, 7, 9}, b{1, 3, 3, 3, 4, 4, 6, 8};
  CHECK(cohens_d(a, b) == Approx(1.0 / std::sqrt(32.0 / 7.0)));
  CHECK_THROWS_WITH(cohens_d(std::vector<double>(3, 1.0), std::vector<double>(3, 2.0)),
                    Contains("undefined"));
  // a = 1 2 3 vs b = 2 3 4: (1 > 0 pairs) - (6 < pairs) = 1 - 6 over 9 = -5/9.
  CHECK(cliffs_delta(std::vector<double>{1, 2, 3}, std::vector<double>{2, 3, 4}) ==
        Approx(-5.0 / 9.0));
  CHECK(cliffs_delta(std::vector<double>{5}, std::vector<double>{1, 2}) == 1.0);
}

TEST_CASE("Page's L: exact distribution checked by brute-force enumeration") {
  // k = 3, one block ranked 1 2 3: L = 1 + 4 + 9 = 14, the maximum; P = 1/3! = 1/6.
  auto r = page_trend_test(std::vector<double>{0.1, 0.2, 0.3}, 3);
  CHECK(r.l == 14.0);
  CHECK(r.exact);
  CHECK(r.p_value == Approx(1.0 / 6.0));

  // n = 3 blocks, k = 3: enumerate all 6^3 rank assignments by hand-written loops.
  const std::vector<double> data{1, 2, 3, 2, 1, 3, 1, 3, 2};  // L = 14 + 13 + 13 = 40
  r = page_trend_test(data, 3);
  CHECK(r.l == 40.0);
  const int perms[6][3] = {{1, 2, 3}, {1, 3, 2}, {2, 1, 3}, {2, 3, 1}, {3, 1, 2}, {3, 2, 1}};
  int at_least = 0;
  for (auto& p1 : perms)
    for (auto& p2 : perms)
      for (auto& p3 : perms) {
        int l = 0;
        for (int j = 0; j < 3; ++j) l += (j + 1) * (p1[j] + p2[j] + p3[j]);
        if (l >= 40) ++at_least;
      }
  CHECK(r.p_value == Approx(at_least / 216.0));
  // Normal approximation moments for n = 3, k = 3: E = 3*3*16/4 = 36,
  // Var = 3*9*4*8/144 = 6.
  CHECK(r.z == Approx((40.0 - 36.0) / std::sqrt(6.0)));

  // Ties force the normal approximation; a strictly increasing trend in 60 blocks of 4
  // is overwhelming.
  std::vector<double> tied;
  for (int i = 0; i < 60; ++i) tied.insert(tied.end(), {1.0, 1.0, 2.0, 3.0 + i});
  r = page_trend_test(tied, 4);
  CHECK_FALSE(r.exact);
  CHECK(r.p_value < 1e-10);
  CHECK_THROWS_AS(page_trend_test(std::vector<double>{1, 2, 3}, 2), std::invalid_argument);
}

TEST_CASE("changepoints: a level shift, a variance change, and none") {
  Rng rng(21);
  std::vector<double> shift(100);
  for (std::size_t i = 0; i < shift.size(); ++i) shift[i] = (i < 50 ? 0.0 : 1.0) + 0.1 * rng.normal();
  const auto m = detect_changepoints(shift, {ChangeModel::mean});
  CHECK(m.starts == std::vector<std::size_t>{50});
  CHECK(m.penalty == Approx(3.0 * std::log(100.0)));
  CHECK(detect_changepoints(shift).starts == std::vector<std::size_t>{50});

  std::vector<double> spread(200);
  for (std::size_t i = 0; i < spread.size(); ++i) spread[i] = 5.0 + (i < 100 ? 0.1 : 1.0) * rng.normal();
  const auto v = detect_changepoints(spread);
  REQUIRE(v.starts.size() == 1);
  CHECK(v.starts[0] >= 95);
  CHECK(v.starts[0] <= 105);

  std::vector<double> calm(300);
  for (double& x : calm) x = 10.0 + rng.normal();
  CHECK(detect_changepoints(calm).starts.empty());
  CHECK(detect_changepoints(calm, {ChangeModel::mean}).starts.empty());
  CHECK(detect_changepoints(std::vector<double>(50, 1.0)).starts.empty());
  CHECK(detect_changepoints(std::vector<double>{1, 2, 3}).starts.empty());
  CHECK(detect_changepoints(std::vector<double>{}).starts.empty());
  CHECK_THROWS_AS(detect_changepoints(calm, {ChangeModel::mean, 0.0, 1}), std::invalid_argument);
}

TEST_CASE("warm-up by rolling CV on the table of the chapter Measurement Methodology") {
  // the chapter "Measurement Methodology": runs 1-4 are warm-up (5234, 3891, 2456, 1334), stable from run 5.
  // Window 3, threshold 2%: [1334 1256 1243] has CV 40.2/1277.7 = 3.1% (population sd),
  // [1256 1243 1238] has 7.6/1245.7 = 0.6% -> warm-up ends at index 4.
  const std::vector<double> t{5234, 3891, 2456, 1334, 1256, 1243, 1238, 1241, 1240, 1239};
  CHECK(warmup_rolling_cv(t, 3, 0.02) == std::optional<std::size_t>{4});
  CHECK(warmup_rolling_cv(t, 3, 0.05) == std::optional<std::size_t>{3});
  CHECK(warmup_rolling_cv(std::vector<double>{1, 5, 1, 5, 1, 5}, 3, 0.05) == std::nullopt);
  CHECK(warmup_rolling_cv(std::vector<double>{1, 1}, 3, 0.05) == std::nullopt);
  CHECK(warmup_rolling_cv(std::vector<double>(10, 2.0)) == std::optional<std::size_t>{0});
}

TEST_CASE("the sign test's mixture martingale: exact values at a = 4") {
  // ln M = ln B(4 + 11, 4) - ln B(4, 4) + 11 ln 2 for 11 of 11 positive signs.
  CHECK(sign_mixture_log(11, 11) == Approx(3.1537968527023876).epsilon(1e-12));
  CHECK(sign_mixture_log(0, 0) == Approx(0.0).margin(1e-12));
  // 10 of 10 agreeing signs give M = 15.06 < 1/0.05; 11 give 23.43.
  CHECK(blocks_to_decide(0.05) == 11);
  CHECK(blocks_to_decide(0.05 / 60) == 19);
  CHECK(blocks_to_decide(0.05, 1.0) == 8);
}

TEST_CASE("confidence sequence for a median: order statistics and an always-valid p") {
  std::vector<double> d;
  for (int i = 1; i <= 20; ++i) d.push_back(i);
  // n = 20: the accepted counts below m are j = 4..16, so the sequence is
  // [d_(4), d_(17)] = [4, 17]; the median is (10 + 11) / 2.
  const MedianSequence s = median_sequence(d, 0.05);
  CHECK(s.n == 20);
  CHECK(s.median == 10.5);
  CHECK(s.lo == 4);
  CHECK(s.hi == 17);
  // All 20 above 0: M = 2^20 B(24, 4) / B(4, 4), p = 1/M.
  CHECK(s.p_value == Approx(std::exp(-sign_mixture_log(20, 20))).epsilon(1e-12));
  // Shifted to -4..15: the zero is a tie and is dropped; 15 above, 4 below.
  for (double& v : d) v -= 5;
  const MedianSequence shifted = median_sequence(d, 0.05);
  CHECK(shifted.p_value == Approx(0.1702744620186955).epsilon(1e-9));
  CHECK(shifted.lo == -1);
  CHECK(shifted.hi == 12);
  // Too few values to bound anything: the sequence is the whole line.
  const MedianSequence few = median_sequence(std::vector<double>{1, 2, 3}, 0.05);
  CHECK(few.median == 2);
  CHECK(std::isinf(few.lo));
  CHECK(std::isinf(few.hi));
  CHECK(few.p_value > 0.05);
  const MedianSequence none = median_sequence(std::vector<double>{}, 0.05);
  CHECK(std::isnan(none.median));
  CHECK(none.p_value == 1);
  CHECK_THROWS_AS(median_sequence(std::vector<double>{1, NAN}, 0.05), std::invalid_argument);
  CHECK_THROWS_AS(median_sequence(d, 0), std::invalid_argument);
}

TEST_CASE("confidence sequence: the blocks a half-width needs") {
  // A sequence 2% wide each way at 100 blocks, wanted 1% wide: about four times the
  // blocks (the standard error halves at 4n), a little more since the sequence widens
  // in standard errors as n grows.
  const std::size_t n = blocks_for_half_width(0.02, 100, 0.01, 0.10);
  CHECK(n > 400);
  CHECK(n < 500);
  CHECK(sequence_width_in_se(n, 0.10) / std::sqrt(static_cast<double>(n)) <=
        0.5 * sequence_width_in_se(100, 0.10) / 10.0);
  CHECK(blocks_for_half_width(0.02, 100, 0.01, 0.10, 300) == 0);  // not within the cap
  CHECK(blocks_for_half_width(0.02, 100, 0.03, 0.10) == 0);       // already narrower
  CHECK(blocks_for_half_width(0.02, 5, 0.01, 0.10) == 0);         // unbounded at 5 blocks
  CHECK(std::isinf(sequence_width_in_se(5, 0.10)));
  // projected_half_width is the same scaling the other way: at the count found above
  // the sequence is at most the target wide, one block before it wider.
  CHECK(projected_half_width(0.02, 100, n, 0.10) <= 0.01);
  CHECK(projected_half_width(0.02, 100, n - 1, 0.10) > 0.01);
  CHECK(projected_half_width(0.02, 100, 100, 0.10) == Approx(0.02).epsilon(1e-12));
  CHECK(std::isinf(projected_half_width(0.02, 5, 100, 0.10)));
}

TEST_CASE("Pettitt's test: mid-ranks, the statistic and its p-value by hand") {
  // Ranks 1..10; U_5 = 2 * 15 - 5 * 11 = -25 is the largest |U_t|;
  // p = 2 exp(-6 * 625 / (1000 + 100)).
  const std::vector<double> x{1, 2, 3, 4, 5, 10, 11, 12, 13, 14};
  const ChangeTest t = pettitt_test(x);
  CHECK(t.at == 5);
  CHECK(t.statistic == 25);
  CHECK(t.p_value == Approx(0.06614250297660204).epsilon(1e-12));
  // An outlier cannot make a change: it moves one rank.
  std::vector<double> flat(40, 1.0);
  for (std::size_t i = 0; i < flat.size(); ++i) flat[i] = (i * 7919 % 13) / 13.0;
  flat[20] = 1e9;
  CHECK(pettitt_test(flat).p_value > 0.5);
  CHECK(pettitt_test(std::vector<double>{3}).p_value == 1);
  CHECK_THROWS_AS(pettitt_test(std::vector<double>{1, INFINITY}), std::invalid_argument);
}

namespace {
// Pettitt's test as it was first written (positions sorted through x, mid-ranks summed
// in doubles): the reference the faster form must equal exactly.
ChangeTest pettitt_by_indirect_sort(const std::vector<double>& x) {
  ChangeTest out;
  const std::size_t n = x.size();
  if (n < 2) return out;
  std::vector<std::size_t> idx(n);
  std::iota(idx.begin(), idx.end(), std::size_t{0});
  std::sort(idx.begin(), idx.end(), [&](std::size_t a, std::size_t b) { return x[a] < x[b]; });
  std::vector<double> rank(n);
  for (std::size_t i = 0; i < n;) {
    std::size_t j = i;
    while (j + 1 < n && x[idx[j + 1]] == x[idx[i]]) ++j;
    for (std::size_t k = i; k <= j; ++k) rank[idx[k]] = (static_cast<double>(i) + static_cast<double>(j)) / 2 + 1;
    i = j + 1;
  }
  const double nn = static_cast<double>(n);
  double sum = 0, best = 0;
  for (std::size_t t = 1; t < n; ++t) {
    sum += rank[t - 1];
    const double u = std::fabs(2 * sum - static_cast<double>(t) * (nn + 1));
    if (u > best) best = u, out.at = t;
  }
  out.statistic = best;
  out.p_value = std::min(1.0, 2 * std::exp(-6 * best * best / (nn * nn * nn + nn * nn)));
  return out;
}
}  // namespace

TEST_CASE("Pettitt's test: the same change, statistic and p-value as the indirect sort") {
  // Seeded series: continuous noise, noise rounded to a few levels (many ties), a step
  // in the middle, a drift, all equal; 2 to 20,000 values.
  Rng rng(46);
  for (std::size_t n : {2u, 3u, 7u, 40u, 257u, 1000u, 20000u}) {
    for (int kind = 0; kind < 5; ++kind) {
      std::vector<double> x(n);
      for (std::size_t i = 0; i < n; ++i) {
        const double e = rng.normal();
        switch (kind) {
          case 0: x[i] = e; break;
          case 1: x[i] = std::round(2 * e) / 2; break;
          case 2: x[i] = e + (i >= n / 2 ? 0.3 : 0.0); break;
          case 3: x[i] = std::round(e + static_cast<double>(i) / static_cast<double>(n)); break;
          default: x[i] = 1.5; break;
        }
      }
      const ChangeTest got = pettitt_test(x), want = pettitt_by_indirect_sort(x);
      INFO("n = " << n << ", series " << kind);
      CHECK(got.at == want.at);
      CHECK(got.statistic == want.statistic);
      CHECK(got.p_value == want.p_value);
    }
  }
}

TEST_CASE("slope method: least squares with a t interval by hand") {
  // x = 1 2 3 4, y = 3.1 4.9 7.2 8.8: sxx = 5, sxy = 9.7 -> slope 1.94, intercept 1.15;
  // residuals 0.01 -0.13 0.23 -0.11, RSS 0.082, se = sqrt(0.082/2/5) = 0.0905539;
  // t_{0.975,2} = 4.302653 (t table) -> CI 1.94 +- 0.389622.
  const auto f = fit_slope(std::vector<double>{1, 2, 3, 4}, std::vector<double>{3.1, 4.9, 7.2, 8.8});
  CHECK(f.slope == Approx(1.94));
  CHECK(f.intercept == Approx(1.15));
  REQUIRE(f.se);
  CHECK(*f.se == Approx(std::sqrt(0.0082)));
  REQUIRE(f.ci);
  CHECK(f.ci->lo == Approx(1.94 - 4.302653 * std::sqrt(0.0082)).epsilon(1e-6));
  CHECK(f.ci->hi == Approx(1.94 + 4.302653 * std::sqrt(0.0082)).epsilon(1e-6));

  // the two-point formula: (d2 - d1) / (N2 - N1).
  const auto two = fit_slope(std::vector<double>{100, 300}, std::vector<double>{1.5, 4.5});
  CHECK(two.slope == Approx(0.015));
  CHECK_FALSE(two.se);
  CHECK(fit_slope(std::vector<double>{1, 2, 3}, std::vector<double>{2, 2, 2}).slope == 0.0);
  CHECK_THROWS_WITH(fit_slope(std::vector<double>{2, 2}, std::vector<double>{1, 3}),
                    Contains("two different counts"));
}
