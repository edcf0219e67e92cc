#include <catch2/catch.hpp>

#include <cmath>
#include <limits>
#include <stdexcept>
#include <vector>

#include "stats/pipeline.h"

using namespace obscheck::stats;
using Catch::Matchers::Contains;

TEST_CASE("paired_log_effect on a deterministic 2% effect") {
  // Every block: config = 1.02 baseline exactly (e.g. instruction counts), so d is
  // constant ln 1.02: se 0, the CI is the point, and only the two extreme sign
  // patterns reach |T|: p = 2 / 2^10.
  std::vector<double> base{100, 101, 99, 100.5, 100.2, 99.7, 100.1, 100.9, 99.3, 100};
  std::vector<double> conf;
  for (double b : base) conf.push_back(b * 1.02);
  const auto r = paired_log_effect(conf, base);
  CHECK(r.n == 10);
  CHECK(r.effect == Approx(0.02).epsilon(1e-12));
  CHECK(r.mean_log == Approx(std::log(1.02)).epsilon(1e-12));
  CHECK(r.se_iid == Approx(0.0).margin(1e-15));
  CHECK(r.ci_ratio.lo == Approx(1.02).epsilon(1e-12));
  CHECK(r.ci_ratio.hi == Approx(1.02).epsilon(1e-12));
  CHECK(r.p_exact);
  CHECK(r.p_value == 2.0 / 1024.0);
  CHECK(r.p_method == "sign-flip exact (2^10 patterns)");
  CHECK_FALSE(r.tost.equivalent);  // 2% is outside +-1%

  PairedOptions wide;
  wide.margin = 0.05;
  CHECK(paired_log_effect(conf, base, wide).tost.equivalent);
}

TEST_CASE("paired_log_effect: Monte Carlo p, method names and CI choice") {
  std::vector<double> base, conf;
  for (int i = 0; i < 40; ++i) {
    base.push_back(100.0 + (i % 7));
    conf.push_back(100.0 + ((i * 3) % 7));
  }
  PairedOptions o;
  o.seed = 3;
  const auto r = paired_log_effect(conf, base, o);
  CHECK_FALSE(r.p_exact);
  CHECK(r.p_method == "sign-flip Monte Carlo (B=10000)");
  CHECK(r.p_value > 0.0);
  CHECK(r.p_value <= 1.0);
  CHECK(r.se_used == std::max(r.se_iid, r.se_hac));
  CHECK(r.ci_log.width() == std::max(r.ci_t.width(), r.ci_bootstrap.width()));
  CHECK(r.ci_ratio.lo == Approx(std::exp(r.ci_log.lo)));
  const bool named = r.ci_method == "t+iid" || r.ci_method.rfind("t+HAC(lag=", 0) == 0 ||
                     r.ci_method.rfind("circular block bootstrap(b=", 0) == 0;
  CHECK(named);
  // Same seed, same answer.
  const auto again = paired_log_effect(conf, base, o);
  CHECK(again.p_value == r.p_value);
  CHECK(again.ci_bootstrap.lo == r.ci_bootstrap.lo);
}

TEST_CASE("paired_log_effect rejects what it cannot analyse") {
  const std::vector<double> a{1, 2, 3}, b{1, 2};
  CHECK_THROWS_WITH(paired_log_effect(a, b), Contains("every block needs one value of each"));
  CHECK_THROWS_WITH(paired_log_effect(std::vector<double>{1, 0}, std::vector<double>{1, 1}),
                    Contains("values > 0"));
  CHECK_THROWS_WITH(paired_log_effect(std::vector<double>{1, std::numeric_limits<double>::quiet_NaN()},
                                      std::vector<double>{1, 1}),
                    Contains("not finite"));
  CHECK_THROWS_AS(paired_log_effect(std::vector<double>{1}, std::vector<double>{1}), std::invalid_argument);
  PairedOptions bad;
  bad.margin = 0.0;
  CHECK_THROWS_AS(paired_log_effect(a, a, bad), std::invalid_argument);
  // n = 2 is the smallest analysable experiment.
  const auto two = paired_log_effect(std::vector<double>{1.1, 1.2}, std::vector<double>{1.0, 1.0});
  CHECK(two.p_value == 0.5);  // 2 of 4 patterns reach |T|
}

TEST_CASE("summarize the textbook sample") {
  const std::vector<double> x{2, 4, 4, 4, 5, 5, 7, 9};
  const auto s = summarize(x);
  CHECK(s.n == 8);
  CHECK(s.mean == 5.0);
  CHECK(s.median == 4.5);
  CHECK(s.five.q1 == 4.0);
  CHECK(s.five.q3 == 5.5);
  CHECK(s.mad == 0.5);
  CHECK(s.iqr == 1.5);
  REQUIRE(s.cv);
  CHECK(*s.cv == Approx(std::sqrt(32.0 / 7.0) / 5.0));
  REQUIRE(s.median_ci);
  CHECK(s.median_ci->lo <= 4.5);
  CHECK(s.median_ci->hi >= 4.5);
  CHECK(s.median_ci->lo >= 2.0);
  CHECK(s.median_ci->hi <= 9.0);
  CHECK(s.resamples == 10000);
  // 9 is beyond Q3 + 1.5 IQR = 7.75 but within Q3 + 3 IQR = 10: one mild outlier;
  // 2 lies above Q1 - 1.5 IQR = 1.75, so nothing is low.
  CHECK(s.outliers_mild == 1);
  CHECK(s.outliers_severe == 0);

  const auto one = summarize(std::vector<double>{7.0});
  CHECK(one.median == 7.0);
  CHECK_FALSE(one.stddev);
  CHECK_FALSE(one.cv);
  CHECK_FALSE(one.median_ci);
  CHECK_THROWS_AS(summarize(std::vector<double>{}), std::invalid_argument);
  const auto same = summarize(std::vector<double>(5, 3.0));
  CHECK(same.median_ci->lo == 3.0);
  CHECK(same.median_ci->hi == 3.0);
}

TEST_CASE("summarize a million values") {
  std::vector<double> x(1'000'000);
  for (std::size_t i = 0; i < x.size(); ++i) x[i] = static_cast<double>((i * 7919) % 1'000'000);
  // A permutation of 0..999999: median 499999.5, quartiles by definition 7 at
  // h = 999999 * 0.25 = 249999.75 -> 249999.75.
  const auto s = summarize(x, {0.95, 1000, 1});
  CHECK(s.median == 499999.5);
  CHECK(s.five.q1 == Approx(249999.75));
  CHECK(s.mad == 250000.0);
  CHECK(s.median_ci->lo > 498000.0);
  CHECK(s.median_ci->hi < 502000.0);
}
