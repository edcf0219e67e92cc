#include <catch2/catch.hpp>

#include <algorithm>
#include <cmath>
#include <limits>
#include <stdexcept>
#include <vector>

#include "stats/bootstrap.h"
#include "stats/dependence.h"
#include "stats/descriptive.h"
#include "stats/rng.h"

using namespace obscheck::stats;
using Catch::Matchers::Contains;

namespace {

std::vector<double> ar1(std::size_t n, double phi, std::uint64_t seed) {
  Rng rng(seed);
  std::vector<double> x(n);
  double e = rng.normal() / std::sqrt(1.0 - phi * phi);
  for (double& v : x) {
    e = phi * e + rng.normal();
    v = e;
  }
  return x;
}

}  // namespace

TEST_CASE("autocovariance, HAC and truncated-lag SE by hand on 1..5") {
  // Deviations from the mean 3: -2 -1 0 1 2 (divisor n = 5):
  // gamma0 = 10/5 = 2, gamma1 = (2 + 0 + 0 + 2)/5 = 0.8, gamma2 = (0 - 1 + 0)/5 = -0.2,
  // gamma3 = (-2 - 2)/5 = -0.8, gamma4 = -4/5 = -0.8.
  const std::vector<double> x{1, 2, 3, 4, 5};
  const auto g = autocovariance(x, 10);  // clamped to n - 1 = 4
  REQUIRE(g.size() == 5);
  CHECK(g[0] == Approx(2.0));
  CHECK(g[1] == Approx(0.8));
  CHECK(g[2] == Approx(-0.2));
  CHECK(g[3] == Approx(-0.8));
  CHECK(g[4] == Approx(-0.8));
  CHECK(autocorrelation(x, 1)[1] == Approx(0.4));

  // Bartlett, L = 2: lrv = 2 + 2 (2/3) 0.8 + 2 (1/3) (-0.2) = 44/15; se = sqrt(44/75).
  const auto h = hac_se(x, 2);
  CHECK(h.lag == 2);
  CHECK(h.long_run_variance == Approx(44.0 / 15.0));
  CHECK(h.se == Approx(std::sqrt(44.0 / 75.0)));

  // Newey-West 1994: n_pre = floor(4 (5/100)^(2/9)) = floor(2.056) = 2, s0 = 2 + 2 (0.8 - 0.2)
  // = 3.2, s1 = 2 (0.8 - 0.4) = 0.8, lag = floor(1.1447 (0.25^2)^(1/3) 5^(1/3)) = floor(0.777) = 0.
  CHECK(newey_west_lag(x) == 0);
  CHECK(hac_se(x).se == Approx(std::sqrt(2.0 / 5.0)));

  // "Estimating Benchmark Results Uncertainty" formula (6) cut at K = floor(sqrt 5) = 2:
  // (1/5) (2 + (2/5) (4 * 0.8 + 3 * (-0.2))) = 3.04 / 5.
  CHECK(truncated_lag_se(x) == Approx(std::sqrt(3.04 / 5.0)));
  CHECK(iid_se(x) == Approx(std::sqrt(2.5 / 5.0)));
}

TEST_CASE("dependence edge cases") {
  const std::vector<double> same(20, 3.0);
  CHECK(hac_se(same).se == 0.0);
  CHECK(newey_west_lag(same) == 0);
  CHECK(effective_sample_size(same) == 20.0);
  CHECK(politis_white_block_length(same).circular_blocks == 1);
  CHECK(autocorrelation(same, 2) == std::vector<double>{1.0, 0.0, 0.0});
  CHECK_THROWS_AS(hac_se(std::vector<double>{1.0}), std::invalid_argument);
  CHECK_THROWS_AS(autocovariance(std::vector<double>{}, 1), std::invalid_argument);
  CHECK_THROWS_WITH(hac_se(std::vector<double>{1.0, std::numeric_limits<double>::quiet_NaN()}),
                    Contains("not finite"));
  const std::vector<double> two{1.0, 2.0};
  CHECK(hac_se(two).lag == 0);
  CHECK(hac_se(two).se == Approx(std::sqrt(0.25 / 2.0)));
}

