// analysis/bias: the spread test against hand-computed ANOVA tables and the
// per-context ratios on data whose answer is known exactly.
#include "analysis/bias.h"

#include <catch2/catch.hpp>
#include <cmath>
#include <stdexcept>

using obscheck::analyse_bias;
using obscheck::ContextSeries;
using obscheck::one_way_anova;

TEST_CASE("bias: one-way ANOVA on three equal groups matches the hand-computed table") {
  // Groups {1,2,3} {4,5,6} {7,8,9}: means 2, 5, 8, grand mean 5.
  // SSB = 3 (9 + 0 + 9) = 54, df 2, MSB 27; SSW = 3 * 2 = 6, df 6, MSW 1; F = 27.
  // For F(2, v): P(F >= f) = (1 + 2 f / v)^(-v/2) = (1 + 9)^-3 = 0.001 exactly.
  // n0 = (9 - 27/9) / 2 = 3, var_between = (27 - 1) / 3 = 26/3, ICC = 26/29.
  const std::vector<std::vector<double>> g = {{1, 2, 3}, {4, 5, 6}, {7, 8, 9}};
  const auto a = one_way_anova(g);
  CHECK(a.groups == 3);
  CHECK(a.n == 9);
  CHECK(a.ss_between == Approx(54));
  CHECK(a.ss_within == Approx(6));
  CHECK(a.df_between == 2);
  CHECK(a.df_within == 6);
  CHECK(a.f == Approx(27));
  CHECK(a.p_value == Approx(0.001).epsilon(1e-9));
  CHECK(a.var_between == Approx(26.0 / 3));
  CHECK(a.var_within == Approx(1));
  CHECK(a.icc == Approx(26.0 / 29));
}

TEST_CASE("bias: one-way ANOVA with unequal group sizes") {
  // {1,3} {2,4,6}: means 2 and 4, grand mean 16/5 = 3.2.
  // SSB = 2 (1.2)^2 + 3 (0.8)^2 = 4.8 (df 1); SSW = 2 + 8 = 10 (df 3), MSW = 10/3;
  // F = 4.8 / (10/3) = 1.44. For F(1, v) = T^2 with T ~ t_v: p = P(|T| >= 1.2) on
  // 3 df = 0.316262 (closed form of the t_3 CDF:
  // 1/2 + (u/(1 + t^2/3) + atan u)/pi, u = t/sqrt 3). n0 = (5 - 13/5) / 1 = 2.4,
  // var_between = (4.8 - 10/3) / 2.4 = 0.61111.
  const std::vector<std::vector<double>> g = {{1, 3}, {2, 4, 6}};
  const auto a = one_way_anova(g);
  CHECK(a.ss_between == Approx(4.8));
  CHECK(a.ss_within == Approx(10));
  CHECK(a.f == Approx(1.44));
  CHECK(a.p_value == Approx(0.316262).epsilon(1e-5));
  CHECK(a.var_between == Approx(0.611111).epsilon(1e-5));
}

TEST_CASE("bias: ANOVA edge cases: no noise at all, noise but no spread, too little data") {
  const std::vector<std::vector<double>> constant_groups = {{1, 1}, {2, 2}};
  const auto a = one_way_anova(constant_groups);
  CHECK(std::isinf(a.f));
  CHECK(a.p_value == 0);
  const std::vector<std::vector<double>> all_equal = {{3, 3}, {3, 3}};
  const auto b = one_way_anova(all_equal);
  CHECK(b.f == 0);
  CHECK(b.p_value == 1);
  CHECK(b.icc == 0);
  const std::vector<std::vector<double>> one_each = {{1}, {2}};
  CHECK_THROWS_AS(one_way_anova(one_each), std::invalid_argument);
  const std::vector<std::vector<double>> one_group = {{1, 2, 3}};
  CHECK_THROWS_AS(one_way_anova(one_group), std::invalid_argument);
}

