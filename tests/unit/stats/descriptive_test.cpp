#include <catch2/catch.hpp>

#include <cmath>
#include <limits>
#include <stdexcept>
#include <vector>

#include "stats/descriptive.h"
#include "stats/outliers.h"

using namespace obscheck::stats;
using Catch::Matchers::Contains;

namespace {
// Wikipedia, "Standard deviation" (worked example): mean 5, population variance 4,
// so the n-1 sample variance is 32/7.
const std::vector<double> kWiki{2, 4, 4, 4, 5, 5, 7, 9};
constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();
constexpr double kInf = std::numeric_limits<double>::infinity();
}  // namespace

TEST_CASE("descriptive statistics of the textbook sample") {
  CHECK(mean(kWiki) == 5.0);
  CHECK(variance(kWiki) == Approx(32.0 / 7.0).epsilon(1e-14));
  CHECK(stddev(kWiki) == Approx(std::sqrt(32.0 / 7.0)).epsilon(1e-14));
  CHECK(median(kWiki) == 4.5);
  // Definition 7, hand calculation: h = 7 * 0.25 = 1.75 -> x(1) + 0.75 (x(2) - x(1)) = 4;
  // h = 5.25 -> x(5) + 0.25 (x(6) - x(5)) = 5 + 0.25 * 2 = 5.5.
  CHECK(quantile(kWiki, 0.25) == 4.0);
  CHECK(quantile(kWiki, 0.75) == 5.5);
  CHECK(iqr(kWiki) == 1.5);
  // |x - 4.5| = 2.5 .5 .5 .5 .5 .5 2.5 4.5 -> median 0.5.
  CHECK(mad(kWiki) == 0.5);
  CHECK(cv(kWiki) == Approx(std::sqrt(32.0 / 7.0) / 5.0).epsilon(1e-14));
  const auto f = five_number(kWiki);
  CHECK(f.min == 2.0);
  CHECK(f.q1 == 4.0);
  CHECK(f.median == 4.5);
  CHECK(f.q3 == 5.5);
  CHECK(f.max == 9.0);
}

TEST_CASE("quantile definition 7 matches R's quantile(1:10)") {
  // R: quantile(1:10) -> 1.00 3.25 5.50 7.75 10.00 (type 7 is R's default).
  std::vector<double> x{10, 9, 8, 7, 6, 5, 4, 3, 2, 1};
  CHECK(quantile(x, 0.0) == 1.0);
  CHECK(quantile(x, 0.25) == 3.25);
  CHECK(quantile(x, 0.5) == 5.5);
  CHECK(quantile(x, 0.75) == 7.75);
  CHECK(quantile(x, 1.0) == 10.0);
  CHECK_THROWS_AS(quantile(x, 1.5), std::invalid_argument);
}

TEST_CASE("descriptive edge cases n = 0, 1, 2 and all values equal") {
  const std::vector<double> empty;
  CHECK_THROWS_AS(mean(empty), std::invalid_argument);
  CHECK_THROWS_AS(median(empty), std::invalid_argument);
  CHECK_THROWS_AS(five_number(empty), std::invalid_argument);

  const std::vector<double> one{3.5};
  CHECK(mean(one) == 3.5);
  CHECK(median(one) == 3.5);
  CHECK(mad(one) == 0.0);
  CHECK(iqr(one) == 0.0);
  CHECK(quantile(one, 0.9) == 3.5);
  CHECK_THROWS_WITH(variance(one), Contains("needs at least 2"));
  CHECK_THROWS_AS(cv(one), std::invalid_argument);

  const std::vector<double> two{1.0, 4.0};
  CHECK(median(two) == 2.5);
  CHECK(variance(two) == 4.5);
  CHECK(quantile(two, 0.25) == 1.75);

  const std::vector<double> same(7, 2.0);
  CHECK(variance(same) == 0.0);
  CHECK(mad(same) == 0.0);
  CHECK(iqr(same) == 0.0);
  CHECK(cv(same) == 0.0);
  CHECK_THROWS_WITH(cv(std::vector<double>{-1.0, 1.0}), Contains("mean is 0"));
}