TEST_CASE("HAC recovers the long-run variance of AR(1) phi = 0.5") {
  // Unit innovations: long-run variance 1 / (1 - phi)^2 = 4, so the SE of the mean of
  // 20,000 values is sqrt(4 / 20000) = 0.01414; the iid formula sees only
  // gamma0 = 1 / (1 - phi^2) = 4/3 and gives 0.00816. Effective n = n (1-phi)/(1+phi).
  const auto x = ar1(20000, 0.5, 7);
  const auto h = hac_se(x);
  CHECK(h.se == Approx(std::sqrt(4.0 / 20000.0)).epsilon(0.12));
  CHECK(iid_se(x) == Approx(std::sqrt(4.0 / 3.0 / 20000.0)).epsilon(0.05));
  CHECK(h.lag >= 15);
  CHECK(h.lag <= 45);
  CHECK(effective_sample_size(x) == Approx(20000.0 / 3.0).epsilon(0.2));
  CHECK(truncated_lag_se(x) == Approx(std::sqrt(4.0 / 20000.0)).epsilon(0.12));
}

TEST_CASE("Politis-White block length: 1 for white noise, long for AR(1) phi = 0.9") {
  const auto white = ar1(2000, 0.0, 11);
  CHECK(politis_white_block_length(white).circular_blocks == 1);
  // Population value: G/g = 2 phi / ((1-phi)(1+phi)) = 9.47, so
  // b_CB = (2 * 9.47^2 / (4/3))^(1/3) * 10000^(1/3) = 5.12 * 21.5 = 110.
  const auto b = politis_white_block_length(ar1(10000, 0.9, 12));
  CHECK(b.circular > 60.0);
  CHECK(b.circular < 200.0);
  CHECK(b.stationary == Approx(b.circular * std::cbrt(2.0 / 3.0)).epsilon(1e-9));
}

TEST_CASE("bootstrap: median replicates follow the exact order-statistic distribution") {
  // n = 3, sorted a < b < c: the median of 3 draws is a with probability
  // P(>= 2 of 3 draws are a) = 3 (1/3)^2 (2/3) + (1/3)^3 = 7/27 = 0.259, b with 13/27,
  // c with 7/27. Level 0.5 -> quantiles 0.25, 0.75 of the replicates = a and c;
  // level 0.45 -> 0.275 and 0.725 = b and b.
  const std::vector<double> three{10.0, 30.0, 20.0};
  BootstrapOptions o{100000, 0.5, 3};
  auto r = bootstrap(three, Statistic::median, o);
  CHECK(r.estimate == 20.0);
  CHECK(r.percentile.lo == 10.0);
  CHECK(r.percentile.hi == 30.0);
  o.level = 0.45;
  r = bootstrap(three, Statistic::median, o);
  CHECK(r.percentile.lo == 20.0);
  CHECK(r.percentile.hi == 20.0);

  // n = 2, a < b: median of 2 draws is a (1/4), (a+b)/2 (1/2), b (1/4).
  const std::vector<double> two{1.0, 3.0};
  o.level = 0.4;  // quantiles 0.3, 0.7 -> both 2
  r = bootstrap(two, Statistic::median, o);
  CHECK(r.percentile.lo == 2.0);
  CHECK(r.percentile.hi == 2.0);
  o.level = 0.6;  // quantiles 0.2, 0.8 -> 1 and 3
  r = bootstrap(two, Statistic::median, o);
  CHECK(r.percentile.lo == 1.0);
  CHECK(r.percentile.hi == 3.0);
}