TEST_CASE("bias: ratios to the median context, extremes and the swing are exact") {
  // Context means 10, 20, 40 (and one failed context): the median context is 20, so
  // the ratios are 0.5, 1, 2; swing = 2 / 0.5 - 1 = 3. No run-to-run noise at all:
  // the values are exact, there is no F or p, and a swing beyond the margin is bias.
  std::vector<ContextSeries> cs = {{0, "env+2", {10, 10, 10}, ""},
                                   {1, "env+392", {40, 40, 40}, ""},
                                   {2, "env+782", {20, 20, 20}, ""},
                                   {3, "order 3", {}, "the link command exited with code 1"}};
  const auto b = analyse_bias("task-clock", cs);
  REQUIRE(b.contexts.size() == 3);
  REQUIRE(b.failed.size() == 1);
  CHECK(b.failed[0].label == "order 3");
  CHECK(b.median_of_means == 20);
  CHECK(b.contexts[0].ratio == 0.5);
  CHECK(b.contexts[1].ratio == 2);
  CHECK(b.contexts[2].ratio == 1);
  CHECK(b.ratio_min == 0.5);
  CHECK(b.ratio_median == 1);
  CHECK(b.ratio_max == 2);
  CHECK(b.contexts[b.lowest].label == "env+2");
  CHECK(b.contexts[b.highest].label == "env+392");
  CHECK(b.swing == Approx(3));
  CHECK(b.exact);
  CHECK_FALSE(b.spread.has_value());
  CHECK(b.exceeds_noise);
  CHECK_THAT(b.method, Catch::Contains("no F"));
  REQUIRE(b.contexts[0].mean_ci.has_value());
  CHECK(b.contexts[0].mean_ci->lo == 10);
  CHECK(b.contexts[0].mean_ci->hi == 10);
}

TEST_CASE("bias: an exact count the contexts move by less than the margin is not bias") {
  // page-faults of a small program: 74 in every run, 75 in one context. Real, exact,
  // and 1.4% here: beyond 1%. At 740 against 741 it is 0.14%: within.
  std::vector<ContextSeries> small = {{0, "a", {74, 74}, ""}, {1, "b", {75, 75}, ""}, {2, "c", {74, 74}, ""}};
  const auto b = analyse_bias("page-faults", small);
  CHECK(b.exact);
  CHECK(b.exceeds_noise);
  std::vector<ContextSeries> large = {{0, "a", {740, 740}, ""}, {1, "b", {741, 741}, ""}, {2, "c", {740, 740}, ""}};
  const auto c = analyse_bias("page-faults", large);
  CHECK(c.exact);
  CHECK_FALSE(c.exceeds_noise);
  CHECK_THAT(c.method, Catch::Contains("within the ±1% margin"));
  std::vector<ContextSeries> same = {{0, "a", {74, 74}, ""}, {1, "b", {74, 74}, ""}};
  CHECK_FALSE(analyse_bias("page-faults", same).exceeds_noise);
}

TEST_CASE("bias: a context's interval is positive whatever n (t on logs, back-transformed)") {
  // Two runs far apart: an arithmetic t interval of {10, 470} goes below zero.
  std::vector<ContextSeries> cs = {{0, "a", {10, 470}, ""}, {1, "b", {100, 110}, ""}};
  const auto b = analyse_bias("wall-time", cs);
  for (const obscheck::ContextStat& c : b.contexts) {
    REQUIRE(c.mean_ci.has_value());
    CHECK(c.mean_ci->lo > 0);
    CHECK(c.mean_ci->lo <= c.mean);
    CHECK(c.mean <= c.mean_ci->hi);
    REQUIRE(c.ratio_ci.has_value());
    CHECK(c.ratio_ci->lo > 0);
  }
  // The geometric mean of 10 and 470.
  CHECK(b.contexts[0].mean == Approx(std::sqrt(4700.0)));
}

TEST_CASE("bias: contexts that differ less than runs do are not called biased") {
  // ln values per context: {a-e, a, a+e} shifted by 0, 0.001, -0.001 with e = 0.05:
  // the spread between contexts is tiny next to the spread within.
  auto ctx = [](std::size_t id, double shift) {
    return ContextSeries{id, "c" + std::to_string(id),
                         {std::exp(1 + shift - 0.05), std::exp(1 + shift), std::exp(1 + shift + 0.05)}, ""};
  };
  std::vector<ContextSeries> cs = {ctx(0, 0), ctx(1, 0.001), ctx(2, -0.001)};
  const auto b = analyse_bias("wall-time", cs);
  REQUIRE(b.spread.has_value());
  // SSB = 3 (0.001^2 + 0.001^2) = 6e-6 (df 2), SSW = 3 * 2 * 0.0025 = 0.015 (df 6):
  // F = 3e-6 / 0.0025 = 0.0012.
  CHECK(b.spread->f == Approx(0.0012).epsilon(1e-6));
  CHECK_FALSE(b.exceeds_noise);
  // The context means' t intervals are reported per context.
  REQUIRE(b.contexts[0].mean_ci.has_value());
  CHECK(b.contexts[0].mean_ci->contains(b.contexts[0].mean));
}

