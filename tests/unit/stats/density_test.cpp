// The numbers a distribution figure draws (stats/density.h): seeded jitter, Silverman's
// bandwidth and the Gaussian kernel density, against exact values.
#include <catch2/catch.hpp>

#include <algorithm>
#include <cmath>
#include <stdexcept>
#include <vector>

#include "stats/density.h"

using namespace obscheck;

TEST_CASE("density: jitter is deterministic, bounded and stable under appending") {
  const auto a = stats::jitter(50, 7);
  CHECK(a == stats::jitter(50, 7));
  const auto prefix = stats::jitter(10, 7);
  CHECK(std::vector<double>(a.begin(), a.begin() + 10) == prefix);
  CHECK(a != stats::jitter(50, 8));
  for (double v : a) {
    CHECK(v >= -1);
    CHECK(v <= 1);
  }
  // Both sides are used: 50 uniform draws all on one side has probability 2^-49.
  CHECK(std::count_if(a.begin(), a.end(), [](double v) { return v < 0; }) > 0);
  CHECK(std::count_if(a.begin(), a.end(), [](double v) { return v > 0; }) > 0);
}

TEST_CASE("density: Silverman bandwidth matches R's bw.nrd0") {
  // x = 1..10: sd = sqrt(55/6) = 3.02765, IQR (type 7) = 7.75 - 3.25 = 4.5, 4.5/1.34 = 3.35821;
  // h = 0.9 * 3.02765 * 10^(-1/5) = 1.7192864 (R: bw.nrd0(1:10) = 1.719286).
  std::vector<double> x{1, 2, 3, 4, 5, 6, 7, 8, 9, 10};
  CHECK(stats::silverman_bandwidth(x) == Approx(1.719286404692283).epsilon(1e-12));
  // All equal: sd = 0, so bw.nrd0 falls back to |x_0|: 0.9 * 4 * 2^(-1/5).
  std::vector<double> same{4, 4};
  CHECK(stats::silverman_bandwidth(same) == Approx(0.9 * 4 * std::pow(2.0, -0.2)));
  std::vector<double> one{1};
  CHECK_THROWS_AS(stats::silverman_bandwidth(one), std::invalid_argument);
}

TEST_CASE("density: kde is the Gaussian kernel density") {
  std::vector<double> x{0}, at{0};
  CHECK(stats::kde(x, 1, at)[0] == Approx(0.3989422804014327));  // φ(0)
  std::vector<double> two{-1, 1};
  CHECK(stats::kde(two, 1, at)[0] == Approx(0.24197072451914337));  // (φ(1) + φ(1)) / 2
  std::vector<double> half_h{0};
  CHECK(stats::kde(half_h, 0.5, at)[0] == Approx(2 * 0.3989422804014327));
  CHECK(stats::kde(std::vector<double>{}, 1, at)[0] == 0);
}
