// An undecided level's reason says what its interval shows: a symmetric bound only when
// the interval holds 0, the least effect when it excludes 0 (the ltrace-on-xz case:
// [+28, +122] was read "no effect beyond ±122%", "maybe safe").
#include <catch2/catch.hpp>

#include <cmath>
#include <map>
#include <string>
#include <vector>

#include "analysis/check_internal.h"

using namespace obscheck;

namespace {

Findings one_comparison(double effect, double lo, double hi) {
  Findings f;
  MetricInfo m;
  m.name = "task-clock";
  m.unit = "ns";
  m.primary = true;
  f.metrics.push_back(m);
  Comparison c;
  c.metric = 0;
  c.layout = Layout::held;
  c.scale = Scale::ratio;
  c.margin = 0.01;
  c.effect = effect;
  c.ci_lo = lo;
  c.ci_hi = hi;
  c.level = 0.90;
  c.n = 10;
  c.bound = std::max(std::fabs(lo), std::fabs(hi));
  f.comparisons.push_back(c);
  return f;
}

std::string reason_of(const Findings& f) {
  const std::vector<std::string> incomparable(1), aa_failed(1);
  const std::vector<double> aa_discrepancy(1, 0.0);
  const std::map<std::size_t, std::string> level_incomparable;
  const VerdictInputs x{f, incomparable, aa_failed, aa_discrepancy, level_incomparable, 100};
  const LevelJudgement j = judge_level(x, 0, 1, {0});
  CHECK(j.verdict == Verdict::inconclusive);
  return j.reason;
}

}  // namespace

TEST_CASE("undecided: an interval that excludes 0 is said as the least effect, never as a symmetric bound") {
  const std::string r = reason_of(one_comparison(0.70, 0.28, 1.22));
  INFO(r);
  CHECK(r == "held: +70% [+28, +122] — at least +28.0% (90%), not yet decided: its interval still reaches within ±1%");
  CHECK(r.find("no effect beyond") == std::string::npos);
}

TEST_CASE("undecided: an interval that holds 0 keeps the bound that does hold") {
  const std::string r = reason_of(one_comparison(0.021, -0.017, 0.041));
  INFO(r);
  CHECK(r == "held: +2.1% [-1.7, +4.1] — no effect beyond ±4.1% (90%), not shown within ±1%");
}
