// report/check: the sentences a person reads first: the summary (one answer per metric,
// the safe doses, the whole check's verdict), the A/A control's line, what deciding the
// undecided would take, and the methods footer.
#include "report/check_report.h"
#include "report/check_report_internal.h"

#include <fmt/core.h>

#include <algorithm>
#include <cmath>

#include "analysis/check.h"
#include "analysis/summary.h"
#include "report/display_unit.h"

namespace obscheck {
namespace check_report_detail {
namespace {

// Comparisons that carry a p-value into the Holm family: not the A/A control, not a
// configuration without any paired block.
std::size_t family_size(const Findings& f, bool primary) {
  return static_cast<std::size_t>(std::count_if(f.comparisons.begin(), f.comparisons.end(), [&](const Comparison& c) {
    return !c.aa && c.n > 0 && c.metric < f.metrics.size() && f.metrics[c.metric].primary == primary;
  }));
}

std::vector<std::string> distinct(std::vector<std::string> items) {
  std::vector<std::string> out;
  for (auto& s : items)
    if (!s.empty() && std::find(out.begin(), out.end(), s) == out.end()) out.push_back(std::move(s));
  return out;
}

// What one dose is called in a sentence: "4 counters", "3 uprobes", "1000Hz".
std::string dose_name(const Plan& plan, std::size_t level) {
  const Level& l = plan.spec.levels.at(level);
  const std::string noun = plan.spec.dose_noun();
  if (noun.empty()) return l.label;
  return fmt::format("{} {}{}", l.dose, noun, l.dose == 1 ? "" : "s");
}

// The A/A control's bound on this metric: the noise a verdict was judged against.
std::string noise_text(const Findings& f, std::size_t metric) {
  for (const Comparison& c : f.comparisons)
    if (c.aa && c.metric == metric && c.n > 1) {
      const std::string b = bound_text(c, f.metrics[metric].unit);
      return b.empty() ? std::string() : "A/A " + b;
    }
  return {};
}

// Why a metric without doses has no answer: counted at one dose only, or nothing to compare.
std::string no_dose_text(const Plan& plan, const Findings& f, const MetricAnswer& a) {
  const bool reference = !plan.spec.levels.empty() && plan.spec.levels.front().programmed.empty();
  return reference && f.metrics[a.metric].counter
             ? "counted at one dose only: level 0 (no counter) cannot measure it; wall time and rusage show what "
               "counting it does to the program"
             : "no dose to compare";
}

// The comparison an answer quotes: the largest dose's, or the one that leaves it undecided.
const Comparison* shown_comparison(const Findings& f, const MetricAnswer& a) {
  const LevelVerdict& last = f.verdicts[a.doses.back()];
  const Comparison* shown = a.largest ? &f.comparisons[*a.largest] : nullptr;
  // Undecided: the layout whose interval is widest is the one that leaves it open.
  if (a.verdict == Verdict::inconclusive)
    for (std::size_t i : last.comparisons)
      if (shown && f.comparisons[i].bound > shown->bound) shown = &f.comparisons[i];
  return shown;
}

// "(largest, 4 counters: +0.2% [-0.6, +0.9]; noise A/A ±0.7%)" after an answer, or "" with nothing shown.
std::string at_largest_text(const Plan& plan, const Findings& f, const MetricAnswer& a, const Comparison* shown) {
  if (!shown) return {};
  const LevelVerdict& last = f.verdicts[a.doses.back()];
  const std::string layout_note = plan.spec.layouts.size() > 1 ? std::string(to_string(shown->layout)) + " " : "";
  const std::string noise = noise_text(f, a.metric);
  return fmt::format(" ({}{}: {}{}{})", a.doses.size() > 1 ? "largest, " : "", dose_name(plan, last.level_index),
                     layout_note, effect_text(*shown, f.metrics[a.metric].unit),
                     noise.empty() ? "" : "; noise " + noise);
}

// "perturbed from 4 counters (...)", or "explained by layout (...); with the layout held it does not move".
std::string perturbed_text(const Plan& plan, const Findings& f, const MetricAnswer& a, const std::string& at_largest) {
  const std::string& unit = f.metrics[a.metric].unit;
  const LevelVerdict& last = f.verdicts[a.doses.back()];
  const std::size_t n = a.doses.size();
  std::string out = a.verdict == Verdict::perturbed ? "perturbed" : "explained by layout";
  if (n > 1 && a.lowest_unsafe) out += " from " + dose_name(plan, f.verdicts[*a.lowest_unsafe].level_index);
  if (a.verdict == Verdict::perturbed) return out + at_largest;
  // The layout's effect is where the dose moves the metric; held shows it gone.
  std::string parts;
  for (std::size_t i : last.comparisons)
    parts += fmt::format("{}{} {}", parts.empty() ? "" : ", ", to_string(f.comparisons[i].layout),
                         effect_text(f.comparisons[i], unit));
  return fmt::format("{} ({}{}: {}); with the layout held it does not move", out, n > 1 ? "largest, " : "",
                     dose_name(plan, last.level_index), parts);
}

// Every comparison of every dose of the metric has d = 0 in all its blocks.
bool all_equal(const Findings& f, const MetricAnswer& a) {
  for (std::size_t v : a.doses)
    for (std::size_t i : f.verdicts[v].comparisons)
      if (f.comparisons[i].equal_blocks == 0) return false;
  return !a.doses.empty();
}

// Why an undecided comparison whose interval excludes 0 is not "perturbed": what the
// verdict's rule (analysis/rules.h judge_level) still lacks.
std::string not_yet_why(const Findings& f, const Comparison& c) {
  const std::string& unit = f.metrics[c.metric].unit;
  if (c.n < kMinPairedBlocks) return fmt::format("{} blocks, {} needed", c.n, kMinPairedBlocks);
  if (!c.outside_margin) return fmt::format("its interval still reaches within {}", margin_text(c, unit));
  if (!c.significant) return fmt::format("Holm p = {:.2g}, not yet below α = {:g}", c.p_holm, f.alpha);
  return "another layout or a drift test leaves it open (--verbose shows the reason)";
}

// "undecided at 2 of 3 doses: no effect beyond ±0.7% (...); about 40 blocks would decide",
// or, where the interval excludes 0, "undecided: at least +28% (...); not yet decided: ...":
// an interval is said as an interval, never as a symmetric bound it does not reach.
std::string undecided_text(const Findings& f, const MetricAnswer& a, const Comparison* shown,
                           const std::string& at_largest) {
  const std::size_t n = a.doses.size();
  std::string out = n - a.decided == n ? "undecided" : fmt::format("undecided at {} of {} doses", n - a.decided, n);
  if (shown) {
    const std::string& unit = f.metrics[a.metric].unit;
    const std::string least = least_text(*shown, unit);
    const std::string bound = bound_text(*shown, unit);
    // Within so far, but the runs seen are too few to show an intermittent effect: a
    // bound of ±0 would read as an answer it is not.
    if (shown->unseen_runs)
      return fmt::format("{}: within {} in {} blocks{}, too few for an effect on 1 run in {} to have shown; {} blocks "
                         "would decide",
                         out, margin_text(*shown, unit), shown->n, at_largest, kIntermittentOneIn, shown->blocks_needed);
    if (!least.empty()) out += ": " + least + at_largest + "; not yet decided: " + not_yet_why(f, *shown);
    else out += (bound.empty() ? "" : ": no effect beyond " + bound) + at_largest;
    if (shown->blocks_needed > 0) out += fmt::format("; about {} blocks would decide", shown->blocks_needed);
  }
  return out;
}

std::string metric_answer_text(const Plan& plan, const Findings& f, const MetricAnswer& a) {
  if (a.doses.empty()) return no_dose_text(plan, f, a);
  const Comparison* shown = shown_comparison(f, a);
  const std::string at_largest = at_largest_text(plan, f, a, shown);
  switch (a.verdict) {
    case Verdict::not_perturbed:
      if (shown && all_equal(f, a))  // d was 0 in every block at every dose: say so, not only the margin
        return fmt::format("not perturbed: equal in all {} blocks at {}{}: an effect on at least 1 run in {} would "
                           "have shown",
                           shown->equal_blocks, a.doses.size() == 1 ? "the dose" : "every dose", at_largest,
                           intermittent_covered(shown->equal_blocks, f.alpha));
      return fmt::format("not perturbed: within {} at {}{}",
                         shown ? margin_text(*shown, f.metrics[a.metric].unit) : format_margin(f.margin),
                         a.doses.size() == 1 ? "the dose" : "every dose", at_largest);
    case Verdict::perturbed:
    case Verdict::explained_by_layout:
      return perturbed_text(plan, f, a, at_largest);
    case Verdict::incomparable:
      for (const LevelVerdict& v : f.verdicts)
        if (v.metric == a.metric && v.verdict == Verdict::incomparable)
          return fmt::format("incomparable at {}: {}", v.level_label,
                             v.reason.empty() ? std::string("an assumption broke") : v.reason);
      return "incomparable";
    case Verdict::inconclusive:
      return undecided_text(f, a, shown, at_largest);
  }
  return {};
}

// "per dose: 99Hz no effect beyond ±3.2%, 4000Hz +5.7% [+1.3%, +8.7%]".
std::string per_dose_text(const Plan& plan, const Findings& f, const MetricAnswer& a) {
  std::string out;
  for (std::size_t v : a.doses)
    out += fmt::format("{}{} {}", out.empty() ? "per dose: " : ", ", dose_name(plan, f.verdicts[v].level_index),
                       dose_bound_text(f, f.verdicts[v]));
  return out;
}


// "; scaled at 2 doses (multiplexed counts compared as estimates, --allow-multiplex)"
// when some verdict of the metric rests on scaled values, else "".
std::string scaled_note(const Findings& f, const MetricAnswer& a) {
  std::size_t scaled = 0;
  for (const LevelVerdict& v : f.verdicts) scaled += v.metric == a.metric && v.scaled;
  if (scaled == 0) return {};
  return fmt::format("; scaled at {} level{} (multiplexed counts compared as estimates, --allow-multiplex)", scaled,
                     scaled == 1 ? "" : "s");
}

// "task-clock within ±1% up to 1000Hz; 10000Hz is not (+20.7% [...]); per dose: ...", or "".
std::string safe_dose_text(const Plan& plan, const Findings& f, const MetricAnswer& a) {
  if (a.doses.size() < 2) return {};
  const std::string name = shown_name(f.metrics[a.metric]);
  if (!a.highest_safe && !a.lowest_unsafe) return name + ": none decided; " + per_dose_text(plan, f, a);
  const std::string& unit = f.metrics[a.metric].unit;
  std::string out;
  if (a.highest_safe) {
    const LevelVerdict& v = f.verdicts[*a.highest_safe];
    const auto c = std::find_if(v.comparisons.begin(), v.comparisons.end(),
                                [&](std::size_t i) { return f.comparisons[i].layout == Layout::held; });
    const std::string margin = c != v.comparisons.end() ? margin_text(f.comparisons[*c], unit) : format_margin(f.margin);
    out = fmt::format("{} within {} up to {}", name, margin, dose_name(plan, v.level_index));
  }
  if (a.lowest_unsafe) {
    const LevelVerdict& v = f.verdicts[*a.lowest_unsafe];
    const Comparison* c = nullptr;
    for (std::size_t i : v.comparisons)
      if (!c || std::fabs(f.comparisons[i].effect) > std::fabs(c->effect)) c = &f.comparisons[i];
    out += fmt::format("{}{} is not{}", out.empty() ? name + ": none shown safe; " : "; ",
                       dose_name(plan, v.level_index), c ? " (" + effect_text(*c, unit) + ")" : "");
  }
  return out + "; " + per_dose_text(plan, f, a);
}

}  // namespace

// The methods footer, shared by text and Markdown: every interval and test named.
std::vector<std::string> methods_lines(const Plan&, const Findings& f) {
  std::vector<std::string> ci, p, trend, difference;
  for (const Comparison& c : f.comparisons) {
    ci.push_back(c.ci_method);
    p.push_back(c.p_method);
    if (c.n > 0 && c.scale == Scale::difference) difference.push_back(metric_name(f, c.metric));
  }
  for (const Trend& t : f.trends) trend.push_back(t.method);
  ci = distinct(ci);
  p = distinct(p);
  trend = distinct(trend);
  difference = distinct(difference);
  std::vector<std::string> out;
  if (f.deterministic) {
    // Exact counts: no sampling error to estimate, so no interval, test or look.
    out.push_back("effect: x_level / x_reference − 1, from one run of each (exact simulated counts; (x + 1) / (y + 1) "
                  "where a count is 0)");
    out.push_back("intervals and p-values: none; the counts are deterministic");
    out.push_back("determinism: every further run of a configuration, and the A/A copy, must repeat its counts exactly");
    out.push_back(fmt::format("verdict: beyond {} under held layout is perturbed; within it, not perturbed",
                              format_margin(f.margin)));
    return out;
  }
  out.push_back("effect: the median of d over the blocks, d = ln(x_level) − ln(x_reference) per block "
                "(shown as a ratio − 1)");
  if (!difference.empty())
    out.push_back("small counts and coarse clocks: d = x_level − x_reference per run, for " + join(difference, ", "));
  if (!ci.empty()) out.push_back("intervals: " + join(ci, "; "));
  if (!p.empty()) out.push_back("p-values: " + join(p, "; "));
  out.push_back(fmt::format("multiplicity: Holm over the {} comparisons of the named counters and wall time "
                            "(levels × layouts × metrics: the answer), apart over the {} of the other metrics, "
                            "and the A/A control apart, α = {:g} each",
                            family_size(f, true), family_size(f, false), f.alpha));
  out.push_back(fmt::format("equivalence: the interval within {} (two one-sided tests at α = {:g} each)",
                            format_margin(f.margin), f.alpha));
  out.push_back(fmt::format("sequential: the data were looked at {} time{}; every look is valid on its own "
                            "(confidence sequences, always-valid p-values)",
                            f.looks_planned, f.looks_planned == 1 ? "" : "s"));
  out.push_back(fmt::format("drift: Pettitt's rank test on d, α = {:g} over the held and A/A comparisons",
                            kDriftAlpha));
  if (!trend.empty()) out.push_back("trend: " + join(trend, "; "));
  return out;
}

// The comparison that speaks for a dose: where the layout explains the move, the layout
// that moves most; else its held layout's, else its widest.
const Comparison* dose_comparison(const Findings& f, const LevelVerdict& v) {
  const Comparison* c = nullptr;
  for (std::size_t i : v.comparisons) {
    const Comparison& k = f.comparisons[i];
    if (v.verdict == Verdict::explained_by_layout) {
      if (!c || std::fabs(k.effect) > std::fabs(c->effect)) c = &k;
      continue;
    }
    if (k.layout == Layout::held) return &k;
    if (!c || k.bound > c->bound) c = &k;
  }
  return c;
}

// What holds at one dose: the effect with its interval where the dose moves the metric;
// undecided, the interval itself ("at least +2.0%, undecided (+4.3% [+2.0%, +6.6%])"
// where it excludes 0, else "undecided: +0.4% [-2.1%, +2.9%]"); not perturbed, the
// bound that holds ("no effect beyond ±0.7%").
std::string dose_bound_text(const Findings& f, const LevelVerdict& v) {
  const Comparison* c = dose_comparison(f, v);
  const std::string& unit = f.metrics[v.metric].unit;
  if (!c || c->n == 0) return "no pairs yet";
  switch (v.verdict) {
    case Verdict::perturbed:
    case Verdict::explained_by_layout: return effect_text(*c, unit);
    case Verdict::incomparable: return "incomparable";
    case Verdict::inconclusive: {
      const std::string least = least_text(*c, unit);
      return least.empty() ? "undecided: " + effect_text(*c, unit)
                           : least + ", undecided (" + effect_text(*c, unit) + ")";
    }
    case Verdict::not_perturbed: break;
  }
  const std::string bound = bound_text(*c, unit);
  return bound.empty() ? "no bound yet (" + effect_text(*c, unit) + ")" : "no effect beyond " + bound;
}

// What deciding the undecided would take: the most blocks any inconclusive verdict's
// comparisons would need at the noise seen, in seconds at the check's pace when known.
std::string to_decide_line(const Findings& f, const CheckContext& ctx) {
  std::size_t need = 0, undecided = 0;
  for (const LevelVerdict& v : f.verdicts) {
    if (v.verdict != Verdict::inconclusive) continue;
    ++undecided;
    for (std::size_t i : v.comparisons) need = std::max(need, f.comparisons[i].blocks_needed);
  }
  if (undecided == 0 || need == 0) return {};
  std::string out = fmt::format("to decide: the {} undecided verdict{} would need about {} measured blocks at the "
                                "noise seen",
                                undecided, undecided == 1 ? "" : "s", need);
  if (ctx.seconds_per_block > 0)
    out += fmt::format(" (≈ {:.0f} s of runs at this check's pace; --time-budget, --max-runs)",
                       ctx.seconds_per_block * static_cast<double>(need));
  return out;
}

std::vector<CostAtDose> profiler_cost_doses(const Plan& plan, const Findings& f, std::size_t metric) {
  std::vector<CostAtDose> out;
  if (metric >= f.metrics.size() || f.metrics[metric].judged || !f.metrics[metric].hidden.empty()) return out;
  for (std::size_t level : dose_axis_levels(plan)) {
    const Comparison* shown = nullptr;
    for (const Comparison& c : f.comparisons) {
      if (c.aa || c.metric != metric || c.level_index != level || c.n == 0) continue;
      if (!shown || (c.layout == Layout::held && shown->layout != Layout::held)) shown = &c;
    }
    if (shown) out.push_back({level, shown});
  }
  return out;
}

std::string profiler_cost_text(const Plan& plan, const Findings& f, std::size_t metric) {
  std::vector<std::string> parts;
  for (const CostAtDose& d : profiler_cost_doses(plan, f, metric))
    parts.push_back(dose_name(plan, d.level) + " " + effect_text(*d.comparison, f.metrics[metric].unit));
  return parts.empty() ? std::string() : shown_name(f.metrics[metric]) + ": " + join(parts, ", ");
}

namespace {
// One line for the summary: at the largest dose, the unjudged metrics whose interval
// excludes 0 (a cost shown) with their intervals, or "" without any unjudged metric.
std::string profiler_cost_summary(const Plan& plan, const Findings& f) {
  std::vector<std::string> shown;
  std::string at;
  bool any = false;
  for (std::size_t m = 0; m < f.metrics.size(); ++m) {
    const std::vector<CostAtDose> doses = profiler_cost_doses(plan, f, m);
    if (doses.empty()) continue;
    any = true;
    at = dose_name(plan, doses.back().level);
    const Comparison& c = *doses.back().comparison;
    if (!least_text(c, f.metrics[m].unit).empty()) shown.push_back(f.metrics[m].name + " " + effect_text(c, f.metrics[m].unit));
  }
  if (!any) return {};
  return fmt::format("profiler's cost (target + profiler, no verdict: the rusage holds the profiler's own work) at {}: "
                     "{}; per dose with --verbose or --json",
                     at, shown.empty() ? std::string("none shown") : join(shown, ", "));
}
}  // namespace

}  // namespace check_report_detail

std::string aa_line(const Findings& f) {
  namespace detail = check_report_detail;
  const std::vector<const Comparison*> aa = detail::aa_comparisons(f);
  if (aa.empty()) return "A/A control: no paired blocks yet";
  if (!f.aa.ok)
    return "A/A control: FAILED — " + (f.aa.reason.empty() ? std::string("a difference between identical runs")
                                                            : f.aa.reason);
  if (f.deterministic)
    return fmt::format("A/A control: baseline against its duplicate — within {} on every metric",
                       format_margin(f.margin));
  // Say what was tested: no significant difference (Holm over the A/A's metrics), the
  // resolution the A/A had on the ratio metrics, and equivalence only where shown.
  double resolution = 0;
  std::vector<std::string> within;
  std::size_t ratio = 0;
  for (const Comparison* c : aa) {
    if (c->n < 2 || c->scale != Scale::ratio) continue;
    ++ratio;
    resolution = std::max(resolution, c->bound);
    if (c->equivalent) within.push_back(detail::metric_name(f, c->metric));
  }
  std::string out = fmt::format("A/A control: no significant difference on {} metrics", aa.size());
  if (ratio > 0 && std::isfinite(resolution)) out += fmt::format("; resolution ±{:.1f}%", 100 * resolution);
  if (within.size() == ratio && ratio > 0) out += fmt::format(", within {} on all", format_margin(f.margin));
  else if (!within.empty())
    out += fmt::format(", within {} on {}", format_margin(f.margin), detail::join(within, ", "));
  return out;
}

std::vector<std::string> summary_lines(const Plan& plan, const Findings& f, const CheckContext& ctx) {
  namespace detail = check_report_detail;
  const CheckSummary s = summarize_check(plan, f);
  std::vector<std::string> out;
  if (!s.any_verdict) {
    out.push_back(s.single_level
                      ? "answer: no dose to compare — the check has a single level; give two or more counters or doses"
                      : "answer: none yet (no measured block has completed)");
    return out;
  }
  std::size_t name_w = 0;
  for (const MetricAnswer& a : s.metrics)
    if (a.asked || a.finding) name_w = std::max(name_w, detail::display_width(detail::shown_name(f.metrics[a.metric])));
  std::vector<std::string> quiet, safe;
  for (const MetricAnswer& a : s.metrics) {
    if (!a.asked && !a.finding) {
      quiet.push_back(detail::shown_name(f.metrics[a.metric]));
      continue;
    }
    out.push_back(detail::pad(detail::shown_name(f.metrics[a.metric]), name_w) + "  " +
                  detail::metric_answer_text(plan, f, a) + detail::scaled_note(f, a));
    if (std::string line = detail::safe_dose_text(plan, f, a); !line.empty()) safe.push_back(std::move(line));
  }
  if (!quiet.empty())
    out.push_back(fmt::format("{}: nothing to act on (not perturbed, or undecided); shown with --verbose or --json",
                              detail::join(quiet, ", ")));
  for (const std::string& line : safe) out.push_back("safe dose: " + line);
  if (std::string cost = detail::profiler_cost_summary(plan, f); !cost.empty()) out.push_back(std::move(cost));
  // A metric whose runs are not the target's own (max-rss under obscheck's peak): why, no verdict.
  for (const MetricInfo& m : f.metrics)
    if (!m.hidden.empty()) out.push_back(fmt::format("{}: {}; no verdict", m.name, m.hidden));
  std::string overall = fmt::format("overall: {}", verdict_text(s.overall));
  if (s.overall == Verdict::inconclusive) overall += "; more runs would decide what is undecided";
  if (ctx.exit_code >= 0) overall += fmt::format("; exit {}", ctx.exit_code);
  out.push_back(overall);
  return out;
}

}  // namespace obscheck
