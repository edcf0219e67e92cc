// The warm-up's forecast (analysis/forecast.h): the budget --time-budget auto chooses
// stays within its floor and ceiling, and no interval is promised before the sequence
// is bounded.
#include <catch2/catch.hpp>

#include <cmath>

#include "analysis/forecast.h"

using namespace obscheck;

TEST_CASE("forecast: no blocks promise no interval, no noise shows any margin once the sequence is bounded") {
  CHECK(std::isinf(likely_half_width(0.05, 0)));
  const std::size_t n = blocks_to_show(0.0, 0.01, 1000);
  REQUIRE(n > 0);
  CHECK(likely_half_width(0.0, n) == 0.0);
  CHECK(std::isinf(likely_half_width(0.0, n - 1)));
}

TEST_CASE("forecast: the auto budget stays within its floor and ceiling") {
  CHECK(auto_budget(0.05, 0.0, 0.01, 1) == kAutoBudgetCeilingS);      // no pace known
  CHECK(auto_budget(0.0, 0.001, 0.01, 1) == kAutoBudgetFloorS);       // fast and quiet
  CHECK(auto_budget(10.0, 1.0, 0.01, 1) == kAutoBudgetCeilingS);      // nothing fits
  const double b = auto_budget(0.05, 0.01, 0.01, 1);
  CHECK(b >= kAutoBudgetFloorS);
  CHECK(b <= kAutoBudgetCeilingS);
}
