// analysis/: the rule book (rules.h): every verdict rule, defined here once.
#include "analysis/rules.h"

#include <fmt/core.h>

#include <algorithm>
#include <cmath>

#include "analysis/check.h"
#include "stats/sequential.h"

namespace obscheck {

// ---- interval rules ------------------------------------------------------------------

bool within_margin(double lo, double hi, double margin) { return lo > -margin && hi < margin; }

bool beyond_margin(double lo, double hi, double margin) { return lo > margin || hi < -margin; }

bool ci_excludes_zero(const Comparison& c) { return c.n >= 2 && (c.ci_lo > 0 || c.ci_hi < 0); }

bool significant_at(const Comparison& c, double alpha) { return c.n >= 2 && c.p_holm < alpha && ci_excludes_zero(c); }

bool decisive_effect(const Comparison& c) { return c.significant && c.outside_margin; }

bool more_blocks_could_decide(const Comparison& c, std::size_t blocks) {
  if (c.equivalent || decisive_effect(c)) return false;
  // Within so far, on too few runs: the blocks that cover an intermittent effect decide.
  if (c.unseen_runs) return blocks >= c.blocks_needed && blocks > c.n;
  // The median within the margin and the mean shown beyond it: settled as not within.
  if (c.median_only) return !c.mean_beyond && blocks > c.n;
  if (!std::isfinite(c.ci_lo) || !std::isfinite(c.ci_hi) || !c.drift.empty() || c.outside_margin) return true;
  if (blocks <= c.n) return false;
  // Not the point estimate: early on it sits near the margin by chance as often as not,
  // and a check that gave up on "+1.1%, so ±1% can never be shown" after 80 blocks of a
  // true null would give up on most nulls. Any effect the interval still admits may be
  // the true one; more blocks can decide if, at the interval's width `blocks` would
  // give, one of them would be shown within the margin or beyond it.
  const auto on_d = [&](double v) { return c.scale == Scale::ratio ? std::log1p(v) : v; };
  const double lo = on_d(c.ci_lo), hi = on_d(c.ci_hi), margin = on_d(c.margin);
  // The sign sequence's width scales with the blocks; the t-test's narrows faster, so
  // this errs towards running on.
  const double half = std::isnan(c.sequence_half_width) ? (hi - lo) / 2 : c.sequence_half_width;
  const double width = stats::projected_half_width(half, c.n, blocks, sequence_alpha((1 - c.level) / 2));
  if (!std::isfinite(width)) return true;
  const double nearest = lo <= 0 && hi >= 0 ? 0.0 : std::min(std::fabs(lo), std::fabs(hi));
  const double farthest = std::max(std::fabs(lo), std::fabs(hi));
  return nearest + width < margin || farthest - width > margin;
}

bool more_blocks_could_decide(const Findings& f, std::size_t blocks, bool all_metrics) {
  // An inconclusive verdict whose comparisons are all decided (a failed A/A, say) waits
  // on nothing more runs would change.
  for (const LevelVerdict& v : f.verdicts)
    if (v.verdict == Verdict::inconclusive && (all_metrics || f.metrics[v.metric].primary))
      for (std::size_t i : v.comparisons)
        if (more_blocks_could_decide(f.comparisons[i], blocks)) return true;
  return false;
}

// ---- exact rules (deterministic counts) --------------------------------------------

void judge_exact_comparison(Comparison& c, double config_count, double baseline_count, double margin) {
  c.significant = config_count != baseline_count;
  c.outside_margin = std::fabs(c.effect) > margin;
  c.equivalent = !c.outside_margin;
}

// ---- the A/A control -----------------------------------------------------------------

AaOutcome judge_aa_control(Findings& f) {
  AaOutcome aa{std::vector<std::string>(f.metrics.size()), std::vector<double>(f.metrics.size(), 0.0)};
  for (std::size_t i = 0; i < f.comparisons.size(); ++i) {
    const Comparison& c = f.comparisons[i];
    // A metric whose values are not the target's (MetricInfo::hidden: max-rss under
    // obscheck's own peak) is no evidence about the runs either way.
    if (!c.aa || !f.metrics[c.metric].hidden.empty()) continue;
    f.aa.comparisons.push_back(i);
    const std::string& unit = f.metrics[c.metric].unit;
    std::string why;
    if (c.significant) why = fmt::format("differ by {}, Holm p = {:.2g}", effect_text(c, unit), c.p_holm);
    else if (!c.drift.empty()) why = "drift: " + c.drift;
    if (why.empty()) continue;
    aa.discrepancy[c.metric] = c.significant ? std::max(std::fabs(c.ci_lo), std::fabs(c.ci_hi)) : 0.0;
    aa.failed[c.metric] = "A/A control failed: baseline vs its duplicate " + why;
    f.aa.ok = false;
    f.aa.reason += fmt::format("{}{}: {}", f.aa.reason.empty() ? "" : "; ", f.metrics[c.metric].name, why);
  }
  return aa;
}

void judge_exact_aa_control(Findings& f, double margin) {
  for (std::size_t i = 0; i < f.comparisons.size(); ++i) {
    const Comparison& c = f.comparisons[i];
    if (!c.aa) continue;
    f.aa.comparisons.push_back(i);
    if (!c.significant) continue;
    if (!c.outside_margin) {
      f.notes.push_back(fmt::format("A/A control: {} counted {} in the duplicate and {} in the baseline: within ±{:g}%, "
                                    "but not exactly deterministic",
                                    f.metrics[c.metric].name, exact_count_text(c.median_config),
                                    exact_count_text(c.median_baseline), 100.0 * margin));
      continue;
    }
    f.aa.ok = false;
    f.aa.reason += fmt::format("{}{}: {} vs {}", f.aa.reason.empty() ? "" : "; ", f.metrics[c.metric].name,
                               exact_count_text(c.median_config), exact_count_text(c.median_baseline));
  }
}

bool compare_aa_failed(const VariantComparison& aa) {
  return aa.outcome == Outcome::better || aa.outcome == Outcome::worse || aa.outcome == Outcome::incomparable;
}

// ---- a metric's verdict at a level -------------------------------------------------

namespace {

std::string rule_layout_name(const Comparison& c) { return std::string(to_string(c.layout)); }

std::string effect_with_holm_p(const Comparison& c, const std::string& unit) {
  return fmt::format("{}: {}, Holm p = {:.2g}", rule_layout_name(c), effect_text(c, unit), c.p_holm);
}

// The level's judgement when its metric's A/A control failed.
LevelJudgement failed_aa_judgement(const VerdictInputs& x, std::size_t metric, const std::vector<std::size_t>& idx) {
  const auto& cs = x.f.comparisons;
  const std::string& unit = x.f.metrics[metric].unit;
  // A failed A/A measures a systematic error between identical configurations (order,
  // drift). It voids every claim that error could produce, but not an effect that
  // lies wholly beyond it: a held effect whose interval clears ±(margin + the A/A's
  // largest bound) cannot be that error. Only where nothing else would leave the level
  // inconclusive: the exception must not skip those rules.
  const bool sound = std::all_of(idx.begin(), idx.end(), [&](std::size_t i) {
    return cs[i].n >= kMinPairedBlocks && cs[i].drift.empty();
  });
  for (std::size_t i : idx) {
    const double floor = cs[i].margin + x.aa_discrepancy[metric];
    if (sound && cs[i].layout == Layout::held && cs[i].significant && (cs[i].ci_lo > floor || cs[i].ci_hi < -floor))
      return {Verdict::perturbed,
              fmt::format("{}; beyond the failed A/A control's own ±{:.3g}", effect_with_holm_p(cs[i], unit), floor)};
  }
  return {Verdict::inconclusive, x.aa_failed[metric]};
}

// The typical run within the margin, the whole distribution not: "1 run in 4: +64".
std::string median_only_text(const Comparison& c, const std::string& unit) {
  const Comparison mean = [&] {
    Comparison m = c;
    m.effect = c.mean_effect;
    m.ci_lo = c.mean_lo;
    m.ci_hi = c.mean_hi;
    return m;
  }();
  std::string text = fmt::format("{}: median {} within {}, but not the whole distribution: mean {}", rule_layout_name(c),
                                 effect_text(c, unit), margin_text(c, unit), effect_text(mean, unit));
  if (c.tail_blocks > 0)
    text += fmt::format("; 1 run in {:.0f}: {}", std::round(static_cast<double>(c.n) / static_cast<double>(c.tail_blocks)),
                        value_text(c.tail_size, unit, true));
  return text;
}

// The doses the intermittent cover holds over together, when more than one.
std::string doses_text(const Comparison& c) {
  if (c.cover_doses == 2) return " at both doses together";
  return c.cover_doses > 2 ? fmt::format(" at all {} doses together", c.cover_doses) : std::string{};
}

// What "within" on n runs of the dose covers: "an effect on at least 1 run in 4 would
// have shown", at every one of the metric's doses together (analysis/check.h
// intermittent_covered).
std::string covered_text(const Comparison& c, double alpha) {
  return fmt::format("an effect on at least 1 run in {} would have shown{}", intermittent_covered(c.n, alpha, c.cover_doses),
                     doses_text(c));
}

// Within so far, on fewer runs than an effect on 1 run in 4 needs to show.
std::string unseen_runs_text(const Comparison& c, const std::string& unit, double alpha) {
  const double untouched = std::pow(1.0 - 1.0 / static_cast<double>(kIntermittentOneIn), static_cast<double>(c.n));
  return fmt::format("{}: {}{} — within {}, but an effect on 1 run in {} would not yet have shown "
                     "({:.0f}% of the time it leaves {} runs untouched); {} blocks would show it with "
                     "{:.0f}% probability{}",
                     rule_layout_name(c), effect_text(c, unit),
                     c.equal_blocks > 0 ? fmt::format(", equal in all {} blocks", c.equal_blocks) : "",
                     margin_text(c, unit), kIntermittentOneIn, 100 * untouched, c.n, c.blocks_needed,
                     100 * (1 - alpha), doses_text(c));
}

// The level's judgement when no rule decided it.
LevelJudgement undecided_judgement(const VerdictInputs& x, const std::string& unit,
                                   const std::vector<std::size_t>& idx) {
  const auto& cs = x.f.comparisons;
  // Undecided: say what does hold, held first, and what deciding would take.
  std::vector<std::size_t> order = idx;
  std::stable_partition(order.begin(), order.end(), [&](std::size_t i) { return cs[i].layout == Layout::held; });
  for (std::size_t i : order) {
    const Comparison& c = cs[i];
    if (c.equivalent || decisive_effect(c)) continue;
    if (c.median_only) return {Verdict::inconclusive, median_only_text(c, unit), !more_blocks_could_decide(c, x.max_blocks)};
    if (c.unseen_runs)
      return {Verdict::inconclusive, unseen_runs_text(c, unit, x.f.alpha), !more_blocks_could_decide(c, x.max_blocks)};
    if (c.outside_margin)  // the size is settled, the family-wise test not yet: more blocks will decide
      return {Verdict::inconclusive,
              fmt::format("{}: {} — beyond {}, but not yet significant over the family (Holm p = {:.2g})",
                          rule_layout_name(c), effect_text(c, unit), margin_text(c, unit), c.p_holm)};
    // An interval that excludes 0 is said as the least effect it shows, not as a
    // symmetric bound a reader would take for "maybe safe" ([+28, +122] is "at least
    // +28%", never "no effect beyond ±122%").
    const std::string bound = bound_text(c, unit), least = least_text(c, unit);
    std::string text =
        bound.empty()    ? fmt::format("{}: {} — too few blocks to bound the effect", rule_layout_name(c), effect_text(c, unit))
        : least.empty() ? fmt::format("{}: {} — no effect beyond {} ({:.0f}%), not shown within {}", rule_layout_name(c),
                                       effect_text(c, unit), bound, 100 * c.level, margin_text(c, unit))
                         : fmt::format("{}: {} — {} ({:.0f}%), not yet decided: its interval still reaches within {}",
                                       rule_layout_name(c), effect_text(c, unit), least, 100 * c.level, margin_text(c, unit));
    if (c.blocks_needed > 0) text += fmt::format("; about {} blocks would decide at this noise", c.blocks_needed);
    // More runs can change this answer only if the blocks it needs are within the
    // plan's cap; a bounded interval that no block count up to the cap would narrow
    // enough is as far as this check can go, and must not keep the sweep running.
    return {Verdict::inconclusive, text, !more_blocks_could_decide(c, x.max_blocks)};
  }
  return {Verdict::inconclusive,
          fmt::format("{} beyond {}, but no held comparison tells layout from measurement",
                      effect_with_holm_p(cs[idx[0]], unit), margin_text(cs[idx[0]], unit))};
}

}  // namespace

// The first rule that applies, in the order of check.h's table.
LevelJudgement judge_level(const VerdictInputs& x, std::size_t metric, std::size_t level,
                           const std::vector<std::size_t>& idx) {
  const auto& cs = x.f.comparisons;
  const std::string& unit = x.f.metrics[metric].unit;
  for (std::size_t i : idx)
    if (!x.incomparable[i].empty()) return {Verdict::incomparable, x.incomparable[i]};
  if (auto it = x.level_incomparable.find(level); it != x.level_incomparable.end())
    return {Verdict::incomparable, it->second};

  if (!x.aa_failed[metric].empty()) return failed_aa_judgement(x, metric, idx);
  for (std::size_t i : idx)
    if (cs[i].n < kMinPairedBlocks)
      return {Verdict::inconclusive,
              fmt::format("too few runs: {} blocks, need at least {} ({})", cs[i].n, kMinPairedBlocks,
                          rule_layout_name(cs[i]))};
  for (std::size_t i : idx)
    if (!cs[i].drift.empty())
      return {Verdict::inconclusive, fmt::format("drift: {}: {}", rule_layout_name(cs[i]), cs[i].drift)};

  const Comparison* held = nullptr;
  for (std::size_t i : idx)
    if (cs[i].layout == Layout::held) held = &cs[i];
  if (held && decisive_effect(*held)) return {Verdict::perturbed, effect_with_holm_p(*held, unit)};

  for (std::size_t i : idx)
    if (cs[i].layout != Layout::held && decisive_effect(cs[i]) && held && held->equivalent)
      return {Verdict::explained_by_layout,
              fmt::format("{}; held: {} within {}", effect_with_holm_p(cs[i], unit), effect_text(*held, unit),
                          margin_text(*held, unit))};

  if (std::all_of(idx.begin(), idx.end(), [&](std::size_t i) { return cs[i].equivalent; })) {
    std::string list;
    for (std::size_t i : idx) {
      list += fmt::format("{}{} {}", list.empty() ? "" : ", ", rule_layout_name(cs[i]), effect_text(cs[i], unit));
      // What the runs seen cover: "equal in all 11 blocks: an effect on at least 1 run in
      // 4 would have shown", "(40 blocks: ... 1 run in 13 ...)".
      if (cs[i].equal_blocks > 0)
        list += fmt::format(", equal in all {} blocks: {}", cs[i].equal_blocks, covered_text(cs[i], x.f.alpha));
      else
        list += fmt::format(" ({} blocks: {})", cs[i].n, covered_text(cs[i], x.f.alpha));
    }
    return {Verdict::not_perturbed, fmt::format("within {} under {}", margin_text(cs[idx[0]], unit), list)};
  }

  return undecided_judgement(x, unit, idx);
}

// A judgement decided on scaled values (AnalysisOptions::allow_multiplex) says so.
LevelJudgement label_scaled(const Findings& f, const std::vector<std::size_t>& idx, LevelJudgement j) {
  if (j.verdict == Verdict::incomparable) return j;
  std::size_t runs = 0;
  double max_scale = 1;
  for (std::size_t i : idx) runs += f.comparisons[i].scaled_runs, max_scale = std::max(max_scale, f.comparisons[i].max_scale);
  if (runs == 0) return j;
  j.scaled = true;
  j.reason += fmt::format("; scaled: multiplexed in {} run{} (up to x{:.2f}), compared as estimates (--allow-multiplex)",
                          runs, runs == 1 ? "" : "s", max_scale);
  return j;
}

LevelJudgement judge_exact_level(const ExactVerdictInputs& x, std::size_t li, const std::vector<std::size_t>& idx) {
  const auto& cs = x.f.comparisons;
  const auto& problem = x.problem;
  const std::string eps = fmt::format("±{:g}%", 100.0 * x.margin);
  LevelJudgement j;
  const Comparison* held = nullptr;
  for (std::size_t i : idx)
    if (cs[i].layout == Layout::held) held = &cs[i];
  const auto missing = std::find_if(idx.begin(), idx.end(), [&](std::size_t i) { return !std::isfinite(cs[i].effect); });
  const auto odd = std::find_if(idx.begin(), idx.end(), [&](std::size_t i) { return !problem[i].empty(); });
  const auto beyond = std::find_if(idx.begin(), idx.end(), [&](std::size_t i) { return cs[i].outside_margin; });
  if (odd != idx.end()) {
    j = {Verdict::incomparable, problem[*odd]};
  } else if (auto it = x.level_incomparable.find(li); it != x.level_incomparable.end()) {
    j = {Verdict::incomparable, it->second};
  } else if (missing != idx.end()) {
    j.reason = fmt::format("{}: not run yet", to_string(cs[*missing].layout));
  } else if (held && held->outside_margin) {
    j = {Verdict::perturbed, exact_effect_text(*held) + ", exact"};
  } else if (beyond != idx.end() && held) {
    j = {Verdict::explained_by_layout,
         fmt::format("{}; held: {} within {}", exact_effect_text(cs[*beyond]), exact_percent_text(held->effect), eps)};
  } else if (beyond == idx.end()) {
    std::string list;
    for (std::size_t i : idx) list += fmt::format("{}{} {}", list.empty() ? "" : ", ", to_string(cs[i].layout), exact_percent_text(cs[i].effect));
    j = {Verdict::not_perturbed, fmt::format("within {} under {}, exact", eps, list)};
  } else {
    j.reason = fmt::format("{} beyond {}, but no held comparison tells layout from measurement",
                           exact_effect_text(cs[*beyond]), eps);
  }
  return j;
}

// ---- compare's outcome -----------------------------------------------------------------

void judge_compare_outcome(double margin, VariantComparison& c) {
  const double pct = 100 * std::fabs(c.ratio - 1);
  if (c.ratio_ci.lo > 1 && c.bootstrap->percentile.lo > 1) {
    c.outcome = Outcome::worse;
    c.verdict = fmt::format("worse: the contender takes {:.1f}% more", pct);
  } else if (c.ratio_ci.hi < 1 && c.bootstrap->percentile.hi < 1) {
    c.outcome = Outcome::better;
    c.verdict = fmt::format("better: the contender takes {:.1f}% less", pct);
  } else if (c.tost->equivalent) {
    c.outcome = Outcome::equivalent;
    c.verdict = fmt::format("no significant difference (equivalent within ±{:g}%)", 100 * margin);
  } else {
    c.outcome = Outcome::no_difference;
    c.verdict = fmt::format("no significant difference (not shown equivalent within ±{:g}%: more contexts would tell)",
                            100 * margin);
  }
}

}  // namespace obscheck
