// analysis/check: the rules of verdicts that can be taken to CI, on fixed data: when
// the t-test takes part, "not perturbed" for the whole distribution, the p-value of the
// question asked (|effect| within the margin) and what decides a small fixed design.
// A one-dose plan of a profiler command (level 0, dose 1, the A/A copy: 3
// configurations) measuring task-clock and page-faults; every value is given.
#include <catch2/catch.hpp>

#include <cmath>
#include <functional>
#include <string>

#include "analysis/check.h"
#include "plan/levels.h"
#include "stats/magnitude.h"
#include "stats/sequential.h"

using namespace obscheck;

namespace {

// value(block, is_dose, position, metric): block counts measured blocks from 0.
using Values = std::function<double(std::size_t block, bool dose, std::size_t position, const std::string& metric)>;

Plan one_dose_plan(std::optional<std::size_t> fixed = std::nullopt) {
  PlanSpec p;
  p.observer = ObserverKind::command;
  p.counters = {"task-clock", "page-faults"};
  p.levels = command_levels({"0", "1"}, 2);
  p.layouts = {Layout::held};
  p.seed = 5;
  p.fixed_blocks = fixed;
  return make_plan(p);
}

// The same with `doses` doses (levels 1 .. doses against level 0), all alike.
Plan many_dose_plan(std::size_t doses) {
  PlanSpec p;
  p.observer = ObserverKind::command;
  p.counters = {"task-clock", "page-faults"};
  std::vector<std::string> levels;
  for (std::size_t k = 0; k <= doses; ++k) levels.push_back(std::to_string(k));
  p.levels = command_levels(levels, 2);
  p.layouts = {Layout::held};
  p.seed = 5;
  return make_plan(p);
}

timeval whole_timeval(double ns) {
  const auto us = static_cast<long long>(std::llround(ns / 1000.0));
  return {static_cast<time_t>(us / 1000000), static_cast<suseconds_t>(us % 1000000)};
}

std::vector<RunRecord> runs_of(const Plan& plan, std::size_t measured, const Values& value) {
  std::vector<RunRecord> out;
  for (const Trial& t : trials(plan, 0, plan.spec.warmup_blocks + measured)) {
    RunRecord r = run_record_for(plan, t);
    const bool dose = plan.spec.levels[plan.configs[t.config].level_index].dose > 0;
    const std::size_t b = t.block >= plan.spec.warmup_blocks ? t.block - plan.spec.warmup_blocks : 0;
    const auto v = [&](const std::string& m) { return value(b, dose, t.position, m); };
    r.exit.exit_code = 0;
    r.exit.signal = 0;
    r.exit.wall_ns = static_cast<std::uint64_t>(v("wall-time"));
    r.exit.usage.ru_utime = whole_timeval(v("task-clock"));
    r.exit.usage.ru_stime = whole_timeval(0);
    r.exit.usage.ru_maxrss = 2000;
    r.exit.usage.ru_minflt = 200;
    r.exit.usage.ru_nvcsw = 1;
    r.exit.usage.ru_nivcsw = 0;
    r.exit.output_digest = std::string(64, 'a');
    for (const char* name : {"task-clock", "page-faults"}) {
      Reading x;
      x.name = name;
      x.value = v(name);
      x.raw = static_cast<std::uint64_t>(x.value);
      x.time_enabled = x.time_running = 1000000;
      r.readings.push_back(x);
    }
    out.push_back(std::move(r));
  }
  return out;
}

// A tiny deterministic jitter (±0.1%) so that no spread is exactly zero.
double jitter(std::size_t block, std::size_t position) {
  return 1 + 0.001 * std::sin(static_cast<double>(7 * block + 3 * position + 1));
}

const LevelVerdict& verdict(const Findings& f, const std::string& metric) {
  for (const LevelVerdict& v : f.verdicts)
    if (f.metrics[v.metric].name == metric) return v;
  FAIL("no verdict for " << metric);
  return f.verdicts.front();
}

const Comparison& held(const Findings& f, const std::string& metric) {
  for (const Comparison& c : f.comparisons)
    if (f.metrics[c.metric].name == metric && !c.aa) return c;
  FAIL("no comparison for " << metric);
  return f.comparisons.front();
}

const AnalysisOptions kWholeOptions{0.01, 0.05, 1, 42};

}  // namespace

