#include "report/check_report.h"

#include "analysis/summary.h"

#include <fmt/core.h>

#include <algorithm>
#include <cmath>
#include <optional>
#include <set>
#include <sstream>

#include "analysis/check.h"
#include "host/host_info.h"
#include "report/doctor_report.h"
#include "report/findings_text.h"
#include "report/measure_report.h"
#include "report/display_unit.h"
#include "report/textplot.h"

namespace obscheck {
namespace {

using report_text::cell;
using report_text::cell_text;
using report_text::config_id;
using report_text::csv_field;
using report_text::dose_axis;
using report_text::level_label;
using report_text::metric_name;
using report_text::num;
using report_text::on_dose_axis;
using report_text::counter_running;
using report_text::counter_validity_of;
using report_text::kValidityHeading;
using report_text::running_text;
using report_text::validity_state;

// Level labels grow with the counter list ("4[cycles,instructions,l1d,llc]"); past this
// width a label gets a line of its own so the table stays within ~120 columns.
constexpr std::size_t kLevelColumnMax = 28;
// A terminal's customary width; the verdict column moves onto the reason line when a
// row would pass it (three layouts with two-decimal effects do).
constexpr std::size_t kTableWidth = 120;
// Enough to see which configuration fails and how; the JSON lists every run.
constexpr std::size_t kIncomparableListed = 20;
// About a dozen lines resolve a CI bar against the ±ε guides without dominating the page.
constexpr std::size_t kPlotRows = 12;

struct Palette {
  std::string bold, dim, red, yellow, green, magenta, reset;
  explicit Palette(bool color) {
    if (!color) return;
    bold = "\x1b[1m";
    dim = "\x1b[2m";
    red = "\x1b[31m";
    yellow = "\x1b[33m";
    green = "\x1b[32m";
    magenta = "\x1b[35m";
    reset = "\x1b[0m";
  }
  const std::string& of(Verdict v) const {
    switch (v) {
      case Verdict::perturbed: return red;
      case Verdict::explained_by_layout: return yellow;
      case Verdict::not_perturbed: return green;
      case Verdict::incomparable: return magenta;
      case Verdict::inconclusive: return dim;
    }
    return dim;
  }
  std::string paint(const std::string& colour, const std::string& text) const {
    return colour.empty() ? text : colour + text + reset;
  }
};

// Terminal columns of UTF-8 text ("±", "ε", "×" are one column each), ANSI escapes skipped.
std::size_t display_width(const std::string& s) {
  std::size_t w = 0;
  for (std::size_t i = 0; i < s.size(); ++i) {
    if (s[i] == '\x1b') {
      while (i < s.size() && s[i] != 'm') ++i;
      continue;
    }
    if ((static_cast<unsigned char>(s[i]) & 0xC0) != 0x80) ++w;
  }
  return w;
}

std::string pad(const std::string& s, std::size_t width) {
  const std::size_t w = display_width(s);
  return w >= width ? s : s + std::string(width - w, ' ');
}


// "= 0.0123", "< 0.0001", "= n/a": the relation and the value, ready after "p".
std::string p_clause(double p) {
  if (!std::isfinite(p)) return "= n/a";
  if (p < 1e-4) return "< 0.0001";
  return fmt::format("= {:.4f}", p);
}

std::string shell_word(const std::string& a) {
  if (!a.empty() && a.find_first_of(" \t\n'\"\\$`;&|<>()*?!#~") == std::string::npos) return a;
  std::string out = "'";
  for (char c : a) out += c == '\'' ? std::string("'\\''") : std::string(1, c);
  return out + "'";
}

std::string join(const std::vector<std::string>& items, const std::string& sep) {
  std::string out;
  for (std::size_t i = 0; i < items.size(); ++i) out += (i ? sep : "") + items[i];
  return out;
}

std::string command_line(const CheckContext& ctx) {
  std::vector<std::string> words;
  for (const auto& a : ctx.argv) words.push_back(shell_word(a));
  return join(words, " ");
}

std::vector<const LevelVerdict*> verdicts_of(const Findings& f, std::size_t metric) {
  std::vector<const LevelVerdict*> out;
  for (const LevelVerdict& v : f.verdicts)
    if (v.metric == metric) out.push_back(&v);
  return out;
}

std::optional<Verdict> metric_verdict(const Findings& f, std::size_t metric) {
  if (metric < f.metric_verdicts.size()) return f.metric_verdicts[metric];
  std::optional<Verdict> worst;
  for (const LevelVerdict* v : verdicts_of(f, metric))
    if (!worst || verdict_severity(v->verdict) > verdict_severity(*worst)) worst = v->verdict;
  return worst;
}

const LevelVerdict* verdict_for(const Findings& f, const Comparison& c) {
  if (c.aa) return nullptr;
  for (const LevelVerdict& v : f.verdicts)
    if (v.metric == c.metric && v.level_index == c.level_index) return &v;
  return nullptr;
}

// The name a reader sees: with what it describes when that is not the target alone.
std::string shown_name(const MetricInfo& m) { return m.scope.empty() ? m.name : m.name + " (" + m.scope + ")"; }

std::vector<const Comparison*> aa_comparisons(const Findings& f) {
  std::vector<const Comparison*> out;
  for (const Comparison& c : f.comparisons)
    if (c.aa) out.push_back(&c);
  return out;
}

// Comparisons that carry a p-value into the Holm family: not the A/A control, not a
// configuration without any paired block.
std::size_t family_size(const Findings& f, bool primary) {
  return static_cast<std::size_t>(std::count_if(f.comparisons.begin(), f.comparisons.end(), [&](const Comparison& c) {
    return !c.aa && c.n > 0 && c.metric < f.metrics.size() && f.metrics[c.metric].primary == primary;
  }));
}

}  // namespace

std::string aa_line(const Findings& f) {
  const std::vector<const Comparison*> aa = aa_comparisons(f);
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
    if (c->equivalent) within.push_back(metric_name(f, c->metric));
  }
  std::string out = fmt::format("A/A control: no significant difference on {} metrics", aa.size());
  if (ratio > 0 && std::isfinite(resolution)) out += fmt::format("; resolution ±{:.1f}%", 100 * resolution);
  if (within.size() == ratio && ratio > 0) out += fmt::format(", within {} on all", format_margin(f.margin));
  else if (!within.empty()) out += fmt::format(", within {} on {}", format_margin(f.margin), join(within, ", "));
  return out;
}

