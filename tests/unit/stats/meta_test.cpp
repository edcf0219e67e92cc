#include <catch2/catch.hpp>

#include <cmath>
#include <stdexcept>
#include <vector>

#include "stats/meta.h"

using namespace obscheck::stats;

TEST_CASE("random effects: DerSimonian-Laird tau^2, Hartung-Knapp interval, Cochran's Q, by hand") {
  // Three hosts: 0% ± 1, +10% ± 2, +2% ± 1.5 (standard errors). Weights 10000, 2500,
  // 4444.4; the fixed-effect mean 0.03; Q = 20 exactly; tau^2 = (20 - 2) / (S1 - S2/S1).
  const std::vector<double> y{0.0, 0.10, 0.02}, se{0.01, 0.02, 0.015};
  const RandomEffects r = random_effects(y, se, 0.90);
  CHECK(r.k == 3);
  CHECK(r.q == Approx(20.0).epsilon(1e-12));
  CHECK(r.tau2 == Approx(0.0018931034482758619).epsilon(1e-12));
  CHECK(r.mean == Approx(0.03762670882544406).epsilon(1e-12));
  CHECK(r.se == Approx(0.030092687058804073).epsilon(1e-12));
  CHECK(r.i2 == Approx(0.9).epsilon(1e-12));
  CHECK(r.p_heterogeneity == Approx(std::exp(-10.0)).epsilon(1e-9));  // chi^2 on 2 df: e^(-Q/2)
  // t on 2 degrees of freedom at 95%: 2.919985580355516.
  CHECK(r.lo == Approx(r.mean - 2.919985580355516 * r.se).epsilon(1e-9));
  CHECK(r.hi == Approx(r.mean + 2.919985580355516 * r.se).epsilon(1e-9));
  // Hosts that disagree make the pooled interval wider than any host's own.
  for (double s : se) CHECK(r.hi - r.lo > 2 * 1.6448536269514722 * s);
}

TEST_CASE("random effects: hosts that agree pool to the fixed-effect answer, never narrower than it") {
  const std::vector<double> y{0.01, 0.01, 0.01}, se{0.01, 0.01, 0.01};
  const RandomEffects r = random_effects(y, se, 0.90);
  CHECK(r.q == 0);
  CHECK(r.tau2 == 0);
  CHECK(r.i2 == 0);
  CHECK(r.p_heterogeneity == 1);
  CHECK(r.mean == Approx(0.01));
  CHECK(r.se == Approx(0.01 / std::sqrt(3.0)));  // 1 / sqrt(sum of weights): the floor
}

TEST_CASE("random effects: one host is its own estimate, bad input is refused") {
  const std::vector<double> y{0.05}, se{0.01};
  const RandomEffects r = random_effects(y, se, 0.90);
  CHECK(r.mean == 0.05);
  CHECK(r.lo == Approx(0.05 - 1.6448536269514722 * 0.01));
  CHECK_THROWS_AS(random_effects(std::vector<double>{}, std::vector<double>{}, 0.9), std::invalid_argument);
  CHECK_THROWS_AS(random_effects(std::vector<double>{0.1}, std::vector<double>{0}, 0.9), std::invalid_argument);
  CHECK_THROWS_AS(random_effects(std::vector<double>{0.1, 0.2}, std::vector<double>{0.1}, 0.9), std::invalid_argument);
  CHECK_THROWS_AS(random_effects(y, se, 1.0), std::invalid_argument);
}