TEST_CASE("bootstrap of the mean: plug-in SE and jackknife acceleration by hand") {
  // x = 1..10: the bootstrap SE of the mean is the plug-in sd / sqrt(n) =
  // sqrt(8.25) / sqrt(10) = 0.90830; symmetric data -> acceleration 0.
  std::vector<double> x;
  for (int i = 1; i <= 10; ++i) x.push_back(i);
  const auto r = bootstrap(x, Statistic::mean, {20000, 0.95, 5});
  CHECK(r.estimate == 5.5);
  CHECK(r.se == Approx(std::sqrt(8.25 / 10.0)).epsilon(0.03));
  CHECK(r.acceleration == Approx(0.0).margin(1e-12));
  CHECK(r.percentile.lo < 5.5);
  CHECK(r.percentile.hi > 5.5);

  // x = 1 2 3 4 10: deviations -3 -2 -1 0 6, a = sum d^3 / (6 (sum d^2)^1.5)
  // = 180 / (6 * 50^1.5) = 0.0848528 (Efron & Tibshirani 1993, eq. 14.15).
  const std::vector<double> skew{1, 2, 3, 4, 10};
  const auto s = bootstrap(skew, Statistic::mean, {2000, 0.95, 5});
  CHECK(s.acceleration == Approx(180.0 / (6.0 * std::pow(50.0, 1.5))).epsilon(1e-12));
  // Right skew: BCa moves both limits up relative to the percentile interval.
  CHECK(s.bca.hi >= s.percentile.hi);
}

TEST_CASE("bootstrap determinism, all-equal data and invalid input") {
  const std::vector<double> x{3.1, 2.7, 3.3, 2.9, 3.8, 3.0, 2.5};
  const auto a = bootstrap(x, Statistic::median, {1000, 0.95, 42});
  const auto b = bootstrap(x, Statistic::median, {1000, 0.95, 42});
  CHECK(a.percentile.lo == b.percentile.lo);
  CHECK(a.bca.hi == b.bca.hi);

  const std::vector<double> same(9, 4.0);
  for (auto st : {Statistic::mean, Statistic::median}) {
    const auto r = bootstrap(same, st, {500, 0.95, 1});
    CHECK(r.percentile.lo == 4.0);
    CHECK(r.percentile.hi == 4.0);
    CHECK(r.bca.lo == 4.0);
    CHECK(r.bca.hi == 4.0);
  }
  CHECK_THROWS_AS(bootstrap(std::vector<double>{1.0}, Statistic::mean), std::invalid_argument);
  CHECK_THROWS_AS(bootstrap(x, Statistic::mean, {0, 0.95, 1}), std::invalid_argument);
  CHECK_THROWS_AS(bootstrap(x, Statistic::mean, {10, 1.5, 1}), std::invalid_argument);
}

TEST_CASE("ratio of medians") {
  const std::vector<double> num{2, 4, 6, 8, 10, 12, 14};
  const std::vector<double> den{1, 2, 3, 4, 5, 6, 7};
  const auto r = bootstrap_ratio_of_medians(num, den, {4000, 0.95, 9});
  CHECK(r.estimate == 2.0);
  CHECK(r.percentile.lo < 2.0);
  CHECK(r.percentile.hi > 2.0);
  CHECK(r.bca.lo <= r.bca.hi);
  CHECK_THROWS_WITH(bootstrap_ratio_of_medians(num, std::vector<double>{-1, 0, 0}),
                    Contains("medians must be > 0"));
}

