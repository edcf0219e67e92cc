#include "analysis/findings.h"

#include <fmt/core.h>

#include <array>
#include <cmath>
#include <string>
#include <utility>

#include "util/error.h"

namespace obscheck {
namespace {

struct VerdictName {
  Verdict verdict;
  std::string_view text;
  std::string_view key;
};

constexpr std::array<VerdictName, 5> kVerdictNames{{
    {Verdict::perturbed, "perturbed by the measurement", "perturbed"},
    {Verdict::explained_by_layout, "explained by layout", "layout"},
    {Verdict::not_perturbed, "not perturbed (within ±ε)", "not-perturbed"},
    {Verdict::incomparable, "incomparable", "incomparable"},
    {Verdict::inconclusive, "inconclusive", "inconclusive"},
}};

const VerdictName& name_of(Verdict v) {
  for (const VerdictName& n : kVerdictNames)
    if (n.verdict == v) return n;
  throw Error(ErrorKind::internal, "verdict out of range: " + std::to_string(static_cast<int>(v)));
}

}  // namespace

std::string_view verdict_text(Verdict v) { return name_of(v).text; }

std::string_view verdict_key(Verdict v) { return name_of(v).key; }

Verdict verdict_from_key(std::string_view key) {
  for (const VerdictName& n : kVerdictNames)
    if (n.key == key) return n.verdict;
  throw Error(ErrorKind::io, "unknown verdict \"" + std::string(key) + "\"",
              "expected one of: perturbed, layout, not-perturbed, incomparable, inconclusive");
}

std::string_view determinism_key(Determinism d) {
  switch (d) {
    case Determinism::deterministic: return "deterministic";
    case Determinism::varies: return "varies";
    case Determinism::not_known: break;
  }
  return "not-known";
}

int verdict_severity(Verdict v) {
  switch (v) {
    case Verdict::perturbed: return 4;
    case Verdict::explained_by_layout: return 3;
    case Verdict::incomparable: return 2;
    case Verdict::inconclusive: return 1;
    case Verdict::not_perturbed: return 0;
  }
  return 1;
}


std::string_view to_string(Scale s) { return s == Scale::ratio ? "ratio" : "difference"; }

namespace {

// A time in ns with a unit that keeps three significant digits.
std::string time_text(double ns, bool sign) {
  const double a = std::fabs(ns);
  const char* unit = "ns";
  double v = ns;
  if (a >= 1e9) v = ns / 1e9, unit = "s";
  else if (a >= 1e6) v = ns / 1e6, unit = "ms";
  else if (a >= 1e3) v = ns / 1e3, unit = "µs";
  const double av = std::fabs(v);
  const int digits = av >= 100 || av == std::floor(av) ? 0 : av >= 10 ? 1 : 2;
  return sign ? fmt::format("{:+.{}f} {}", v, digits, unit) : fmt::format("{:.{}f} {}", v, digits, unit);
}

std::string count_text(double v, bool sign) {
  const double a = std::fabs(v);
  const int digits = a == std::floor(a) || a >= 100 ? 0 : a >= 10 ? 1 : 2;
  return sign ? fmt::format("{:+.{}f}", v, digits) : fmt::format("{:.{}f}", v, digits);
}

std::string pct_text(double fraction, int digits) {
  if (std::isinf(fraction)) return fraction > 0 ? "+∞" : "-∞";
  std::string s = fmt::format("{:+.{}f}", 100.0 * fraction, digits);
  if (s.find_first_not_of("-0.") == std::string::npos) s[0] = '+';
  return s;
}

}  // namespace

std::string value_text(double v, const std::string& unit, bool sign) {
  if (std::isinf(v)) return v > 0 ? "+∞" : "-∞";
  if (std::isnan(v)) return "n/a";
  if (unit == "ns") return time_text(v, sign);
  std::string out = count_text(v, sign);
  return unit == "count" || unit.empty() ? out : out + " " + unit;
}

std::string effect_text(const Comparison& c, const std::string& unit) {
  if (!std::isfinite(c.effect)) return "n/a";
  // Exact counts (the simulated PMU) have no interval: the effect is the difference.
  const bool exact = std::isnan(c.ci_lo) && std::isnan(c.ci_hi);
  if (exact && c.scale == Scale::difference) return value_text(c.effect, unit, true) + " per run (exact)";
  if (exact) {
    const double largest = std::fabs(100 * c.effect);
    return pct_text(c.effect, largest < 1 ? 2 : largest < 100 ? 1 : 0) + "% (exact)";
  }
  if (c.scale == Scale::difference)
    return fmt::format("{} per run [{}, {}]", value_text(c.effect, unit, true), value_text(c.ci_lo, unit, true),
                       value_text(c.ci_hi, unit, true));
  double largest = std::fabs(100 * c.effect);
  for (double v : {c.ci_lo, c.ci_hi})
    if (std::isfinite(v)) largest = std::max(largest, std::fabs(100 * v));
  const int d = largest < 1 ? 2 : largest < 100 ? 1 : 0;
  return fmt::format("{}% [{}, {}]", pct_text(c.effect, d), pct_text(c.ci_lo, d), pct_text(c.ci_hi, d));
}

std::string least_text(const Comparison& c, const std::string& unit) {
  const bool above = c.ci_lo > 0, below = c.ci_hi < 0;  // false for NaN (exact counts)
  if (!above && !below) return {};
  const double end = above ? c.ci_lo : c.ci_hi;
  if (!std::isfinite(end)) return {};
  if (c.scale == Scale::difference)
    return above ? "at least " + value_text(end, unit, true) + " per run"
                 : "at least " + value_text(-end, unit, false) + " per run lower";
  const double p = 100 * std::fabs(end);
  const int d = p < 1 ? 2 : p < 100 ? 1 : 0;
  return above ? "at least " + pct_text(end, d) + "%" : fmt::format("at least {:.{}f}% lower", p, d);
}

std::string margin_text(const Comparison& c, const std::string& unit) {
  if (c.scale == Scale::difference) return "±" + value_text(c.margin, unit, false) + " per run";
  return fmt::format("±{:g}%", 100.0 * c.margin);
}

std::string bound_text(const Comparison& c, const std::string& unit) {
  if (!std::isfinite(c.bound)) return {};
  if (c.scale == Scale::difference) return "±" + value_text(c.bound, unit, false) + " per run";
  const double p = 100 * c.bound;
  return fmt::format("±{:.{}f}%", p, p < 10 ? 1 : 0);
}

Comparison comparison_of(const Plan& plan, std::size_t metric, const Configuration& c, std::size_t baseline) {
  Comparison cmp;
  cmp.metric = metric;
  cmp.config = c.index;
  cmp.baseline = baseline;
  cmp.level_index = c.level_index;
  cmp.dose = plan.spec.levels[c.level_index].dose;
  cmp.level_label = plan.spec.levels[c.level_index].label;
  cmp.layout = c.layout;
  cmp.aa = c.aa_duplicate;
  return cmp;
}

void judge_levels(const Plan& plan, Findings& f, const LevelJudge& judge) {
  f.metric_verdicts.assign(f.metrics.size(), Verdict::inconclusive);
  std::vector<bool> any(f.metrics.size(), false);
  bool unsettled = false, unsettled_primary = false, any_primary = false, open = false, open_primary = false;
  for (std::size_t mi = 0; mi < f.metrics.size(); ++mi)
    for (std::size_t li = 0; li < plan.spec.levels.size() && f.metrics[mi].judged; ++li) {
      std::vector<std::size_t> idx;
      for (std::size_t i = 0; i < f.comparisons.size(); ++i)
        if (f.comparisons[i].metric == mi && f.comparisons[i].level_index == li && !f.comparisons[i].aa)
          idx.push_back(i);
      if (idx.empty()) continue;
      LevelJudgement j = judge(mi, li, idx);
      const bool primary = f.metrics[mi].primary;
      any_primary |= primary;
      if (j.verdict == Verdict::inconclusive && !j.final) unsettled = true, unsettled_primary |= primary;
      if (j.verdict == Verdict::inconclusive) open = true, open_primary |= primary;
      LevelVerdict v;
      v.metric = mi;
      v.level_index = li;
      v.dose = plan.spec.levels[li].dose;
      v.level_label = plan.spec.levels[li].label;
      v.verdict = j.verdict;
      v.reason = std::move(j.reason);
      v.scaled = j.scaled;
      v.comparisons = std::move(idx);
      if (!any[mi] || verdict_severity(v.verdict) > verdict_severity(f.metric_verdicts[mi])) f.metric_verdicts[mi] = v.verdict;
      any[mi] = true;
      f.verdicts.push_back(std::move(v));
    }
  f.decisive = any_primary && !unsettled_primary;
  f.all_decided = !f.verdicts.empty() && !unsettled;
  f.answered = any_primary && !open_primary;
  f.all_answered = !f.verdicts.empty() && !open;
}

std::string exact_percent_text(double fraction) {
  if (!std::isfinite(fraction)) return "n/a";
  std::string s = fmt::format("{:+.2f}%", 100.0 * fraction);
  return s == "-0.00%" ? "+0.00%" : s;
}

std::string exact_count_text(double v) { return fmt::format("{:.0f}", v); }

std::string exact_effect_text(const Comparison& c) {
  return fmt::format("{}: {} ({} vs {})", to_string(c.layout), exact_percent_text(c.effect),
                     exact_count_text(c.median_config), exact_count_text(c.median_baseline));
}

}  // namespace obscheck
