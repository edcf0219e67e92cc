// analysis/check: the verdict rules: a metric's verdict at a level from its comparisons
// (incomparable, inconclusive, perturbed, explained by layout, not perturbed), in the
// order of check.h's table, and whether more blocks could still change one.
#include "analysis/check.h"
#include "analysis/check_internal.h"

#include <fmt/core.h>

#include <algorithm>
#include <cmath>

namespace obscheck {
namespace check_detail {
namespace {

std::string effect_with_p(const Comparison& c, const std::string& unit) {
  return fmt::format("{}: {}, Holm p = {:.2g}", layout_name(c), effect_text(c, unit), c.p_holm);
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
              fmt::format("{}; beyond the failed A/A control's own ±{:.3g}", effect_with_p(cs[i], unit), floor)};
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
  std::string text = fmt::format("{}: median {} within {}, but not the whole distribution: mean {}", layout_name(c),
                                 effect_text(c, unit), margin_text(c, unit), effect_text(mean, unit));
  if (c.tail_blocks > 0)
    text += fmt::format("; 1 run in {:.0f}: {}", std::round(static_cast<double>(c.n) / static_cast<double>(c.tail_blocks)),
                        value_text(c.tail_size, unit, true));
  return text;
}

// What "within" on n runs of the dose covers: "an effect on at least 1 run in 4 would
// have shown" (analysis/check.h intermittent_covered).
std::string covered_text(std::size_t n, double alpha) {
  return fmt::format("an effect on at least 1 run in {} would have shown", intermittent_covered(n, alpha));
}

// Within so far, on fewer runs than an effect on 1 run in 4 needs to show.
std::string unseen_runs_text(const Comparison& c, const std::string& unit, double alpha) {
  return fmt::format("{}: {}{} — within {}, but an effect on 1 run in {} would not yet have shown ({:.0f}% of the time "
                     "it leaves {} runs untouched); {} blocks would show it with {:.0f}% probability",
                     layout_name(c), effect_text(c, unit),
                     c.equal_blocks > 0 ? fmt::format(", equal in all {} blocks", c.equal_blocks) : "",
                     margin_text(c, unit), kIntermittentOneIn,
                     100 * std::pow(1.0 - 1.0 / static_cast<double>(kIntermittentOneIn), static_cast<double>(c.n)), c.n,
                     c.blocks_needed, 100 * (1 - alpha));
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
                          layout_name(c), effect_text(c, unit), margin_text(c, unit), c.p_holm)};
    // An interval that excludes 0 is said as the least effect it shows, not as a
    // symmetric bound a reader would take for "maybe safe" ([+28, +122] is "at least
    // +28%", never "no effect beyond ±122%").
    const std::string bound = bound_text(c, unit), least = least_text(c, unit);
    std::string text =
        bound.empty()    ? fmt::format("{}: {} — too few blocks to bound the effect", layout_name(c), effect_text(c, unit))
        : least.empty() ? fmt::format("{}: {} — no effect beyond {} ({:.0f}%), not shown within {}", layout_name(c),
                                       effect_text(c, unit), bound, 100 * c.level, margin_text(c, unit))
                         : fmt::format("{}: {} — {} ({:.0f}%), not yet decided: its interval still reaches within {}",
                                       layout_name(c), effect_text(c, unit), least, 100 * c.level, margin_text(c, unit));
    if (c.blocks_needed > 0) text += fmt::format("; about {} blocks would decide at this noise", c.blocks_needed);
    // More runs can change this answer only if the blocks it needs are within the
    // plan's cap; a bounded interval that no block count up to the cap would narrow
    // enough is as far as this check can go, and must not keep the sweep running.
    return {Verdict::inconclusive, text, !more_blocks_could_decide(c, x.max_blocks)};
  }
  return {Verdict::inconclusive,
          fmt::format("{} beyond {}, but no held comparison tells layout from measurement",
                      effect_with_p(cs[idx[0]], unit), margin_text(cs[idx[0]], unit))};
}

}  // namespace

bool decisive_effect(const Comparison& c) { return c.significant && c.outside_margin; }

// The first rule that applies, in the order of the header's table.
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
                          layout_name(cs[i]))};
  for (std::size_t i : idx)
    if (!cs[i].drift.empty())
      return {Verdict::inconclusive, fmt::format("drift: {}: {}", layout_name(cs[i]), cs[i].drift)};

  const Comparison* held = nullptr;
  for (std::size_t i : idx)
    if (cs[i].layout == Layout::held) held = &cs[i];
  if (held && decisive_effect(*held)) return {Verdict::perturbed, effect_with_p(*held, unit)};

  for (std::size_t i : idx)
    if (cs[i].layout != Layout::held && decisive_effect(cs[i]) && held && held->equivalent)
      return {Verdict::explained_by_layout,
              fmt::format("{}; held: {} within {}", effect_with_p(cs[i], unit), effect_text(*held, unit),
                          margin_text(*held, unit))};

  if (std::all_of(idx.begin(), idx.end(), [&](std::size_t i) { return cs[i].equivalent; })) {
    std::string list;
    for (std::size_t i : idx) {
      list += fmt::format("{}{} {}", list.empty() ? "" : ", ", layout_name(cs[i]), effect_text(cs[i], unit));
      // What the runs seen cover: "equal in all 11 blocks: an effect on at least 1 run in
      // 4 would have shown", "(40 blocks: ... 1 run in 13 ...)".
      if (cs[i].equal_blocks > 0)
        list += fmt::format(", equal in all {} blocks: {}", cs[i].equal_blocks, covered_text(cs[i].n, x.f.alpha));
      else
        list += fmt::format(" ({} blocks: {})", cs[i].n, covered_text(cs[i].n, x.f.alpha));
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

}  // namespace check_detail

bool more_blocks_could_decide(const Findings& f, std::size_t blocks, bool all_metrics) {
  // An inconclusive verdict whose comparisons are all decided (a failed A/A, say) waits
  // on nothing more runs would change.
  for (const LevelVerdict& v : f.verdicts)
    if (v.verdict == Verdict::inconclusive && (all_metrics || f.metrics[v.metric].primary))
      for (std::size_t i : v.comparisons)
        if (more_blocks_could_decide(f.comparisons[i], blocks)) return true;
  return false;
}

}  // namespace obscheck