TEST_CASE("circular block bootstrap: b = n reproduces the mean, b = 1 is the iid bootstrap") {
  const std::vector<double> x{4, 8, 15, 16, 23, 42};
  // One block of length n starting anywhere on the circle is the whole sample.
  const auto whole = circular_block_bootstrap_mean(x, {200, 0.95, 1}, 6);
  CHECK(whole.percentile.lo == Approx(18.0));
  CHECK(whole.percentile.hi == Approx(18.0));
  CHECK(whole.block_length == 6);
  // A constant series: every window sums to the same value, so every replicate mean
  // is that value (exactly 0 for zeros, 2.5 for 2.5s: sums of 2.5 are exact).
  const auto zeros = circular_block_bootstrap_mean(std::vector<double>(7, 0.0), {500, 0.95, 1}, 2);
  CHECK(zeros.percentile.lo == 0.0);
  CHECK(zeros.percentile.hi == 0.0);
  CHECK(zeros.se == 0.0);
  const auto halves = circular_block_bootstrap_mean(std::vector<double>(7, 2.5), {500, 0.95, 1}, 3);
  CHECK(halves.percentile.lo == 2.5);
  CHECK(halves.percentile.hi == 2.5);
  CHECK(halves.resamples == 500);
  // b = 1: plug-in SE sd_n / sqrt(n); sd_n^2 = sum (x - 18)^2 / 6 = (196+100+9+4+25+576) / 6 = 910 / 6.
  const auto iid = circular_block_bootstrap_mean(x, {40000, 0.95, 2}, 1);
  CHECK(iid.se == Approx(std::sqrt(910.0 / 6.0 / 6.0)).epsilon(0.03));
  // Automatic block length on AR(1) phi = 0.9: the SE approaches the long-run value
  // sqrt(1/(1-phi)^2 / n) = 0.1 for n = 10000, far above iid's 0.023.
  const auto dep = circular_block_bootstrap_mean(ar1(10000, 0.9, 4), {2000, 0.95, 3});
  CHECK(dep.block_length > 30);
  CHECK(dep.se > 0.07);
  CHECK(dep.se < 0.13);
}

TEST_CASE("circular block bootstrap: drawing blocks by tuples keeps the replicate variance") {
  // n = 21, b = 2: 10 full blocks (drawn as 3 triples and 1 single) and a rest of 1.
  // The replicate mean's variance is exactly (10 Var(block sums) + Var(values)) / n^2,
  // the variances taken over the 21 circular windows.
  std::vector<double> x;
  for (int i = 0; i < 21; ++i) x.push_back(std::sin(0.7 * i) * 10.0 + i % 4);
  const std::size_t n = x.size();
  const auto population_variance = [](const std::vector<double>& v) {
    double m = 0.0, s = 0.0;
    for (double w : v) m += w;
    m /= static_cast<double>(v.size());
    for (double w : v) s += (w - m) * (w - m);
    return s / static_cast<double>(v.size());
  };
  std::vector<double> pairs(n);
  for (std::size_t i = 0; i < n; ++i) pairs[i] = x[i] + x[(i + 1) % n];
  const double var = (10.0 * population_variance(pairs) + population_variance(x)) / static_cast<double>(n * n);
  const auto r = circular_block_bootstrap_mean(x, {40000, 0.95, 11}, 2);
  CHECK(r.block_length == 2);
  CHECK(r.se == Approx(std::sqrt(var)).epsilon(0.02));
  // The interval is centred near the mean: the replicates are unbiased for it.
  CHECK((r.percentile.lo + r.percentile.hi) / 2 == Approx(r.estimate).margin(0.2 * std::sqrt(var)));
}

TEST_CASE("hierarchical bootstrap over contexts and runs") {
  // Two constant contexts: the replicate mean is 1, 2 or 3 with probability 1/4, 1/2,
  // 1/4 (which context is drawn twice), so level 0.4 -> [2, 2] and 0.6 -> [1, 3].
  const std::vector<std::vector<double>> ctx{{1.0, 1.0}, {3.0, 3.0}};
  auto r = hierarchical_bootstrap_mean(ctx, {20000, 0.4, 8});
  CHECK(r.estimate == 2.0);
  CHECK(r.percentile.lo == 2.0);
  CHECK(r.percentile.hi == 2.0);
  r = hierarchical_bootstrap_mean(ctx, {20000, 0.6, 8});
  CHECK(r.percentile.lo == 1.0);
  CHECK(r.percentile.hi == 3.0);

  const std::vector<std::vector<double>> den{{1.0, 1.0}, {1.0, 1.0}};
  const auto q = hierarchical_bootstrap_ratio_of_means(ctx, den, {2000, 0.95, 1});
  CHECK(q.estimate == 2.0);
  CHECK_THROWS_WITH(hierarchical_bootstrap_mean(std::vector<std::vector<double>>{{1.0}}),
                    Contains("at least 2 contexts"));
  CHECK_THROWS_WITH(hierarchical_bootstrap_mean(std::vector<std::vector<double>>{{1.0}, {}}),
                    Contains("context 1 has no runs"));
}