TEST_CASE("bias: one run per context gives ratios but no spread test") {
  std::vector<ContextSeries> cs = {{0, "a", {1.0}, ""}, {1, "b", {3.0}, ""}, {2, "c", {2.0}, ""}};
  const auto b = analyse_bias("task-clock", cs);
  CHECK(b.contexts[0].ratio == 0.5);
  CHECK(b.contexts[1].ratio == 1.5);
  CHECK_FALSE(b.spread.has_value());
  CHECK_FALSE(b.exceeds_noise);
  CHECK_THAT(b.method, Catch::Contains("one run per context"));
  std::vector<ContextSeries> none = {{0, "a", {}, "failed"}};
  CHECK_THROWS_AS(analyse_bias("task-clock", none), std::invalid_argument);
}

namespace {

// ln values: rounds drift by one unit each (a host that gets much slower as the sweep
// goes on); context 2 is higher by about 0.1 in three rounds of four.
const std::vector<std::vector<double>> kDriftingCells = {
    {1.0, 2.0, 3.0, 4.0}, {1.1, 2.1, 3.2, 4.1}, {0.9, 2.0, 2.9, 4.0}};

std::vector<ContextSeries> series_of(const std::vector<std::vector<double>>& cells, bool with_rounds) {
  std::vector<ContextSeries> out;
  for (std::size_t i = 0; i < cells.size(); ++i) {
    ContextSeries c{i, "c" + std::to_string(i), {}, "", {}};
    // Runs listed out of round order, as a sweep's time order would give them.
    for (std::size_t j : {2, 0, 3, 1}) {
      c.values.push_back(std::exp(cells[i][j]));
      if (with_rounds) c.rounds.push_back(j);
    }
    out.push_back(std::move(c));
  }
  return out;
}

}  // namespace

TEST_CASE("bias: blocked ANOVA takes the drift between rounds out of the noise (hand-computed table)") {
  // Grand mean 2.525. Context means 2.5, 2.625, 2.45: SS_context = 4 (0.000625 + 0.01 +
  // 0.005625) = 0.065, df 2. Round means 1, 2.0333, 3.0333, 4.0333: SS_round = 15.3025,
  // df 3. SS_total = 15.3825, so SS_error = 0.015, df 6. F = (0.065 / 2) / (0.015 / 6) =
  // 13; for F(2, 6), p = (1 + 2F / 6)^-3 = (16 / 3)^-3 = 27 / 4096.
  const auto a = obscheck::blocked_anova(kDriftingCells);
  CHECK(a.blocked);
  CHECK(a.ss_between == Approx(0.065).epsilon(1e-9));
  CHECK(a.ss_blocks == Approx(15.3025).epsilon(1e-9));
  CHECK(a.ss_within == Approx(0.015).epsilon(1e-6));
  CHECK(a.df_between == 2);
  CHECK(a.df_blocks == 3);
  CHECK(a.df_within == 6);
  CHECK(a.f == Approx(13.0).epsilon(1e-6));
  CHECK(a.p_value == Approx(27.0 / 4096).epsilon(1e-6));
  CHECK_THROWS_AS(obscheck::blocked_anova(std::vector<std::vector<double>>{{1, 2}, {3}}), std::invalid_argument);
}

