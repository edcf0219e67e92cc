// The rule book's smallest rules (analysis/rules.h) at their edges, on fixed values:
// the interval against the margin, significance, and compare's A/A control.
#include <catch2/catch.hpp>

#include "analysis/rules.h"

using namespace obscheck;

TEST_CASE("rules: an interval is within the margin only strictly inside it, beyond it only wholly outside") {
  CHECK(within_margin(-0.009, 0.009, 0.01));
  CHECK_FALSE(within_margin(-0.01, 0.005, 0.01));  // touching the margin is not inside
  CHECK_FALSE(within_margin(0.0, 0.02, 0.01));
  CHECK(beyond_margin(0.011, 0.2, 0.01));
  CHECK(beyond_margin(-0.3, -0.02, 0.01));
  CHECK_FALSE(beyond_margin(0.01, 0.2, 0.01));  // touching the margin is not beyond
  CHECK_FALSE(beyond_margin(-0.02, 0.02, 0.01));
}

TEST_CASE("rules: significant needs two pairs, a Holm p below alpha and an interval without 0") {
  Comparison c;
  c.n = 5;
  c.p_holm = 0.01;
  c.ci_lo = 0.02;
  c.ci_hi = 0.05;
  CHECK(significant_at(c, 0.05));
  CHECK_FALSE(significant_at(c, 0.01));  // p must be below alpha
  c.ci_lo = 0;
  CHECK_FALSE(significant_at(c, 0.05));  // 0 in the interval
  c.ci_lo = 0.02;
  c.n = 1;
  CHECK_FALSE(significant_at(c, 0.05));
  c.n = 5;
  c.significant = true;
  c.outside_margin = false;
  CHECK_FALSE(decisive_effect(c));
  c.outside_margin = true;
  CHECK(decisive_effect(c));
}

TEST_CASE("rules: exact counts are significant when they differ, beyond the margin by their ratio") {
  Comparison c;
  c.effect = 0.02;
  judge_exact_comparison(c, 102, 100, 0.01);
  CHECK(c.significant);
  CHECK(c.outside_margin);
  CHECK_FALSE(c.equivalent);
  c.effect = 0.0;
  judge_exact_comparison(c, 100, 100, 0.01);
  CHECK_FALSE(c.significant);
  CHECK(c.equivalent);
}

TEST_CASE("rules: compare's A/A pair fails when it comes out better, worse or incomparable") {
  VariantComparison aa;
  for (Outcome o : {Outcome::better, Outcome::worse, Outcome::incomparable}) {
    aa.outcome = o;
    CHECK(compare_aa_failed(aa));
  }
  for (Outcome o : {Outcome::equivalent, Outcome::no_difference}) {
    aa.outcome = o;
    CHECK_FALSE(compare_aa_failed(aa));
  }
}
