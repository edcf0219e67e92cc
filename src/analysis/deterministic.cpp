#include "analysis/deterministic.h"

#include <fmt/core.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <map>
#include <optional>
#include <string>

#include "analysis/check.h"
#include "analysis/rules.h"
#include "stats/special_values.h"
#include "util/error.h"

namespace obscheck {
namespace {

using stats::kNaN;

// The measured runs of each configuration, in block order (the first decides).
using ConfigRuns = std::vector<std::vector<const RunRecord*>>;

// The runs that must repeat one another: a configuration's own, and for a baseline
// also its A/A copy's (the same configuration run again).
std::vector<const RunRecord*> repeats_of(const Plan& plan, const ConfigRuns& by_config, std::size_t config) {
  std::vector<const RunRecord*> out = by_config[config];
  if (config == plan.baselines.front() || config == plan.aa) {
    const std::size_t other = config == plan.aa ? plan.baselines.front() : plan.aa;
    out.insert(out.end(), by_config[other].begin(), by_config[other].end());
  }
  return out;
}

// The counts the repeats of one configuration gave: lo == hi when they all agree.
struct Spread {
  double lo = kNaN, hi = kNaN;
  std::string text;  // empty when they agree; else the first two runs that differ
};

Spread spread_of(const Plan& plan, const MetricInfo& m, const std::vector<const RunRecord*>& runs) {
  Spread s;
  const RunRecord* first = nullptr;
  double first_value = 0;
  for (const RunRecord* r : runs) {
    const auto v = metric_value(m, *r);
    if (!v) continue;
    const double x = v.value_or(kNaN);
    if (!first) {
      first = r, first_value = x, s.lo = s.hi = x;
      continue;
    }
    s.lo = std::min(s.lo, x), s.hi = std::max(s.hi, x);
    if (x != first_value && s.text.empty())
      s.text = fmt::format("{} counted {} in run {} ({}) and {} in run {} ({})", m.name, exact_count_text(first_value),
                           first->index, plan.configs[first->config].id, exact_count_text(x), r->index,
                           plan.configs[r->config].id);
  }
  return s;
}

double ratio_effect(double x, double y, bool log1p) { return log1p ? (x + 1) / (y + 1) - 1 : x / y - 1; }

std::string exit_problem(const Plan& plan, const std::vector<const RunRecord*>& xs,
                         const std::vector<const RunRecord*>& ys, std::vector<IncomparableRun>& named) {
  if (xs.empty() || ys.empty()) return {};
  const ExitInfo& ref = ys.front()->exit;
  for (const RunRecord* r : xs) {
    const ExitInfo& e = r->exit;
    if (e.timed_out != ref.timed_out || e.signal != ref.signal || e.exit_code != ref.exit_code) {
      const std::string why = fmt::format("exit status differs from the baseline's (code {} signal {} vs code {} signal {})",
                                          e.exit_code, e.signal, ref.exit_code, ref.signal);
      named.push_back({r->index, r->config, why});
      return fmt::format("{}: run {} {}", plan.configs[r->config].id, r->index, why);
    }
    if (!e.output_digest.empty() && !ref.output_digest.empty() && e.output_digest != ref.output_digest) {
      const std::string why = fmt::format("output digest differs from the baseline's (sha256 {}… vs {}…)",
                                          e.output_digest.substr(0, 12), ref.output_digest.substr(0, 12));
      named.push_back({r->index, r->config, why});
      return fmt::format("{}: run {} {}", plan.configs[r->config].id, r->index, why);
    }
  }
  return {};
}

// The measured runs of each configuration in block order; counts runs, warm-ups and full blocks into f.
ConfigRuns measured_runs(const Plan& plan, const std::vector<RunRecord>& runs, Findings& f) {
  ConfigRuns by_config(plan.configs.size());
  std::map<std::size_t, std::size_t> per_block;
  for (const RunRecord& r : runs) {
    require_run_in_plan(plan, r);
    if (r.warmup) {
      ++f.warmup_runs_dropped;
      continue;
    }
    ++f.runs;
    ++per_block[r.block];
    by_config[r.config].push_back(&r);
  }
  for (auto& v : by_config)
    std::stable_sort(v.begin(), v.end(), [](const RunRecord* a, const RunRecord* b) { return a->block < b->block; });
  for (const auto& [block, n] : per_block)
    if (n >= plan.block_size()) ++f.measured_blocks;
  return by_config;
}

// What every comparison reads: the plan, its measured runs by configuration, and the margin.
struct ExactInputs {
  const Plan& plan;
  const ConfigRuns& by_config;
  double margin;
};

// What the pass over the comparisons gathers beside them, for the notes and the verdicts.
struct ExactPass {
  std::vector<std::string> problem;                       // per comparison: why it is incomparable
  std::map<std::size_t, std::string> level_incomparable;  // per level: the instruction count moved
  std::size_t confirmed = 0, unconfirmed = 0;             // comparisons whose sides both ran twice, or not
};

// One comparison by the counts of its sides' first runs.
struct ExactComparison {
  Comparison cmp;
  bool counted = false;  // both first runs have the count
  bool plus1 = false;    // a zero count: compared as (x + 1) / (y + 1)
};

// The exact ratio of a configuration's count to its baseline's, from the first run of each.
ExactComparison exact_comparison(const ExactInputs& in, std::size_t mi, const MetricInfo& m, const Configuration& c,
                                 std::size_t base) {
  ExactComparison e{comparison_of(in.plan, mi, c, base)};
  Comparison& cmp = e.cmp;
  cmp.ci_lo = cmp.ci_hi = cmp.p_value = cmp.p_holm = kNaN;
  cmp.ci_method = cmp.p_method = kDeterministicMethod;
  cmp.effect = cmp.median_config = cmp.median_baseline = kNaN;
  const auto& xs = in.by_config[c.index];
  const auto& ys = in.by_config[base];
  std::size_t both = 0;
  for (const RunRecord* x : xs)
    for (const RunRecord* y : ys)
      if (x->block == y->block) ++both;
  cmp.n = both;
  const std::optional<double> vx = xs.empty() ? std::nullopt : metric_value(m, *xs.front());
  const std::optional<double> vy = ys.empty() ? std::nullopt : metric_value(m, *ys.front());
  cmp.margin = in.margin;
  // A zero count compares as (x + 1) / (y + 1): exact counts need no difference scale.
  if (vx && vy) {
    const double x = vx.value_or(kNaN), y = vy.value_or(kNaN);
    e.counted = true;
    e.plus1 = x <= 0 || y <= 0;
    cmp.effect = e.plus1 ? (x + 1) / (y + 1) - 1 : x / y - 1;
    cmp.median_config = x;
    cmp.median_baseline = y;
    judge_exact_comparison(cmp, x, y, in.margin);
  }
  return e;
}

// Why repeats that disagree make a comparison incomparable (empty if the verdict survives them, with a note).
std::string repeats_problem(const ExactInputs& in, const MetricInfo& m, const ExactComparison& e,
                            std::vector<std::string>& notes) {
  const Comparison& cmp = e.cmp;
  // Repeats that disagree: the verdict may stand only if it is the same at every
  // combination of the two sides' counts (the effect's whole range on one side
  // of ±margin); else the difference between runs decides it.
  const Spread sx = spread_of(in.plan, m, repeats_of(in.plan, in.by_config, cmp.config));
  const Spread sy = spread_of(in.plan, m, repeats_of(in.plan, in.by_config, cmp.baseline));
  if (sx.text.empty() && sy.text.empty()) return {};
  const double lo = ratio_effect(sx.lo, sy.hi, e.plus1), hi = ratio_effect(sx.hi, sy.lo, e.plus1);
  const bool within = std::fabs(lo) <= in.margin && std::fabs(hi) <= in.margin;
  const bool beyond = lo > in.margin || hi < -in.margin;
  const std::string what = !sx.text.empty() ? sx.text : sy.text;
  if (within || beyond) {
    notes.push_back(fmt::format("{} {}/{}: not deterministic ({}), but the effect is {} to {} over the "
                                "repeats, {} ±{:g}% either way",
                                m.name, cmp.level_label, to_string(cmp.layout), what, exact_percent_text(lo),
                                exact_percent_text(hi),
                                within ? "within" : "beyond", 100.0 * in.margin));
    return {};
  }
  return fmt::format("not deterministic: {}; the effect is {} to {} over the repeats, across ±{:g}%", what,
                     exact_percent_text(lo), exact_percent_text(hi), 100.0 * in.margin);
}

// One configuration against its baseline: the comparison, what makes it incomparable, and its tallies.
void compare_one(const ExactInputs& in, std::size_t mi, const Configuration& c, std::size_t base, Findings& f,
                 ExactPass& pass) {
  const MetricInfo& m = f.metrics[mi];
  ExactComparison e = exact_comparison(in, mi, m, c, base);
  Comparison& cmp = e.cmp;
  std::string why = exit_problem(in.plan, in.by_config[c.index], in.by_config[base], f.incomparable);
  if (why.empty() && e.counted) why = repeats_problem(in, m, e, f.notes);
  if (e.counted && why.empty()) {
    const bool repeated = repeats_of(in.plan, in.by_config, c.index).size() > 1 &&
                          repeats_of(in.plan, in.by_config, base).size() > 1;
    ++(repeated ? pass.confirmed : pass.unconfirmed);
  }
  if (in.plan.spec.doses_are_counters() && m.name == kInstructionsMetric && !cmp.aa &&
      cmp.layout == Layout::held && cmp.outside_margin && !pass.level_incomparable.count(c.level_index))
    pass.level_incomparable[c.level_index] =
        fmt::format("instruction count moved by {} where the dose adds no instructions ({})",
                    exact_percent_text(cmp.effect), exact_effect_text(cmp));
  pass.problem.push_back(std::move(why));
  f.comparisons.push_back(std::move(cmp));
}

// Every counted metric against its baseline, for every configuration that has one.
ExactPass compare_exactly(const ExactInputs& in, Findings& f) {
  ExactPass pass;
  for (std::size_t mi = 0; mi < f.metrics.size(); ++mi) {
    const MetricInfo& m = f.metrics[mi];
    if (!m.counter) {
      f.notes.push_back(fmt::format("{}: no counter of the plan yields this reading; not compared", m.name));
      continue;
    }
    for (const Configuration& c : in.plan.configs) {
      const auto base = comparison_baseline(in.plan, Metric::of_counter(*m.counter), c.index);
      if (base) compare_one(in, mi, c, *base, f, pass);
    }
  }
  return pass;
}

// The notes on how many comparisons a second run confirmed as deterministic, and how many it did not.
void note_confirmation(const ExactPass& pass, Findings& f) {
  if (pass.unconfirmed > 0)
    f.notes.push_back(fmt::format("{} comparison{} rest on configurations run once: determinism assumed there, "
                                  "not confirmed by a second run",
                                  pass.unconfirmed, pass.unconfirmed == 1 ? "" : "s"));
  if (pass.confirmed > 0)
    f.notes.push_back(fmt::format("determinism confirmed: both sides of {} comparison{} counted exactly the same "
                                  "again in a second run",
                                  pass.confirmed, pass.confirmed == 1 ? "" : "s"));
}

// The runs named incomparable in run order, each reason for a run once.
void sort_incomparable(std::vector<IncomparableRun>& runs) {
  std::sort(runs.begin(), runs.end(),
            [](const IncomparableRun& a, const IncomparableRun& b) { return a.run_index < b.run_index; });
  runs.erase(std::unique(runs.begin(), runs.end(),
                         [](const IncomparableRun& a, const IncomparableRun& b) {
                           return a.run_index == b.run_index && a.why == b.why;
                         }),
             runs.end());
}

}  // namespace

Findings analyse_deterministic(const Plan& plan, const std::vector<RunRecord>& runs, double margin) {
  if (!(margin > 0 && margin < 1))
    throw Error(ErrorKind::usage, fmt::format("margin {:g} is outside (0, 1)", margin),
                "give --margin as a fraction, e.g. 0.01 for ±1%");
  Findings f;
  f.deterministic = true;
  f.margin = margin;
  f.alpha = kNaN;
  f.looks_planned = 1;
  const ConfigRuns by_config = measured_runs(plan, runs, f);

  for (const MetricInfo& m : check_metrics(plan, runs))
    if (!m.driver) f.metrics.push_back(m);
  f.notes.push_back(
      "deterministic: the counts are simulated, so one run per configuration measures them exactly; effects are "
      "exact ratios, without confidence intervals or p-values");
  f.notes.push_back("wall time and rusage are the simulator's under --backend sim, not the program's: not compared");

  // Comparisons and what makes each incomparable.
  const ExactPass pass = compare_exactly(ExactInputs{plan, by_config, margin}, f);
  note_confirmation(pass, f);
  judge_exact_aa_control(f, margin);
  sort_incomparable(f.incomparable);

  // One verdict per metric and level.
  const ExactVerdictInputs verdict_inputs{f, pass.problem, pass.level_incomparable, margin};
  judge_levels(plan, f, [&](std::size_t, std::size_t li, const std::vector<std::size_t>& idx) {
    return judge_exact_level(verdict_inputs, li, idx);
  });
  return f;
}

}  // namespace obscheck