TEST_CASE("bias: a bias the drift hides from the one-way test is found with the rounds as blocks") {
  // Without the rounds, the drift is all "within-context noise": SS_within = 15.3175,
  // F(2, 9) = 0.0191, p = (1 + 2F / 9)^-4.5 = 0.981: no bias. With them: F(2, 6) = 13.
  const auto one_way = analyse_bias("m", series_of(kDriftingCells, false), 0.05);
  REQUIRE(one_way.spread);
  CHECK_FALSE(one_way.spread->blocked);
  CHECK(one_way.spread->f == Approx(0.0190958).epsilon(1e-4));
  CHECK(one_way.spread->p_value == Approx(0.98112).epsilon(1e-4));
  CHECK_FALSE(one_way.exceeds_noise);

  const auto blocked = analyse_bias("m", series_of(kDriftingCells, true), 0.05);
  REQUIRE(blocked.spread);
  CHECK(blocked.spread->blocked);
  CHECK(blocked.spread->f == Approx(13.0).epsilon(1e-6));
  CHECK(blocked.exceeds_noise);
  CHECK(blocked.method.find("rounds as blocks") != std::string::npos);
}

TEST_CASE("bias: drift alone, with the rounds as blocks, is not bias") {
  // Every context has the same mean (2.5): SS_context = 0, F = 0, p = 1.
  const std::vector<std::vector<double>> cells = {{1.0, 2.0, 3.0, 4.0}, {1.1, 1.9, 3.0, 4.0}, {0.9, 2.1, 3.0, 4.0}};
  const auto b = analyse_bias("m", series_of(cells, true), 0.05);
  REQUIRE(b.spread);
  CHECK(b.spread->blocked);
  CHECK(b.spread->f == Approx(0.0).margin(1e-9));
  CHECK_FALSE(b.exceeds_noise);
}

TEST_CASE("bias: rounds that do not make a complete block design fall back to the one-way test") {
  auto series = series_of(kDriftingCells, true);
  series[1].rounds[0] = 1;  // round 1 twice in context 1, round 2 missing
  const auto b = analyse_bias("m", series, 0.05);
  REQUIRE(b.spread);
  CHECK_FALSE(b.spread->blocked);
}

TEST_CASE("bias: a multiplexed counter makes the metric incomparable, named, unless allowed") {
  // Three contexts of exact counts, 10% apart: measurement bias when compared. The
  // counter ran for 0.5, 0.5 and 0.75 of three of the nine runs.
  std::vector<ContextSeries> cs = {{0, "env+0", {100, 100, 100}, "", {}, {1, 0.5, 1}},
                                   {1, "env+400", {110, 110, 110}, "", {}, {1, 1, 1}},
                                   {2, "env+800", {121, 121, 121}, "", {}, {0.75, 1, 0.5}}};
  const auto strict = analyse_bias("cycles", cs, 0.05, 0.01);
  CHECK(strict.incomparable());
  CHECK_FALSE(strict.exceeds_noise);
  CHECK(strict.scaled.counter == "cycles");
  CHECK(strict.scaled.runs == 9);
  CHECK(strict.scaled.scaled_runs == 3);
  CHECK(strict.scaled.running_min == 0.5);
  CHECK(strict.scaled.running_median == 1.0);
  CHECK(obscheck::scaled_counter_verdict(strict.scaled) ==
        "incomparable: cycles multiplexed in 3 of 9 runs (running fraction min 0.50, median 1.00); its values are "
        "estimates scaled up from part of each run, not counts (fewer counters, or --allow-multiplex to compare the "
        "estimates)");
  // The numbers are still those of the values: only the verdict is withheld.
  CHECK(strict.swing == Approx(0.21));

  const auto allowed = analyse_bias("cycles", cs, 0.05, 0.01, true);
  CHECK_FALSE(allowed.incomparable());
  CHECK(allowed.exact);
  CHECK(allowed.exceeds_noise);
  CHECK(obscheck::scaled_counter_verdict(allowed.scaled) ==
        "scaled: cycles multiplexed in 3 of 9 runs (running fraction min 0.50, median 1.00); its values are "
        "estimates, compared as asked (--allow-multiplex)");

  // No running fractions (wall time): exact, nothing said.
  for (auto& c : cs) c.running.clear();
  const auto wall = analyse_bias("wall-time", cs, 0.05, 0.01);
  CHECK_FALSE(wall.scaled.scaled());
  CHECK(wall.exceeds_noise);
  CHECK(obscheck::scaled_counter_verdict(wall.scaled).empty());
}