TEST_CASE("the t-test takes part once a tight run of blocks is rarer than its share of alpha") {
  // block_size^(1 - n) <= 0.2 * 0.05: 3^-5 = 0.0041, 3^-4 = 0.012; 4^-4, 4^-3 = 0.016; 5^-3 = 0.008.
  CHECK(magnitude_first_blocks(3) == 6);
  CHECK(magnitude_first_blocks(4) == 5);
  CHECK(magnitude_first_blocks(5) == 4);
  CHECK(magnitude_first_blocks(8) == 4);
  CHECK(magnitude_first_blocks(12) == 3);
  CHECK(first_look(one_dose_plan()) == 6);
}

TEST_CASE("a dose in the slow place of every block for five blocks is not perturbed: the t-test waits") {
  // The dose runs 50% slower in every block, exactly what a first run 50% slower
  // gives when the dose happens to run first five times. Five blocks cannot tell them
  // apart, so nothing is decided; at six blocks the t-test takes part and a real x1.5
  // is perturbed.
  const Plan plan = one_dose_plan();
  const Values v = [](std::size_t b, bool dose, std::size_t pos, const std::string& m) {
    if (m == "page-faults") return 145.0;
    return std::round(1.2e6 * jitter(b, pos) * (dose ? 1.5 : 1.0));
  };
  const Findings five = analyse_check(plan, runs_of(plan, 5, v), kWholeOptions);
  const Comparison& c5 = held(five, "task-clock");
  CHECK(c5.n == 5);
  CHECK(verdict(five, "task-clock").verdict == Verdict::inconclusive);
  CHECK(c5.p_method.find("(the t-test takes part from 6 blocks)") != std::string::npos);
  CHECK(c5.ci_method.find("sequential t") == std::string::npos);
  const Findings six = analyse_check(plan, runs_of(plan, 6, v), kWholeOptions);
  CHECK(verdict(six, "task-clock").verdict == Verdict::perturbed);
  CHECK(held(six, "task-clock").ci_method.find("sequential t") != std::string::npos);
}

TEST_CASE("an intermittent effect is never not perturbed: one run in four touches 64 more pages") {
  // page-faults: 145 in every run, 209 in the dose's runs of blocks 3, 7, 11, ...: the
  // median does not move, the mean moves by +11%.
  const Plan plan = one_dose_plan();
  const Values v = [](std::size_t b, bool dose, std::size_t pos, const std::string& m) {
    if (m == "page-faults") return dose && b % 4 == 3 ? 209.0 : 145.0;
    return std::round(1.2e6 * jitter(b, pos));
  };
  const Findings f = analyse_check(plan, runs_of(plan, 40, v), kWholeOptions);
  const Comparison& c = held(f, "page-faults");
  CHECK(c.n == 40);
  CHECK(c.effect == 0);
  CHECK(c.median_only);
  CHECK_FALSE(c.equivalent);
  CHECK(c.tail_blocks == 10);
  CHECK(c.tail_size == 64);
  CHECK(c.mean_effect == Approx(std::expm1(10 * std::log(209.0 / 145) / 40)));
  const LevelVerdict& pf = verdict(f, "page-faults");
  CHECK(pf.verdict == Verdict::inconclusive);
  CHECK_THAT(pf.reason, Catch::Contains("but not the whole distribution") && Catch::Contains("1 run in 4: +64"));
  // Before the first extra run every block is equal: nothing shows it yet.
  const Findings early = analyse_check(plan, runs_of(plan, 3, v), kWholeOptions);
  CHECK_FALSE(held(early, "page-faults").median_only);
}

TEST_CASE("perturbed asks for an effect beyond the margin: p for |effect| <= margin") {
  // task-clock +0.9% in every block (within ±1%): p = 1 at the nearest null, the
  // effect itself; +3%: the p-value is taken at the margin's edge, +1%.
  const Plan plan = one_dose_plan();
  const auto with = [&](double effect) {
    const Values v = [effect](std::size_t b, bool dose, std::size_t pos, const std::string& m) {
      if (m == "page-faults") return 145.0;
      return std::round(1.2e6 * jitter(b, pos) * (dose ? 1 + effect : 1.0));
    };
    return analyse_check(plan, runs_of(plan, 30, v), kWholeOptions);
  };
  const Findings inside = with(0.009);
  const Comparison& c = held(inside, "task-clock");
  CHECK(c.p_value == 1);
  CHECK(verdict(inside, "task-clock").verdict != Verdict::perturbed);
  const Findings beyond = with(0.03);
  const Comparison& b = held(beyond, "task-clock");
  // The sign test at m = ln 1.01: all 30 blocks above it.
  const double sign_p = std::exp(-stats::sign_mixture_log(30, 30)) / kSignShare;
  CHECK(b.p_value <= sign_p);
  CHECK(b.p_value < 0.05);
  CHECK(verdict(beyond, "task-clock").verdict == Verdict::perturbed);
}

