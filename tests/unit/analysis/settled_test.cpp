// Which configurations a check may stop running (analysis/settled.h), on hand-made
// findings: a configuration runs on while it, or a comparison that uses it as the
// reference, is unsettled in the stopping family; the A/A copy with its baseline.
#include <catch2/catch.hpp>

#include "analysis/settled.h"

using namespace obscheck;

namespace {

// 1[task-clock] (0), 2[task-clock,page-faults] (1), 1[page-faults] (2), the A/A copy (3).
Plan two_counter_plan() {
  PlanSpec ps;
  ps.counters = {"task-clock", "page-faults"};
  ps.levels = counter_levels(ps.counters);
  ps.layouts = {Layout::held};
  return make_plan(ps);
}

Comparison comparison(std::size_t metric, std::size_t config, std::size_t baseline, bool equivalent) {
  Comparison c;
  c.metric = metric;
  c.config = config;
  c.baseline = baseline;
  c.equivalent = equivalent;
  return c;
}

LevelVerdict verdict(std::size_t metric, std::size_t level, Verdict v, std::size_t comparison) {
  LevelVerdict lv;
  lv.metric = metric;
  lv.level_index = level;
  lv.verdict = v;
  lv.comparisons = {comparison};
  return lv;
}

Findings findings() {
  Findings f;
  f.metrics = {{"task-clock", "ns", false, 0, true}, {"page-faults", "count", false, 1, true},
               {"wall-time", "ns", true, {}, true}, {"user-time", "ns", true, {}, false}};
  f.comparisons = {comparison(0, 1, 0, false), comparison(1, 1, 2, true), comparison(2, 1, 0, true),
                   comparison(2, 2, 0, true), comparison(3, 2, 0, false)};
  f.verdicts = {verdict(0, 1, Verdict::inconclusive, 0), verdict(1, 1, Verdict::not_perturbed, 1),
                verdict(2, 1, Verdict::not_perturbed, 2), verdict(2, 2, Verdict::not_perturbed, 3),
                verdict(3, 2, Verdict::inconclusive, 4)};
  return f;
}

}  // namespace

TEST_CASE("settled: the stopping family is the primary family (the counters named and wall time)") {
  CHECK(in_stopping_family({"task-clock", "ns", false, 0, true}));
  CHECK(in_stopping_family({"wall-time", "ns", true, {}, true}));
  CHECK_FALSE(in_stopping_family({"user-time", "ns", true, {}, false}));
}

TEST_CASE("settled: a configuration whose comparisons are settled, and that no unsettled one needs, stops") {
  const Plan plan = two_counter_plan();
  REQUIRE(plan.configs.size() == 4);
  Findings f = findings();
  // task-clock at dose 2 is unsettled: 2[...] and its reference 1[task-clock] run on,
  // and the A/A copy with its baseline; 1[page-faults] is settled (user-time does not count).
  CHECK(settled_configs(plan, f, false) == std::vector<std::size_t>{2});
  // --decide-all: user-time's unsettled comparison keeps 1[page-faults] and its reference.
  CHECK(settled_configs(plan, f, true).empty());
  // Decided beyond the margin: nothing in the stopping family waits.
  f.comparisons[0].significant = true;
  f.comparisons[0].outside_margin = true;
  f.verdicts[0].verdict = Verdict::perturbed;
  CHECK(settled_configs(plan, f, false) == std::vector<std::size_t>{0, 1, 2, 3});
}

TEST_CASE("settled: an inconclusive verdict whose comparisons are all decided waits on none of them") {
  const Plan plan = two_counter_plan();
  Findings f = findings();
  f.comparisons[0].equivalent = true;  // e.g. a failed A/A control left the verdict inconclusive
  CHECK(settled_configs(plan, f, false) == std::vector<std::size_t>{0, 1, 2, 3});
}

TEST_CASE("settled: within by equality alone keeps its configuration running, an intermittent effect settles") {
  const Plan plan = two_counter_plan();
  Findings f = findings();
  f.comparisons[0].equivalent = true;
  f.verdicts[0].verdict = Verdict::not_perturbed;
  REQUIRE(settled_configs(plan, f, false) == std::vector<std::size_t>{0, 1, 2, 3});
  // page-faults at dose 2 "equal in all 7 blocks": the runs to come may differ, so
  // 2[task-clock,page-faults] and its reference 1[page-faults] run on (the A/A copy
  // with the baseline 1[task-clock] does not: nothing unsettled uses it).
  f.comparisons[1].equal_blocks = 7;
  CHECK(settled_configs(plan, f, false) == std::vector<std::size_t>{0, 3});
  // The median within and the mean shown beyond (one run in four): settled as not within.
  f.comparisons[1].equal_blocks = 0;
  f.comparisons[1].equivalent = false;
  f.comparisons[1].median_only = true;
  f.comparisons[1].mean_beyond = true;
  f.verdicts[1].verdict = Verdict::inconclusive;
  CHECK(settled_configs(plan, f, false) == std::vector<std::size_t>{0, 1, 2, 3});
  f.comparisons[1].mean_beyond = false;
  CHECK(settled_configs(plan, f, false) == std::vector<std::size_t>{0, 3});
  // Within so far on too few runs to have seen an effect on 1 run in 4: runs on.
  f.comparisons[1].median_only = false;
  f.comparisons[1].unseen_runs = true;
  CHECK(settled_configs(plan, f, false) == std::vector<std::size_t>{0, 3});
}