TEST_CASE("NaN and infinity are rejected with a message naming the position") {
  const std::vector<double> with_nan{1.0, kNaN, 3.0};
  CHECK_THROWS_WITH(mean(with_nan), Contains("mean: x[1]") && Contains("not finite"));
  CHECK_THROWS_AS(median(with_nan), std::invalid_argument);
  CHECK_THROWS_AS(quantile(std::vector<double>{kInf, 1.0}, 0.5), std::invalid_argument);
  CHECK_THROWS_AS(label_outliers(with_nan), std::invalid_argument);
  Welford w;
  CHECK_THROWS_WITH(w.add(-kInf), Contains("not finite"));
  CHECK(w.count() == 0);
}

TEST_CASE("Welford agrees with the two-pass formulas and merges exactly") {
  Welford w;
  w.add(kWiki);
  CHECK(w.count() == 8);
  CHECK(w.mean() == Approx(5.0).epsilon(1e-15));
  CHECK(w.variance() == Approx(32.0 / 7.0).epsilon(1e-14));
  CHECK(w.min() == 2.0);
  CHECK(w.max() == 9.0);

  Welford a, b;
  a.add(std::span<const double>(kWiki).first(3));
  b.add(std::span<const double>(kWiki).subspan(3));
  a.merge(b);
  CHECK(a.count() == 8);
  CHECK(a.mean() == Approx(5.0).epsilon(1e-15));
  CHECK(a.variance() == Approx(32.0 / 7.0).epsilon(1e-14));

  Welford empty;
  CHECK_THROWS_AS(empty.mean(), std::invalid_argument);
  Welford one;
  one.add(1.0);
  CHECK_THROWS_AS(one.variance(), std::invalid_argument);
}

TEST_CASE("very large n: 10^7 values near 1e9 keep mean and variance exact") {
  // Values 1e9 + (i mod 2): mean 1e9 + 0.5, variance 0.25 n / (n - 1). The naive
  // sum-of-squares formula loses every digit here (1e18 vs 0.25).
  const std::size_t n = 10'000'000;
  std::vector<double> x(n);
  Welford w;
  for (std::size_t i = 0; i < n; ++i) {
    x[i] = 1e9 + static_cast<double>(i % 2);
    w.add(x[i]);
  }
  const double var = 0.25 * static_cast<double>(n) / static_cast<double>(n - 1);
  CHECK(mean(x) == 1e9 + 0.5);
  CHECK(variance(x) == Approx(var).epsilon(1e-9));
  CHECK(w.mean() == Approx(1e9 + 0.5).epsilon(1e-15));
  CHECK(w.variance() == Approx(var).epsilon(1e-6));
  CHECK(median(x) == 1e9 + 0.5);
  CHECK(quantile(x, 0.25) == 1e9);
}

TEST_CASE("Tukey fences label mild and severe outliers without dropping them") {
  // Sorted 1..10, 20, 100 (n = 12). Definition 7: Q1 at h = 2.75 -> 3.75,
  // Q3 at h = 8.25 -> 9.25, IQR 5.5. Fences: mild (-4.5, 17.5), severe (-12.75, 25.75).
  const std::vector<double> x{20, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 100};
  const auto rep = label_outliers(x);
  CHECK(rep.fences.mild_low == -4.5);
  CHECK(rep.fences.mild_high == 17.5);
  CHECK(rep.fences.severe_low == -12.75);
  CHECK(rep.fences.severe_high == 25.75);
  REQUIRE(rep.labels.size() == x.size());
  CHECK(rep.labels[0] == OutlierLabel::mild_high);
  CHECK(rep.labels[11] == OutlierLabel::severe_high);
  CHECK(rep.labels[5] == OutlierLabel::none);
  CHECK(rep.mild_high == 1);
  CHECK(rep.severe_high == 1);
  CHECK(rep.total() == 2);
  CHECK(std::string(to_string(rep.labels[0])) == "mild high");

  const auto same = label_outliers(std::vector<double>(5, 1.0));
  CHECK(same.total() == 0);
  CHECK_THROWS_AS(label_outliers(std::vector<double>{}), std::invalid_argument);
}