TEST_CASE("a fixed design of 4 blocks (--runs 4) says what decides: the exact interval is unbounded, the t-test not yet in") {
  const Plan plan = one_dose_plan(4);
  const Values v = [](std::size_t b, bool dose, std::size_t pos, const std::string& m) {
    if (m == "page-faults") return 145.0;
    return std::round(1.2e6 * jitter(b, pos) * (dose ? 100.0 : 1.0));
  };
  AnalysisOptions fixed = kWholeOptions;
  fixed.fixed_design = true;
  const Findings f = analyse_check(plan, runs_of(plan, 4, v), fixed);
  const Comparison& c = held(f, "task-clock");
  CHECK(c.ci_method == "90% interval, one look: none bounded (exact order statistics unbounded at 4 blocks)");
  CHECK(c.p_method == "exact sign test, one look (the t-test takes part from 6 blocks)");
  // The exact sign test's smallest p at 4 blocks: 2^-3 / 0.8.
  CHECK(c.p_value == Approx(0.125 / kSignShare));
  CHECK(verdict(f, "task-clock").verdict == Verdict::inconclusive);
  // Six blocks: both take part.
  const Plan six = one_dose_plan(6);
  const Findings g = analyse_check(six, runs_of(six, 6, v), fixed);
  CHECK(held(g, "task-clock").ci_method ==
        "90% interval, one look: exact order statistics for the median ∩ sequential t (g = 100)");
  CHECK(verdict(g, "task-clock").verdict == Verdict::perturbed);
}

TEST_CASE("within needs the runs that an effect on 1 run in 4 would have touched") {
  // The rule of three: n runs untouched bound the touched share by 1 - alpha^(1/n).
  CHECK(intermittent_cover_blocks(0.05) == 11);  // (3/4)^10 = 0.056, (3/4)^11 = 0.042
  CHECK(intermittent_cover_blocks(0.01) == 17);  // (3/4)^16 = 0.0100226
  CHECK(intermittent_covered(4) == 0);           // (1/2)^4 = 0.0625: not even 1 run in 2
  CHECK(intermittent_covered(5) == 2);
  CHECK(intermittent_covered(11) == 4);
  CHECK(intermittent_covered(30) == 10);  // (9/10)^30 = 0.042, (10/11)^30 = 0.057
  CHECK(intermittent_covered(40) == 13);  // (12/13)^40 = 0.041, (13/14)^40 = 0.052
  // Over K doses together, alpha / K each (Bonferroni): ln(alpha / K) / ln(3/4), counted up.
  CHECK(intermittent_cover_blocks(0.05, 1) == 11);
  CHECK(intermittent_cover_blocks(0.05, 2) == 13);   // (3/4)^12 = 0.0317, (3/4)^13 = 0.0238 <= 0.025
  CHECK(intermittent_cover_blocks(0.05, 6) == 17);   // (3/4)^16 = 0.0100, (3/4)^17 = 0.0075 <= 0.00833
  CHECK(intermittent_cover_blocks(0.05, 15) == 20);  // (3/4)^19 = 0.0042, (3/4)^20 = 0.0032 <= 0.00333
  CHECK(intermittent_cover_blocks(0.05, 0) == 11);   // no dose: as one
  CHECK(intermittent_covered(17, 0.05, 6) == 4);
  CHECK(intermittent_covered(16, 0.05, 6) == 3);     // (2/3)^16 = 0.0015, (3/4)^16 = 0.0100 > 0.00833
  CHECK(intermittent_covered(11, 0.05, 6) == 2);     // (1/2)^11 = 0.0005, (2/3)^11 = 0.0116

  // page-faults 145 in every run of every configuration: equal in every block. A dose
  // that touched one run in four would have left its first 10 runs untouched in 5.6%
  // of checks, so 10 equal blocks are not yet "not perturbed", and the check runs on.
  const Plan plan = one_dose_plan();
  const Values v = [](std::size_t b, bool, std::size_t pos, const std::string& m) {
    return m == "page-faults" ? 145.0 : std::round(1.2e6 * jitter(b, pos));
  };
  const Findings ten = analyse_check(plan, runs_of(plan, 10, v), kWholeOptions);
  const Comparison& c10 = held(ten, "page-faults");
  CHECK(c10.equal_blocks == 10);
  CHECK(c10.unseen_runs);
  CHECK_FALSE(c10.equivalent);
  CHECK(c10.blocks_needed == 11);
  const LevelVerdict& v10 = verdict(ten, "page-faults");
  CHECK(v10.verdict == Verdict::inconclusive);
  CHECK(v10.reason ==
        "held: +0.00% [+0.00, +0.00], equal in all 10 blocks — within ±1%, but an effect on 1 run in 4 would not "
        "yet have shown (6% of the time it leaves 10 runs untouched); 11 blocks would show it with 95% probability");
  CHECK(more_blocks_could_decide(c10, 200));
  CHECK_FALSE(more_blocks_could_decide(c10, 10));  // a cap of 10 blocks can never show it
  CHECK_FALSE(ten.decisive);                        // page-faults is in the primary family

  const Findings eleven = analyse_check(plan, runs_of(plan, 11, v), kWholeOptions);
  const Comparison& c11 = held(eleven, "page-faults");
  CHECK(c11.equivalent);
  CHECK_FALSE(c11.unseen_runs);
  const LevelVerdict& v11 = verdict(eleven, "page-faults");
  CHECK(v11.verdict == Verdict::not_perturbed);
  CHECK(v11.reason == "within ±1% under held +0.00% [+0.00, +0.00], equal in all 11 blocks: an effect on at least 1 "
                      "run in 4 would have shown");

  // A fixed design of 6 blocks (--runs 6) cannot see it at all: inconclusive, and final.
  const Plan six = one_dose_plan(6);
  AnalysisOptions fixed = kWholeOptions;
  fixed.fixed_design = true;
  const Findings f6 = analyse_check(six, runs_of(six, 6, v), fixed);
  CHECK(held(f6, "page-faults").unseen_runs);
  CHECK(verdict(f6, "page-faults").verdict == Verdict::inconclusive);
  CHECK_FALSE(more_blocks_could_decide(f6, 6, true));
}