namespace {

std::vector<std::string> distinct(std::vector<std::string> items) {
  std::vector<std::string> out;
  for (auto& s : items)
    if (!s.empty() && std::find(out.begin(), out.end(), s) == out.end()) out.push_back(std::move(s));
  return out;
}

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

// ---- text ------------------------------------------------------------------------

std::string text_header(const Plan& plan, const Findings& f, const CheckContext& ctx, const Palette& pal) {
  std::string out = fmt::format("{}: {}\n", pal.paint(pal.bold, "obscheck"), command_line(ctx));
  out += fmt::format("  mode {}; {} measured blocks × {} configurations = {} runs; seed {}; margin ε = {}\n",
                     ctx.mode.empty() ? "external" : ctx.mode, f.measured_blocks, plan.block_size(),
                     f.measured_blocks * plan.block_size(), ctx.seed, format_margin(f.margin));
  out += fmt::format("  journal {}; {} runs analysed, {} warm-up runs dropped; {} of {} planned runs done{}\n",
                     ctx.journal_path.empty() ? "(none)" : ctx.journal_path, f.runs, f.warmup_runs_dropped,
                     ctx.runs_done, ctx.runs_planned, ctx.complete ? "" : pal.paint(pal.yellow, " (incomplete)"));
  for (const std::string& line : ctx.backend) out += "  " + line + "\n";
  return out;
}

// `line` indented by `indent`, broken at spaces so that no piece passes `width`
// columns. A line that starts with a name and two spaces ("task-clock  not perturbed:
// ...") continues under its text; any other under its fourth column.
std::string wrap_line(const std::string& line, std::size_t indent, std::size_t width) {
  const std::size_t gap = line.find("  ");
  // A name is shorter than this: the longest, "invol-ctx-switches(ru) (target + profiler)", has 42.
  constexpr std::size_t kLongestName = 48;
  const std::size_t head_end =
      gap != std::string::npos && gap < kLongestName ? line.find_first_not_of(' ', gap) : 0;
  const std::string head = line.substr(0, head_end == std::string::npos ? line.size() : head_end);
  const std::size_t hang = indent + (head_end > 0 ? display_width(head) : 4);
  std::string out, piece = std::string(indent, ' ') + head;
  bool empty = true;  // no word on this piece yet
  std::istringstream words(line.substr(head.size()));
  for (std::string word; words >> word;) {
    if (!empty && display_width(piece) + 1 + display_width(word) > width) {
      out += piece + "\n";
      piece = std::string(hang, ' ');
      empty = true;
    }
    piece += (empty ? "" : " ") + word;
    empty = false;
  }
  return out + piece + "\n";
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

// "undecided at 2 of 3 doses: no effect beyond ±0.7% (...); about 40 blocks would decide".
std::string undecided_text(const Findings& f, const MetricAnswer& a, const Comparison* shown,
                           const std::string& at_largest) {
  const std::size_t n = a.doses.size();
  std::string out = n - a.decided == n ? "undecided" : fmt::format("undecided at {} of {} doses", n - a.decided, n);
  if (shown) {
    const std::string bound = bound_text(*shown, f.metrics[a.metric].unit);
    out += (bound.empty() ? "" : ": no effect beyond " + bound) + at_largest;
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
        return fmt::format("not perturbed: equal in all {} blocks at {}{}", shown->equal_blocks,
                           a.doses.size() == 1 ? "the dose" : "every dose", at_largest);
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

// What holds at one dose: the effect with its interval where the dose moves the metric,
// else the bound that holds ("no effect beyond ±3.2%").
std::string dose_bound_text(const Findings& f, const LevelVerdict& v) {
  const Comparison* c = dose_comparison(f, v);
  const std::string& unit = f.metrics[v.metric].unit;
  if (!c || c->n == 0) return "no pairs yet";
  switch (v.verdict) {
    case Verdict::perturbed:
    case Verdict::explained_by_layout: return effect_text(*c, unit);
    case Verdict::incomparable: return "incomparable";
    case Verdict::not_perturbed:
    case Verdict::inconclusive: break;
  }
  const std::string bound = bound_text(*c, unit);
  return bound.empty() ? "no bound yet (" + effect_text(*c, unit) + ")" : "no effect beyond " + bound;
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

std::vector<std::string> summary_lines(const Plan& plan, const Findings& f, const CheckContext& ctx) {
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
    if (a.asked || a.finding) name_w = std::max(name_w, display_width(shown_name(f.metrics[a.metric])));
  std::vector<std::string> quiet, safe;
  for (const MetricAnswer& a : s.metrics) {
    if (!a.asked && !a.finding) {
      quiet.push_back(shown_name(f.metrics[a.metric]));
      continue;
    }
    out.push_back(pad(shown_name(f.metrics[a.metric]), name_w) + "  " + metric_answer_text(plan, f, a) + scaled_note(f, a));
    if (std::string line = safe_dose_text(plan, f, a); !line.empty()) safe.push_back(std::move(line));
  }
  if (!quiet.empty())
    out.push_back(fmt::format("{}: nothing to act on (not perturbed, or undecided); shown with --verbose or --json",
                              join(quiet, ", ")));
  for (const std::string& line : safe) out.push_back("safe dose: " + line);
  std::string overall = fmt::format("overall: {}", verdict_text(s.overall));
  if (s.overall == Verdict::inconclusive) overall += "; more runs would decide what is undecided";
  if (ctx.exit_code >= 0) overall += fmt::format("; exit {}", ctx.exit_code);
  out.push_back(overall);
  return out;
}

namespace {

// A verdict as the table shows it: "scaled" when decided on multiplexed counts.
std::string verdict_label(const LevelVerdict& v) {
  return std::string(verdict_text(v.verdict)) + (v.scaled ? ", scaled" : "");
}

std::string verdict_table(const Plan& plan, const Findings& f, const Palette& pal, bool verbose) {
  if (f.verdicts.empty()) return "verdicts: none yet (no measured block has completed)\n";
  const auto& layouts = plan.spec.layouts;
  std::size_t level_w = std::string("level").size();
  std::vector<std::size_t> col_w;
  for (Layout l : layouts) col_w.push_back(to_string(l).size());
  for (const LevelVerdict& v : f.verdicts) {
    level_w = std::max(level_w, std::min(v.level_label.size(), kLevelColumnMax));
    for (std::size_t k = 0; k < layouts.size(); ++k)
      col_w[k] = std::max(col_w[k], display_width(cell_text(f, cell(f, v, layouts[k]))));
  }
  std::string out = fmt::format("verdicts: effect of each level against its reference, {} (margin ε = {})\n",
                                f.deterministic ? "exact" : "with its CI", format_margin(f.margin));
  std::string head = "    " + pad("level", level_w);
  for (std::size_t k = 0; k < layouts.size(); ++k) head += "  " + pad(std::string(to_string(layouts[k])), col_w[k]);
  std::size_t verdict_w = 0;
  for (const LevelVerdict& v : f.verdicts) verdict_w = std::max(verdict_w, display_width(verdict_label(v)));
  const bool verdict_column = display_width(head) + 2 + verdict_w <= kTableWidth;
  if (verdict_column) head += "  verdict";
  while (head.back() == ' ') head.pop_back();
  out += pal.paint(pal.dim, head) + "\n";
  for (std::size_t m = 0; m < f.metrics.size(); ++m) {
    const auto rows = verdicts_of(f, m);
    if (rows.empty()) continue;
    const Verdict worst = *metric_verdict(f, m);
    if (!verbose && f.metrics[m].driver && f.metrics[m].name != "wall-time" &&
        (worst == Verdict::not_perturbed || worst == Verdict::inconclusive))
      continue;
    out += fmt::format("  {} ({}): {}\n", pal.paint(pal.bold, shown_name(f.metrics[m])), f.metrics[m].unit,
                       pal.paint(pal.of(worst), std::string(verdict_text(worst))));
    for (const LevelVerdict* v : rows) {
      std::string line = "    ";
      if (v->level_label.size() > level_w) {
        out += "    " + v->level_label + "\n";
        line += std::string(level_w, ' ');
      } else {
        line += pad(v->level_label, level_w);
      }
      for (std::size_t k = 0; k < layouts.size(); ++k) line += "  " + pad(cell_text(f, cell(f, *v, layouts[k])), col_w[k]);
      const std::string verdict = pal.paint(pal.of(v->verdict), verdict_label(*v));
      if (verdict_column) {
        line += "  " + verdict;
        while (!line.empty() && line.back() == ' ') line.pop_back();
        out += line + "\n";
        if (!v->reason.empty()) out += "      " + pal.paint(pal.dim, v->reason) + "\n";
      } else {
        while (!line.empty() && line.back() == ' ') line.pop_back();
        out += line + "\n      " + verdict + (v->reason.empty() ? "" : pal.paint(pal.dim, " — " + v->reason)) + "\n";
      }
    }
  }
  return out;
}

std::string aa_section(const Plan& plan, const Findings& f, const Palette& pal) {
  const auto aa = aa_comparisons(f);
  std::string out = (f.aa.ok ? aa_line(f) : pal.paint(pal.red, aa_line(f))) + "\n";
  std::size_t name_w = 0, cell_w = 0;
  for (const Comparison* c : aa) {
    name_w = std::max(name_w, display_width(metric_name(f, c->metric)));
    cell_w = std::max(cell_w, display_width(cell_text(f, c)));
  }
  // Every A/A comparison is normally the same pair of configurations: name it once.
  const bool one_pair = std::all_of(aa.begin(), aa.end(), [&](const Comparison* c) {
    return c->config == aa.front()->config && c->baseline == aa.front()->baseline && c->n == aa.front()->n;
  });
  if (!aa.empty() && one_pair)
    out += pal.paint(pal.dim, fmt::format("    {} against {}, {} paired blocks", config_id(plan, aa.front()->config),
                                          config_id(plan, aa.front()->baseline), aa.front()->n)) + "\n";
  for (const Comparison* c : aa) {
    std::string line = fmt::format("    {}  {}", pad(metric_name(f, c->metric), name_w), pad(cell_text(f, c), cell_w));
    if (!one_pair)
      line += fmt::format("  ({} against {}, {} paired blocks)", config_id(plan, c->config),
                          config_id(plan, c->baseline), c->n);
    while (line.back() == ' ') line.pop_back();
    out += line + "\n";
  }
  return out;
}

std::string incomparable_section(const Plan& plan, const Findings& f, const Palette& pal) {
  if (f.incomparable.empty()) return "";
  std::string out = pal.paint(pal.magenta, fmt::format("incomparable runs ({}):", f.incomparable.size())) + "\n";
  const std::size_t shown = std::min(f.incomparable.size(), kIncomparableListed);
  for (std::size_t i = 0; i < shown; ++i) {
    const IncomparableRun& r = f.incomparable[i];
    out += fmt::format("  run {} ({}): {}\n", r.run_index, config_id(plan, r.config), r.why);
  }
  if (shown < f.incomparable.size())
    out += fmt::format("  … and {} more (--json lists every run)\n", f.incomparable.size() - shown);
  return out;
}

// One configuration's line of the counter validity section.
std::string validity_config_line(const Plan& plan, const CounterRunning& c, std::size_t id_w) {
  std::string line = fmt::format("    {}  {:>4} run{}  running {:>4} / {:>4}  {}", pad(config_id(plan, c.config), id_w),
                                 c.runs, c.runs == 1 ? " " : "s", running_text(c.running_min),
                                 running_text(c.running_median), validity_state(c));
  while (!line.empty() && line.back() == ' ') line.pop_back();
  return line + "\n";
}

// Per counter and configuration: the running fraction (min / median over the runs),
// scaling, faults, and whether the A/A runs gave one exact count.
std::string counter_validity_section(const Plan& plan, const Findings& f) {
  if (f.counters.empty()) return "";
  std::size_t id_w = 0;
  for (const CounterValidity& v : f.counters)
    for (const CounterRunning& c : v.configs) id_w = std::max(id_w, display_width(config_id(plan, c.config)));
  std::string out = std::string("counters: ") + kValidityHeading + "\n";
  for (const CounterValidity& v : f.counters) {
    out += fmt::format("  {}: {}\n", metric_name(f, v.metric), v.determinism_text);
    for (const CounterRunning& c : v.configs) out += validity_config_line(plan, c, id_w);
  }
  return out;
}

char layout_marker(Layout l) {
  switch (l) {
    case Layout::natural: return 'n';
    case Layout::held: return 'h';
    case Layout::sham: return 's';
  }
  return '*';
}

// The plot's heading: the metric, its unit, each layout's marker and the margin guides.
std::string plot_heading(const Plan& plan, const Findings& f, std::size_t m, const Palette& pal,
                         const Comparison& first) {
  std::vector<std::string> legend;
  for (Layout l : plan.spec.layouts) legend.push_back(fmt::format("{} {}", layout_marker(l), to_string(l)));
  const MetricInfo& info = f.metrics[m];
  const std::string guide = first.scale == Scale::ratio ? format_margin(f.margin) : margin_text(first, info.unit);
  const std::string per_run = first.scale == Scale::ratio ? "" : ", per run";
  return fmt::format("{} ({}{}): effect vs dose — {}; | CI; . {}\n", pal.paint(pal.bold, info.name), info.unit,
                     per_run, join(legend, ", "), guide);
}

// The text plot of effect against dose: one series per layout, one slot per level on the axis.
// On the metric's effect axis (report/display_unit.h): percent, or the unit per run of a
// difference-scale metric, whose guides are then the first comparison's margin.
TextPlot dose_plot(const Plan& plan, const Findings& f, const std::vector<std::size_t>& axis,
                   const std::vector<const Comparison*>& cs) {
  const auto& layouts = plan.spec.layouts;
  const EffectAxis ea = effect_axis(cs, f.metrics[cs.front()->metric].unit);
  const double guide = ea.scale == Scale::ratio ? f.margin : cs.front()->margin;
  TextPlot plot;
  plot.rows = kPlotRows;
  plot.unit = ea.unit;
  for (Layout l : layouts) plot.series.push_back({layout_marker(l), std::string(to_string(l))});
  plot.guides = {guide * ea.factor, -guide * ea.factor};
  for (std::size_t li : axis) plot.slots.push_back(std::to_string(plan.spec.levels[li].dose));
  for (const Comparison* c : cs) {
    const auto slot = std::find(axis.begin(), axis.end(), c->level_index);
    const auto series = std::find(layouts.begin(), layouts.end(), c->layout);
    if (slot == axis.end() || series == layouts.end() || c->n == 0 || c->scale != ea.scale) continue;
    plot.points.push_back({static_cast<std::size_t>(slot - axis.begin()),
                           static_cast<std::size_t>(series - layouts.begin()), c->effect * ea.factor,
                           c->ci_lo * ea.factor, c->ci_hi * ea.factor});
  }
  return plot;
}

// The line under the plot: what each dose is, and the reference level.
std::string dose_axis_line(const Plan& plan, const std::vector<std::size_t>& axis, std::size_t ref_level) {
  std::vector<std::string> axis_names;
  for (std::size_t li : axis) {
    const Level& level = plan.spec.levels[li];
    axis_names.push_back(fmt::format("{} = {}", level.dose, level.label));
  }
  return fmt::format("  dose {}; reference (0 by definition): {}\n", join(axis_names, ", "),
                     level_label(plan, ref_level));
}

// Levels off the axis (a counter alone): one line each, every layout's effect.
std::string off_axis_lines(const Plan& plan, const Findings& f, const std::vector<std::size_t>& axis,
                           const std::vector<const Comparison*>& cs) {
  std::vector<std::size_t> off_axis;
  for (const Comparison* c : cs)
    if (std::find(axis.begin(), axis.end(), c->level_index) == axis.end() &&
        std::find(off_axis.begin(), off_axis.end(), c->level_index) == off_axis.end())
      off_axis.push_back(c->level_index);
  std::string out;
  for (std::size_t li : off_axis) {
    std::vector<std::string> parts;
    for (Layout l : plan.spec.layouts)
      for (const Comparison* c : cs)
        if (c->level_index == li && c->layout == l) parts.push_back(fmt::format("{} {}", to_string(l), cell_text(f, c)));
    out += fmt::format("  alone: {}: {}\n", level_label(plan, li), join(parts, ", "));
  }
  return out;
}

// One line per layout: the medians of the reference and of each level, in the metric's unit.
std::string median_lines(const Plan& plan, const std::vector<const Comparison*>& cs, std::size_t ref_level,
                         const std::string& unit) {
  std::string out;
  for (Layout l : plan.spec.layouts) {
    std::vector<std::string> parts;
    const Comparison* first = nullptr;
    for (const Comparison* c : cs)
      if (c->layout == l && c->n > 0) {
        if (!first) {
          first = c;
          parts.push_back(
              fmt::format("{} {} (reference)", level_label(plan, ref_level), format_value(c->median_baseline, unit)));
        }
        parts.push_back(fmt::format("{} {}", c->level_label, format_value(c->median_config, unit)));
      }
    if (first) out += fmt::format("  medians, {}: {}\n", to_string(l), join(parts, "; "));
  }
  return out;
}

// One line per trend test on metric `m`: the statistic and both one-sided p-values.
std::string trend_lines(const Findings& f, std::size_t m) {
  std::string out;
  for (const Trend& t : f.trends)
    if (t.metric == m)
      out += fmt::format("  trend with dose, {}: L = {:g}, p(increasing) {}, p(decreasing) {} over {} levels × {} "
                         "blocks\n",
                         to_string(t.layout), t.L, p_clause(t.p_value), p_clause(t.p_decreasing), t.levels, t.blocks);
  return out;
}

std::string metric_plot(const Plan& plan, const Findings& f, std::size_t m, const Palette& pal) {
  std::vector<const Comparison*> cs;
  for (const Comparison& c : f.comparisons)
    if (!c.aa && c.metric == m) cs.push_back(&c);
  if (cs.empty()) return "";
  const std::vector<std::size_t> axis = dose_axis(plan);
  std::string out = plot_heading(plan, f, m, pal, *cs.front());
  out += render_plot(dose_plot(plan, f, axis, cs), "  ");
  const std::size_t ref_level = cs.front()->baseline < plan.configs.size()
                                    ? plan.configs[cs.front()->baseline].level_index
                                    : plan.spec.levels.size();
  out += dose_axis_line(plan, axis, ref_level);
  out += off_axis_lines(plan, f, axis, cs);
  out += median_lines(plan, cs, ref_level, f.metrics[m].unit);
  out += trend_lines(f, m);
  return out;
}

std::string host_section(const CheckContext& ctx, const Palette& pal) {
  std::string out = "host\n";
  if (!ctx.host.is_object() || ctx.host.empty()) {
    out += "  host: not recorded\n";
  } else {
    try {
      HostInfo host;
      from_json(ctx.host, host);
      out += host_summary_text(host);
    } catch (const nlohmann::json::exception&) {
      out += fmt::format("  host: {} (the recorded host description is malformed)\n",
                         ctx.host.value("hostname", std::string("unknown")));
    }
  }
  out += fmt::format("  target environment: {} bytes\n", format_value(static_cast<double>(ctx.env_bytes), "count"));
  std::string warn;
  for (const nlohmann::json& d : ctx.doctor) {
    const std::string severity = d.value("severity", std::string("info"));
    if (severity == "info") continue;
    const std::string fix = d.value("fix", std::string());
    warn += fmt::format("  {} {}: {}{}\n", pal.paint(severity == "blocking" ? pal.red : pal.yellow, pad(severity, 8)),
                        d.value("id", std::string("?")), d.value("what", std::string()),
                        fix.empty() ? "" : "; fix: " + fix);
  }
  if (!warn.empty()) out += "doctor warnings:\n" + warn;
  return out;
}

// ---- JSON ------------------------------------------------------------------------

// The level and dose of the verdict at `index`, or null when there is none.
nlohmann::json dose_json(const Findings& f, const std::optional<std::size_t>& index) {
  if (!index) return nullptr;
  const LevelVerdict& lv = f.verdicts[*index];
  return {{"level", lv.level_label}, {"dose", lv.dose}};
}

// One entry per dose of a metric's answer, as numbers: the verdict, the comparison that
// speaks for it (dose_comparison) with its effect and interval on its scale, and the
// bound that holds (null while unbounded).
nlohmann::json per_dose_json(const Findings& f, const MetricAnswer& a) {
  using nlohmann::json;
  json out = json::array();
  for (std::size_t i : a.doses) {
    const LevelVerdict& v = f.verdicts[i];
    const Comparison* c = dose_comparison(f, v);
    json d = {{"level", v.level_label}, {"dose", v.dose}, {"verdict", std::string(verdict_key(v.verdict))},
              {"text", dose_bound_text(f, v)}};
    if (c) {
      d["layout"] = std::string(to_string(c->layout));
      d["scale"] = std::string(to_string(c->scale));
      d["blocks"] = c->n;
      d["effect"] = num(c->effect);
      d["ci"] = {num(c->ci_lo), num(c->ci_hi)};
      d["ci_level"] = c->level;
      d["bound"] = num(c->bound);
      d["margin"] = num(c->margin);
    }
    out.push_back(std::move(d));
  }
  return out;
}

// The "answer" object: the overall verdict, the exit code, the summary lines and one entry per metric.
nlohmann::json answer_json(const Plan& plan, const Findings& f, const CheckContext& ctx) {
  using nlohmann::json;
  const CheckSummary sum = summarize_check(plan, f);
  json metrics = json::array();
  for (const MetricAnswer& a : sum.metrics)
    metrics.push_back({{"metric", f.metrics[a.metric].name},
                       {"asked", a.asked},
                       {"verdict", sum.any_verdict ? json(std::string(verdict_key(a.verdict))) : json(nullptr)},
                       {"finding", a.finding},
                       {"doses", a.doses.size()},
                       {"decided", a.decided},
                       {"highest_safe_dose", dose_json(f, a.highest_safe)},
                       {"lowest_unsafe_dose", dose_json(f, a.lowest_unsafe)},
                       {"per_dose", per_dose_json(f, a)}});
  return {{"overall", sum.any_verdict ? json(std::string(verdict_key(sum.overall))) : json(nullptr)},
          {"exit_code", ctx.exit_code >= 0 ? json(ctx.exit_code) : json(nullptr)},
          {"lines", summary_lines(plan, f, ctx)},
          {"metrics", metrics}};
}

nlohmann::json context_fields(const Findings& f, const CheckContext& ctx);

nlohmann::json observations_json(const std::vector<Observation>& all) {
  nlohmann::json out = nlohmann::json::array();
  for (const Observation& o : all) out.push_back(observation_json(o));
  return out;
}

// The "context" object: how the check was started, where it was recorded and on what host.
nlohmann::json context_json(const Findings& f, const CheckContext& ctx) {
  nlohmann::json j = context_fields(f, ctx);
  if (!ctx.sweep.empty()) j["sweep"] = ctx.sweep;  // absent from journals that record no stretches
  return j;
}

nlohmann::json context_fields(const Findings& f, const CheckContext& ctx) {
  return {{"argv", ctx.argv},
          {"mode", ctx.mode},
          {"seed", ctx.seed},
          {"journal", ctx.journal_path},
          {"env_bytes", ctx.env_bytes},
          {"complete", ctx.complete},
          {"runs_planned", ctx.runs_planned},
          {"seconds_per_block", ctx.seconds_per_block},
          {"runs_done", ctx.runs_done},
          {"warnings", ctx.warnings},
          {"observations", observations_json(ctx.observations)},
          {"backend", ctx.backend.empty() ? "native" : "sim"},
          {"backend_notes", ctx.backend},
          {"deterministic", f.deterministic},
          {"host", ctx.host},
          {"doctor", ctx.doctor}};
}

// One entry of the plan's "configs" array: the configuration's level, layout and counters.
nlohmann::json config_json(const Plan& plan, const Configuration& c) {
  std::vector<std::string> programmed, announced;
  for (std::size_t i : c.level.programmed) programmed.push_back(i < plan.spec.counters.size() ? plan.spec.counters[i] : "");
  for (std::size_t i : c.level.announced) announced.push_back(i < plan.spec.counters.size() ? plan.spec.counters[i] : "");
  return {{"index", c.index},
          {"id", c.id},
          {"level_index", c.level_index},
          {"level", level_label(plan, c.level_index)},
          {"dose", c.level.dose},
          {"layout", to_string(c.layout)},
          {"aa_duplicate", c.aa_duplicate},
          {"programmed", programmed},
          {"announced", announced}};
}

// The "plan" object: the observer, counters, layouts, block counts and every configuration.
nlohmann::json plan_json(const Plan& plan) {
  using nlohmann::json;
  json configs = json::array();
  for (const Configuration& c : plan.configs) configs.push_back(config_json(plan, c));
  std::vector<std::string> layouts;
  for (Layout l : plan.spec.layouts) layouts.emplace_back(to_string(l));
  return {{"observer", std::string(plan.spec.name())}, {"counters", plan.spec.counters}, {"layouts", layouts},
          {"block_size", plan.block_size()}, {"baselines", plan.baselines}, {"aa", plan.aa},
          {"looks", plan_looks(plan)},        {"warmup_blocks", plan.spec.warmup_blocks},
          {"max_blocks", plan.spec.max_blocks},
          {"fixed_blocks", plan.spec.fixed_blocks ? json(*plan.spec.fixed_blocks) : json(nullptr)},
          {"configs", configs}};
}

// The "summary" object: runs and blocks analysed, the margin, α and the looks planned.
nlohmann::json summary_json(const Findings& f) {
  return {{"runs", f.runs},
          {"measured_blocks", f.measured_blocks},
          {"warmup_runs_dropped", f.warmup_runs_dropped},
          {"margin", num(f.margin)},
          {"alpha", num(f.alpha)},
          {"looks_planned", f.looks_planned},
          {"decisive", f.decisive},
          {"all_decided", f.all_decided}};
}

// The "metrics" array: each metric's name, unit, source and worst verdict.
nlohmann::json metrics_json(const Findings& f) {
  using nlohmann::json;
  json metrics = json::array();
  for (std::size_t m = 0; m < f.metrics.size(); ++m) {
    const MetricInfo& mi = f.metrics[m];
    const auto v = metric_verdict(f, m);
    metrics.push_back({{"index", m},
                       {"name", mi.name},
                       {"unit", mi.unit},
                       {"source", mi.driver ? "driver" : "counter"},
                       {"counter", mi.counter ? json(*mi.counter) : json(nullptr)},
                       {"primary", mi.primary},
                       {"verdict", v ? json(verdict_key(*v)) : json(nullptr)},
                       {"verdict_text", v ? json(verdict_text(*v)) : json(nullptr)}});
    if (!mi.scope.empty()) metrics.back()["scope"] = mi.scope;
  }
  return metrics;
}

// One entry of the "comparisons" array: the pair compared, the effect, its interval and tests.
nlohmann::json comparison_json(const Plan& plan, const Findings& f, std::size_t i) {
  const Comparison& c = f.comparisons[i];
  return {{"index", i},
          {"metric", c.metric},
          {"metric_name", metric_name(f, c.metric)},
          {"config", c.config},
          {"config_id", config_id(plan, c.config)},
          {"baseline", c.baseline},
          {"baseline_id", config_id(plan, c.baseline)},
          {"level_index", c.level_index},
          {"level", c.level_label},
          {"dose", c.dose},
          {"layout", to_string(c.layout)},
          {"aa", c.aa},
          {"n", c.n},
          {"effect", num(c.effect)},
          {"ci", {{"lo", num(c.ci_lo)}, {"hi", num(c.ci_hi)}, {"method", c.ci_method}}},
          {"p", num(c.p_value)},
          {"p_holm", num(c.p_holm)},
          {"p_method", c.p_method},
          {"significant", c.significant},
          {"equivalent", c.equivalent},
          {"outside_margin", c.outside_margin},
          {"median_config", num(c.median_config)},
          {"median_baseline", num(c.median_baseline)},
          {"scale", std::string(to_string(c.scale))},
          {"margin", num(c.margin)},
          {"coverage", c.level},
          {"bound", num(c.bound)},
          {"blocks_needed", c.blocks_needed},
          {"drift", c.drift},
          {"scaled_runs", c.scaled_runs},
          {"max_scale", num(c.max_scale)}};
}

// The "comparisons" array, every comparison in the analysis's order.
nlohmann::json comparisons_json(const Plan& plan, const Findings& f) {
  nlohmann::json comparisons = nlohmann::json::array();
  for (std::size_t i = 0; i < f.comparisons.size(); ++i) comparisons.push_back(comparison_json(plan, f, i));
  return comparisons;
}

// The "verdicts" array: one entry per metric and level, with its reason and comparisons.
nlohmann::json verdicts_json(const Findings& f) {
  nlohmann::json verdicts = nlohmann::json::array();
  for (const LevelVerdict& v : f.verdicts)
    verdicts.push_back({{"metric", v.metric},
                        {"metric_name", metric_name(f, v.metric)},
                        {"level_index", v.level_index},
                        {"level", v.level_label},
                        {"dose", v.dose},
                        {"verdict", verdict_key(v.verdict)},
                        {"verdict_text", verdict_text(v.verdict)},
                        {"reason", v.reason},
                        {"scaled", v.scaled},
                        {"comparisons", v.comparisons}});
  return verdicts;
}

// The "trends" array: each trend test over the doses, its statistic and p-values.
nlohmann::json trends_json(const Findings& f) {
  nlohmann::json trends = nlohmann::json::array();
  for (const Trend& t : f.trends)
    trends.push_back({{"metric", t.metric},
                      {"metric_name", metric_name(f, t.metric)},
                      {"layout", to_string(t.layout)},
                      {"levels", t.levels},
                      {"blocks", t.blocks},
                      {"L", num(t.L)},
                      {"p_increasing", num(t.p_value)},
                      {"p_decreasing", num(t.p_decreasing)},
                      {"method", t.method}});
  return trends;
}

// The "incomparable" array: each run left out, its configuration and why.
nlohmann::json incomparable_json(const Plan& plan, const Findings& f) {
  nlohmann::json incomparable = nlohmann::json::array();
  for (const IncomparableRun& r : f.incomparable)
    incomparable.push_back({{"run", r.run_index}, {"config", r.config}, {"config_id", config_id(plan, r.config)},
                            {"why", r.why}});
  return incomparable;
}

// The "counters" array: per counter, each configuration's running fraction, scaling
// and faults, and whether repeated runs gave one exact count (determinism).
nlohmann::json counters_json(const Plan& plan, const Findings& f) {
  nlohmann::json out = nlohmann::json::array();
  for (const CounterValidity& v : f.counters) {
    nlohmann::json configs = nlohmann::json::array();
    for (const CounterRunning& c : v.configs)
      configs.push_back({{"config", c.config},
                         {"config_id", config_id(plan, c.config)},
                         {"runs", c.runs},
                         {"running_min", num(c.running_min)},
                         {"running_median", num(c.running_median)},
                         {"scaled_runs", c.scaled_runs},
                         {"max_scale", num(c.max_scale)},
                         {"never_ran", c.never_ran},
                         {"faults", c.faults},
                         {"identical", c.identical}});
    out.push_back({{"metric", v.metric},
                   {"metric_name", metric_name(f, v.metric)},
                   {"determinism", determinism_key(v.determinism)},
                   {"determinism_text", v.determinism_text},
                   {"scaled_runs", v.scaled_runs},
                   {"never_ran", v.never_ran},
                   {"faults", v.faults},
                   {"configs", configs}});
  }
  return out;
}

// ---- CSV -------------------------------------------------------------------------

std::string csv_number(double v) { return std::isfinite(v) ? fmt::format("{}", v) : ""; }

// The counter validity columns of a CSV row: the comparison's metric in one
// configuration (running_min, running_median, scaled_runs, never_ran, faults); empty
// cells for a driver metric or a configuration that does not count it.
std::vector<std::string> csv_validity_cells(const Findings& f, std::size_t metric, std::size_t config) {
  const CounterRunning* c = counter_running(f, metric, config);
  if (!c) return {"", "", "", "", ""};
  return {csv_number(c->running_min), csv_number(c->running_median), std::to_string(c->scaled_runs),
          std::to_string(c->never_ran), std::to_string(c->faults)};
}

// ---- Markdown --------------------------------------------------------------------

std::string md_cell(const std::string& s) {
  std::string out;
  for (char c : s) {
    if (c == '|') out += "\\|";
    else if (c == '\n') out += ' ';
    else out += c;
  }
  return out;
}

// The counters' validity as Markdown: per counter its determinism, then one table row
// per configuration; "" when no counter was read.
std::string markdown_counters(const Plan& plan, const Findings& f) {
  if (f.counters.empty()) return "";
  std::string out = fmt::format("\n**Counters** ({})\n\n", kValidityHeading);
  for (const CounterValidity& v : f.counters)
    out += fmt::format("- `{}`: {} ({})\n", md_cell(metric_name(f, v.metric)), md_cell(v.determinism_text),
                       determinism_key(v.determinism));
  out += "\n| counter | configuration | runs | running min | running median | readings |\n|---|---|---|---|---|---|\n";
  for (const CounterValidity& v : f.counters)
    for (const CounterRunning& c : v.configs)
      out += fmt::format("| {} | `{}` | {} | {} | {} | {} |\n", md_cell(metric_name(f, v.metric)),
                         md_cell(config_id(plan, c.config)), c.runs, running_text(c.running_min),
                         running_text(c.running_median), md_cell(validity_state(c)));
  return out;
}

}  // namespace

// -0.0 prints as "-0.0"; adding +0.0 turns it into +0.0.
double pct(double fraction) { return fraction * 100 + 0.0; }

std::string format_margin(double margin) { return fmt::format("±{:g}%", pct(margin)); }

std::string format_effect_ci(double effect, double lo, double hi) {
  if (!std::isfinite(effect)) return "n/a";
  const bool ci = std::isfinite(lo) && std::isfinite(hi);
  double largest = std::fabs(pct(effect));
  if (ci) largest = std::max({largest, std::fabs(pct(lo)), std::fabs(pct(hi))});
  const int d = largest < 1 ? 2 : largest < 100 ? 1 : 0;
  std::string out = fmt::format("{:+.{}f}%", pct(effect), d);
  if (ci) out += fmt::format(" [{:+.{}f}, {:+.{}f}]", pct(lo), d, pct(hi), d);
  return out;
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

std::string check_text(const Plan& plan, const Findings& f, const CheckContext& ctx, bool color) {
  const Palette pal(color);
  std::string out = text_header(plan, f, ctx, pal) + "\n";
  for (const std::string& line : summary_lines(plan, f, ctx)) out += wrap_line(line, 2, kTableWidth);
  if (ctx.summary_only) return out + "  detail: obscheck report " + ctx.journal_path + "\n";
  out += "\n";
  out += verdict_table(plan, f, pal, ctx.verbose);
  if (const std::string line = to_decide_line(f, ctx); !line.empty()) out += line + "\n";
  out += "\n" + aa_section(plan, f, pal);
  out += incomparable_section(plan, f, pal);
  out += counter_validity_section(plan, f);
  for (const auto& n : f.notes) out += "note: " + n + "\n";
  for (const auto& w : ctx.warnings) out += pal.paint(pal.yellow, "warning:") + " " + w + "\n";
  for (const Observation& o : ctx.observations) out += "observer: " + observation_text(o) + "\n";
  for (const auto& w : ctx.sweep) out += "sweep: " + w + "\n";
  for (std::size_t m = 0; m < f.metrics.size(); ++m) {
    const Verdict worst = m < f.metric_verdicts.size() ? f.metric_verdicts[m] : Verdict::inconclusive;
    if (!ctx.verbose && f.metrics[m].driver && f.metrics[m].name != "wall-time" &&
        (worst == Verdict::not_perturbed || worst == Verdict::inconclusive))
      continue;
    const std::string plot = metric_plot(plan, f, m, pal);
    if (!plot.empty()) out += "\n" + plot;
  }
  out += "\n" + host_section(ctx, pal);
  out += "\nmethods:\n";
  for (const auto& line : methods_lines(plan, f)) out += "  " + pal.paint(pal.dim, line) + "\n";
  return out;
}

std::string check_json(const Plan& plan, const Findings& f, const CheckContext& ctx) {
  nlohmann::json j;
  j["schema"] = "obscheck-check-report";
  j["version"] = 1;
  // The answer first, as the text report gives it (docs/report-schema.md "answer").
  j["answer"] = answer_json(plan, f, ctx);
  j["context"] = context_json(f, ctx);
  j["plan"] = plan_json(plan);
  j["summary"] = summary_json(f);
  j["metrics"] = metrics_json(f);
  j["comparisons"] = comparisons_json(plan, f);
  j["verdicts"] = verdicts_json(f);
  j["trends"] = trends_json(f);
  j["aa"] = {{"ok", f.aa.ok}, {"reason", f.aa.reason}, {"comparisons", f.aa.comparisons}, {"line", aa_line(f)}};
  j["incomparable"] = incomparable_json(plan, f);
  j["counters"] = counters_json(plan, f);
  j["notes"] = f.notes;
  j["methods"] = methods_lines(plan, f);
  return j.dump(2) + "\n";
}

std::string check_csv(const Plan& plan, const Findings& f) {
  std::string out =
      "metric,unit,config_id,level,dose,layout,aa,n,effect,ci_lo,ci_hi,p,p_holm,significant,equivalent,verdict,reason,"
      "running_min,running_median,scaled_runs,never_ran,faults,baseline_running_min,baseline_running_median,"
      "baseline_scaled_runs,baseline_never_ran,baseline_faults,determinism\n";
  for (const Comparison& c : f.comparisons) {
    const LevelVerdict* v = verdict_for(f, c);
    std::vector<std::string> row = {
        metric_name(f, c.metric),
        c.metric < f.metrics.size() ? f.metrics[c.metric].unit : "",
        config_id(plan, c.config),
        c.level_label,
        std::to_string(c.dose),
        std::string(to_string(c.layout)),
        c.aa ? "true" : "false",
        std::to_string(c.n),
        csv_number(c.effect),
        csv_number(c.ci_lo),
        csv_number(c.ci_hi),
        csv_number(c.p_value),
        csv_number(c.p_holm),
        c.significant ? "true" : "false",
        c.equivalent ? "true" : "false",
        v ? std::string(verdict_key(v->verdict)) : "",
        v ? v->reason : ""};
    for (std::size_t config : {c.config, c.baseline})
      for (std::string& cell : csv_validity_cells(f, c.metric, config)) row.push_back(std::move(cell));
    const CounterValidity* validity = counter_validity_of(f, c.metric);
    row.push_back(validity ? std::string(determinism_key(validity->determinism)) : "");
    for (std::size_t i = 0; i < row.size(); ++i) out += (i ? "," : "") + csv_field(row[i]);
    out += "\n";
  }
  return out;
}

std::string check_markdown(const Plan& plan, const Findings& f, const CheckContext& ctx) {
  std::string out = fmt::format("**obscheck** `{}`\n\n", command_line(ctx));
  out += fmt::format("mode {}, {} measured blocks × {} configurations, seed {}, margin ε = {}{}\n\n",
                     ctx.mode.empty() ? "external" : ctx.mode, f.measured_blocks, plan.block_size(), ctx.seed,
                     format_margin(f.margin), ctx.complete ? "" : " (incomplete)");
  for (const std::string& line : ctx.backend) out += "- " + md_cell(line) + "\n";
  if (!ctx.backend.empty()) out += "\n";
  out += "**Summary**\n\n";
  for (const std::string& line : summary_lines(plan, f, ctx)) out += "- " + md_cell(line) + "\n";
  out += "\n";
  std::string head = "| metric | level |", rule = "|---|---|";
  for (Layout l : plan.spec.layouts) {
    head += fmt::format(" {} |", to_string(l));
    rule += "---|";
  }
  out += head + " verdict | reason |\n" + rule + "---|---|\n";
  for (const LevelVerdict& v : f.verdicts) {
    out += fmt::format("| {} | {} |", md_cell(metric_name(f, v.metric)), md_cell(v.level_label));
    for (Layout l : plan.spec.layouts) out += " " + md_cell(cell_text(f, cell(f, v, l))) + " |";
    const std::string verdict = verdict_label(v);
    out += fmt::format(" {} | {} |\n", v.verdict == Verdict::not_perturbed ? verdict : "**" + verdict + "**",
                       md_cell(v.reason));
  }
  if (f.verdicts.empty()) {
    out += "| (no verdicts yet) |";
    for (std::size_t i = 0; i < plan.spec.layouts.size() + 3; ++i) out += " |";
    out += "\n";
  }
  out += "\n" + aa_line(f) + "\n";
  if (!f.incomparable.empty()) {
    out += fmt::format("\n**Incomparable runs ({})**\n\n", f.incomparable.size());
    const std::size_t shown = std::min(f.incomparable.size(), kIncomparableListed);
    for (std::size_t i = 0; i < shown; ++i)
      out += fmt::format("- run {} (`{}`): {}\n", f.incomparable[i].run_index, config_id(plan, f.incomparable[i].config),
                         f.incomparable[i].why);
    if (shown < f.incomparable.size()) out += fmt::format("- … and {} more\n", f.incomparable.size() - shown);
  }
  out += markdown_counters(plan, f);
  out += "\n**Methods**\n\n";
  for (const auto& line : methods_lines(plan, f)) out += "- " + line + "\n";
  return out;
}

std::string observation_text(const Observation& o) {
  const std::string what = o.unit == "count" ? o.what : fmt::format("{} ({})", o.what, o.unit);
  const std::string range = o.min == o.max ? fmt::format("{:.{}f}", o.min, o.digits)
                                           : fmt::format("{:.{}f}..{:.{}f} (mean {:.{}f})", o.min, o.digits, o.max,
                                                         o.digits, o.mean, o.digits);
  return fmt::format("{}: {} per run = {}", o.level, what, range);
}

nlohmann::json observation_json(const Observation& o) {
  return {{"level", o.level}, {"dose", o.dose}, {"key", o.key},   {"what", o.what}, {"unit", o.unit},
          {"runs", o.n},      {"min", num(o.min)}, {"max", num(o.max)}, {"mean", num(o.mean)}};
}

}  // namespace obscheck