TEST_CASE("percentile interval: the definition-7 quantiles of the sorted replicates, on every path") {
  // Large sets take a sampled shortcut, small ones or wide tails a full selection;
  // both must give exactly the sorted replicates' quantiles, ties and sorted input
  // (where a strided sample is not random) included.
  Rng rng(21);
  for (std::size_t n : {7u, 999u, 1000u, 10000u}) {
    std::vector<std::vector<double>> sets(4, std::vector<double>(n));
    for (std::size_t i = 0; i < n; ++i) {
      sets[0][i] = rng.normal();
      sets[1][i] = static_cast<double>(rng.index(5));  // heavy ties
      sets[2][i] = static_cast<double>(i);             // ascending
      sets[3][i] = -static_cast<double>(i);            // descending
    }
    for (const auto& set : sets)
      for (double level : {0.5, 0.95, 0.975, 0.99}) {
        std::vector<double> sorted = set, work = set;
        std::sort(sorted.begin(), sorted.end());
        const double tail = (1.0 - level) / 2.0;
        const Interval got = percentile_interval(work, level);
        CHECK(got.lo == quantile_sorted(sorted, tail));
        CHECK(got.hi == quantile_sorted(sorted, 1.0 - tail));
      }
  }
}

TEST_CASE("median percentile bootstrap: bit-for-bit the full bootstrap's percentile interval") {
  // summarize() takes this shortcut; it must not move a single reported limit.
  Rng rng(37);
  for (std::size_t n : {2u, 3u, 8u, 299u, 300u}) {
    std::vector<std::vector<double>> sets(4, std::vector<double>(n));
    for (std::size_t i = 0; i < n; ++i) {
      sets[0][i] = std::exp(rng.normal());               // skewed, like durations
      sets[1][i] = 47.0 + static_cast<double>(rng.index(2));  // page-faults: two values
      sets[2][i] = i == 0 ? 1.0 : 0.0;                   // one run differs
      sets[3][i] = 5.0;                                   // all equal: no draws
    }
    for (const auto& set : sets)
      for (BootstrapOptions o : {BootstrapOptions{10000, 0.95, 7}, BootstrapOptions{999, 0.9, 1},
                                 BootstrapOptions{1, 0.95, 3}}) {
        const Interval fast = bootstrap_median_percentile(set, o);
        const Interval full = bootstrap(set, Statistic::median, o).percentile;
        CHECK(fast.lo == full.lo);
        CHECK(fast.hi == full.hi);
        const MedianResampleTable table(n, o);  // the draws of every sample of n values
        CHECK(table.serves(n, o));
        const Interval shared = bootstrap_median_percentile(set, o.level, table);
        CHECK(shared.lo == full.lo);
        CHECK(shared.hi == full.hi);
      }
  }
  CHECK_THROWS_AS(bootstrap_median_percentile(std::vector<double>{1.0}), std::invalid_argument);
  CHECK_THROWS_AS(bootstrap_median_percentile(std::vector<double>{1.0, std::nan("")}), std::invalid_argument);
  CHECK_THROWS_AS(bootstrap_median_percentile(std::vector<double>{1.0, 2.0}, {0, 0.95, 1}), std::invalid_argument);
  const MedianResampleTable three(3, {100, 0.95, 1});
  CHECK_FALSE(three.serves(4, {100, 0.95, 1}));
  CHECK_FALSE(three.serves(3, {100, 0.95, 2}));
  CHECK_FALSE(three.serves(3, {99, 0.95, 1}));
  CHECK_THROWS_AS(bootstrap_median_percentile(std::vector<double>{1.0, 2.0}, 0.95, three), std::invalid_argument);
  CHECK_THROWS_AS(MedianResampleTable(1, {100, 0.95, 1}), std::invalid_argument);
}