TEST_CASE("within over six doses waits until an effect on 1 run in 4 would have shown at all six together") {
  // page-faults 145 in every run: equal at every dose in every block. Six doses each
  // held to 5% would leave some dose's intermittent effect unseen far more often than
  // 5%; split over the six (5% / 6 each) the runs must number 17: (3/4)^16 = 1.0% is
  // still above 0.83%, (3/4)^17 = 0.75% is not.
  const Plan plan = many_dose_plan(6);
  const Values v = [](std::size_t b, bool, std::size_t pos, const std::string& m) {
    return m == "page-faults" ? 145.0 : std::round(1.2e6 * jitter(b, pos));
  };
  const Findings sixteen = analyse_check(plan, runs_of(plan, 16, v), kWholeOptions);
  std::size_t doses = 0;
  for (const Comparison& c : sixteen.comparisons) {
    if (sixteen.metrics[c.metric].name != "page-faults" || c.aa) continue;
    ++doses;
    CHECK(c.cover_doses == 6);
    CHECK(c.equal_blocks == 16);
    CHECK(c.unseen_runs);
    CHECK_FALSE(c.equivalent);
    CHECK(c.blocks_needed == 17);
  }
  CHECK(doses == 6);
  CHECK(verdict(sixteen, "page-faults").reason ==
        "held: +0.00% [+0.00, +0.00], equal in all 16 blocks — within ±1%, but an effect on 1 run in 4 would not "
        "yet have shown (1% of the time it leaves 16 runs untouched); 17 blocks would show it with 95% probability "
        "at all 6 doses together");
  CHECK_FALSE(sixteen.decisive);

  const Findings seventeen = analyse_check(plan, runs_of(plan, 17, v), kWholeOptions);
  for (const Comparison& c : seventeen.comparisons)
    if (seventeen.metrics[c.metric].name == "page-faults" && !c.aa) CHECK(c.equivalent);
  const LevelVerdict& v17 = verdict(seventeen, "page-faults");
  CHECK(v17.verdict == Verdict::not_perturbed);
  CHECK(v17.reason == "within ±1% under held +0.00% [+0.00, +0.00], equal in all 17 blocks: an effect on at least 1 "
                      "run in 4 would have shown at all 6 doses together");
  // The one-dose plan of the same data decides at 11 (the test above): six doses cost 6 blocks more.
  CHECK(intermittent_cover_blocks(0.05, 6) - intermittent_cover_blocks(0.05, 1) == 6);
}
