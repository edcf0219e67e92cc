// The forecasts (analysis/forecast.h): the budget --time-budget auto chooses stays
// within its floor and ceiling, no interval is promised before the sequence is
// bounded, and the first look's forecast speaks of the blocks the check may still run.
#include <catch2/catch.hpp>

#include <cmath>
#include <optional>

#include "analysis/check_internal.h"
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

namespace {

// A look's findings with one task-clock and one wall-time comparison on the ratio
// scale, at `blocks` measured blocks.
Findings look_at(std::size_t blocks, double robust, double pooled) {
  Findings f;
  f.metrics.push_back({"task-clock", "ns", false, 0, true});
  f.metrics.push_back({"wall-time", "ns", true, std::nullopt, true});
  for (std::size_t m = 0; m < 2; ++m) {
    Comparison c;
    c.metric = m;
    c.n = blocks;
    c.scale = Scale::ratio;
    f.comparisons.push_back(c);
  }
  f.measured_blocks = blocks;
  f.spread = {pooled, pooled};
  f.robust_spread = {robust, robust};
  return f;
}

}  // namespace

TEST_CASE("forecast: the interval narrows with blocks and widens with noise, none without blocks") {
  CHECK(std::isinf(interval_half_width(0.01, 0.01, 0, 0.05)));
  const double at100 = interval_half_width(0.01, 0.01, 100, 0.05);
  const double at400 = interval_half_width(0.01, 0.01, 400, 0.05);
  REQUIRE(std::isfinite(at100));
  CHECK(at400 < at100);
  CHECK(interval_half_width(0.02, 0.02, 100, 0.05) > at100);
  // A wider t-test floor cannot narrow the interval.
  CHECK(interval_half_width(0.01, 0.05, 100, 0.05) >= at100);
}

TEST_CASE("forecast: the first look's forecast speaks of the blocks the check may still run, never more") {
  const Findings f = look_at(10, 0.01, 0.02);
  const auto capped = first_look_forecast(f, 40);
  REQUIRE(capped);
  CHECK(capped->metric == "task-clock");
  CHECK(capped->blocks == 40);  // the cap or the budget, not a block more
  CHECK(capped->half_width == interval_half_width(0.01, 0.02, 40, 0.05));
  const auto longer = first_look_forecast(f, 1000);
  REQUIRE(longer);
  CHECK(longer->blocks == 1000);
  CHECK(longer->half_width < capped->half_width);
  // Where the typical comparison would be within ±1%: a look of the schedule, within the blocks.
  if (longer->within_margin > 0) {
    CHECK(longer->within_margin <= 1000);
    CHECK(interval_half_width(0.01, 0.02, longer->within_margin, 0.05) < 0.01);
  }
  // A cap already reached: the blocks run so far.
  CHECK(first_look_forecast(f, 6)->blocks == 10);
}

TEST_CASE("forecast: no forecast without a ratio-scale comparison that has a spread") {
  Findings f = look_at(10, 0.0, 0.0);
  CHECK_FALSE(first_look_forecast(f, 100));
  f = look_at(10, 0.01, 0.02);
  for (Comparison& c : f.comparisons) c.scale = Scale::difference;
  CHECK_FALSE(first_look_forecast(f, 100));
}

TEST_CASE("forecast: the noise is d's spread near its median (IQR / 1.349), not its far shoulders") {
  using check_detail::central_scale;
  // 0, 0.01, ..., 0.08: Q(0.25) = 0.02, Q(0.75) = 0.06 (Hyndman and Fan's definition 7).
  CHECK(central_scale({0, 0.01, 0.02, 0.03, 0.04, 0.05, 0.06, 0.07, 0.08}) == Approx(0.04 / 1.3489795003921634));
  // A bimodal host's d: peaked at 0 with one pair in each far mode. The quartiles are
  // -0.005 and +0.005, so 0.0074; the mean absolute deviation read as a standard
  // deviation would have said 0.255, which the sign sequence's width never shows.
  CHECK(central_scale({-0.9, -0.01, -0.005, 0, 0, 0, 0.005, 0.01, 0.9}) == Approx(0.01 / 1.3489795003921634));
  CHECK(central_scale({1, 1}) == 0);
}
