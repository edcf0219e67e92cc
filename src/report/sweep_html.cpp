#include "report/sweep_html.h"

#include <fmt/core.h>

#include <algorithm>
#include <cmath>

#include "report/display_unit.h"
#include "report/html_page.h"
#include "report/measure_report.h"
#include "report/svg.h"

namespace obscheck {
namespace {

using svg::escape;

// The paper's Figure 6 has 22 contexts; past about 40 slots a chart this wide turns
// into a smear, so the context chart widens by this much per extra slot.
constexpr std::size_t kSlotsAtBaseWidth = 40;
constexpr double kExtraSlotWidth = 12;
constexpr const char* kAaName = "baseline (A/A)";

std::string quoted_words(const std::vector<std::string>& w) {
  std::string out;
  for (const auto& s : w) {
    const bool plain = !s.empty() && s.find_first_of(" \t\n'\"\\$`") == std::string::npos;
    out += (out.empty() ? "" : " ") + (plain ? s : "'" + s + "'");
  }
  return out;
}

std::string slug(const std::string& name) {
  std::string s;
  for (char c : name) {
    const char l = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    if ((l >= 'a' && l <= 'z') || (l >= '0' && l <= '9')) s += l;
    else if (!s.empty() && s.back() != '-') s += '-';
  }
  while (!s.empty() && s.back() == '-') s.pop_back();
  return s.empty() ? "metric" : s;
}

std::vector<std::string> slugs(const SweepReport& r) {
  std::vector<std::string> out;
  for (const BiasAnalysis& b : r.bias) {
    const std::string s = slug(b.metric);
    std::string unique = s;
    for (int k = 2; std::find(out.begin(), out.end(), unique) != out.end(); ++k) unique = fmt::format("{}-{}", s, k);
    out.push_back(unique);
  }
  return out;
}

double level_pct(double alpha) { return 100 * (1 - alpha); }

// How the contexts differ, which decides the x axis: one dimension gets its numbers,
// crossed dimensions get each context's label.
struct ContextAxis {
  std::string title;
  std::vector<std::string> slots;
};
ContextAxis context_axis(const SweepReport& r) {
  bool env = false, argv0 = false, link = false;
  for (const SweepContextRecord& c : r.contexts) {
    env = env || c.env_pad.has_value();
    argv0 = argv0 || c.label.find("argv0+") != std::string::npos;
    link = link || c.link_order.has_value();
  }
  ContextAxis a;
  const int dims = env + argv0 + link;
  // The environment axis is the bytes added (the pad), as the contexts' labels
  // ("env+256") and the text report give them; each context's total is in its tooltip.
  a.title = dims != 1 ? "measurement context"
            : env     ? "bytes added to the environment"
            : link    ? "link order"
                      : "argv[0] padding (bytes)";
  for (const SweepContextRecord& c : r.contexts) {
    if (dims != 1) a.slots.push_back(c.label);
    else if (env) a.slots.push_back(c.env_pad ? std::to_string(*c.env_pad) : c.label);
    else if (link) a.slots.push_back(std::to_string(*c.link_order));
    else a.slots.push_back(std::to_string(c.argv0_pad));
  }
  return a;
}

double chart_width(std::size_t slots) {
  return kChartWidth + static_cast<double>(slots > kSlotsAtBaseWidth ? slots - kSlotsAtBaseWidth : 0) * kExtraSlotWidth;
}

double run_value(const SweepRunRecord& run, const std::string& metric) {
  for (const auto& [name, v] : run.metrics)
    if (name == metric) return v;
  return std::nan("");
}

std::string context_text(const SweepContextRecord& c) {
  std::string s;
  if (c.env_pad) s += fmt::format("environment {} B (pad value {} B)", c.env_bytes, *c.env_pad);
  if (c.argv0_pad) s += fmt::format("{}argv[0] +{} B", s.empty() ? "" : "; ", c.argv0_pad);
  if (c.link_order) {
    std::string objects;
    for (const auto& o : c.objects) objects += (objects.empty() ? "" : " ") + o;
    s += fmt::format("{}link order {}: {}", s.empty() ? "" : "; ", *c.link_order, objects);
  }
  return s.empty() ? "as given" : s;
}

const char* bias_key(const BiasAnalysis& b) {
  if (b.incomparable()) return "incomparable";
  if (!b.spread) return "inconclusive";
  return b.exceeds_noise ? "perturbed" : "not-perturbed";
}
std::string bias_words(const BiasAnalysis& b) {
  if (b.incomparable()) return "incomparable";
  const std::string scaled = b.scaled.scaled() ? ", scaled" : "";
  if (!b.spread) return "not tested" + scaled;
  return (b.exceeds_noise ? "measurement bias" : "within noise") + scaled;
}

// The check page's badge colours: red for what should worry the reader, green for a
// clean result, grey for no conclusion, purple for incomparable. Badge words are short
// (badges do not wrap); the verdict's full sentence is on the row below.
std::pair<const char*, std::string> outcome_badge(const VariantComparison& c, bool aa) {
  switch (c.outcome) {
    case Outcome::incomparable: return {"incomparable", "incomparable"};
    case Outcome::better:
    case Outcome::worse:
      if (aa) return {"perturbed", "A/A failed"};
      return {c.outcome == Outcome::worse ? "perturbed" : "not-perturbed", outcome_name(c.outcome)};
    case Outcome::equivalent:
    case Outcome::no_difference:
      return {aa ? "not-perturbed" : "inconclusive", aa ? "A/A passed" : "no difference"};
  }
  return {"inconclusive", outcome_name(c.outcome)};
}

std::string badge(const char* key, const std::string& text) {
  return fmt::format("<span class=\"badge verdict-{}\">{}</span>", key, escape(text));
}

// "p = 0.1011", or "p &lt; 0.0001" below what four decimals can show.
std::string p_phrase(double p) {
  if (!std::isfinite(p)) return "p n/a";
  if (p < 1e-4) return "p &lt; 0.0001";
  return fmt::format("p = {:.4f}", p);
}

// ---- page sections ------------------------------------------------------------------

std::string header_section(const SweepReport& r, const SweepPageContext& ctx) {
  const bool bias = r.command == JobKind::bias;
  std::string out = fmt::format("<header>\n<h1>obscheck {}: {}</h1>\n", escape(std::string(to_string(r.command))),
                                bias ? "how far does the metric swing across measurement contexts?"
                                     : "two variants over the same measurement contexts");
  for (const SweepVariantRecord& v : r.variants)
    if (v.name != kAaName)
      out += fmt::format("<p class=\"meta\">{} <code>{}</code></p>\n", escape(bias ? "program" : v.name),
                         escape(quoted_words(v.argv)));
  std::size_t failed = 0;
  for (const auto& c : r.contexts) failed += !c.failure.empty();
  out += fmt::format(
      "<p class=\"meta\">{} contexts ({} could not be prepared) × {} runs per context and variant, interleaved in a "
      "seeded random order (seed {}); {} warm-up round{} not analysed</p>\n",
      r.contexts.size(), failed, r.runs_per_context, r.seed, r.warmup, r.warmup == 1 ? "" : "s");
  out += fmt::format("<p class=\"meta\">events <code>{}</code>; verdicts on <code>{}</code>; {} runs recorded; "
                     "environment contexts pad the variable <code>{}</code></p>\n",
                     escape(r.events), escape(r.metric), r.runs.size(), escape(r.pad_name));
  out += html_warnings(ctx.warnings);
  return out + "</header>\n";
}

std::string bias_summary(const SweepReport& r) {
  std::string out = "<section id=\"summary\">\n<h2>Summary</h2>\n";
  if (r.bias.empty()) return out + "<p>No metric could be analysed.</p>\n</section>\n";
  out += fmt::format(
      "<p class=\"meta\">Per metric: the ratio of each context's mean to the median of the context means, and whether "
      "the spread across contexts exceeds run-to-run noise (α = {:g}).</p>\n",
      r.bias.front().alpha);
  out += "<table class=\"sweep-summary\">\n<thead><tr><th>metric</th><th>median of context means</th>"
         "<th>ratio min … max</th><th>swing</th><th>spread test</th><th>verdict</th></tr></thead>\n<tbody>\n";
  const auto names = slugs(r);
  for (std::size_t i = 0; i < r.bias.size(); ++i) {
    const BiasAnalysis& b = r.bias[i];
    const std::string test = b.spread ? fmt::format("F({:g}, {:g}) = {:.3g}, {}", b.spread->df_between,
                                                    b.spread->df_within, b.spread->f, p_phrase(b.spread->p_value))
                                      : "n/a";
    out += fmt::format(
        "<tr class=\"verdict-row verdict-{}\" data-metric=\"{}\"><td><a href=\"#bias-{}\">{}</a></td>"
        "<td class=\"num\">{}</td><td class=\"num\">{:.4f} … {:.4f}</td><td class=\"num\">{:.2f}%</td>"
        "<td class=\"num\">{}</td><td>{}</td></tr>\n",
        bias_key(b), escape(b.metric), escape(names[i]), escape(b.metric),
        escape(format_value(b.median_of_means, sweep_metric_unit(b.metric))), b.ratio_min, b.ratio_max,
        100 * b.swing, test, badge(bias_key(b), bias_words(b)));
    if (b.scaled.scaled())
      out += fmt::format("<tr class=\"reason-row\"><td colspan=\"6\" class=\"reason\">{}</td></tr>\n",
                         escape(scaled_counter_verdict(b.scaled)));
    if (!b.failed.empty())
      out += fmt::format("<tr class=\"reason-row\"><td colspan=\"6\" class=\"reason\">{} context{} not analysed "
                         "(the program failed there): see the contexts below</td></tr>\n",
                         b.failed.size(), b.failed.size() == 1 ? "" : "s");
  }
  return out + "</tbody>\n</table>\n</section>\n";
}

std::string comparison_row(const VariantComparison& c, bool aa) {
  const auto [key, words] = outcome_badge(c, aa);
  std::string ratio = "n/a", speedup = "n/a", boot = "n/a", tost = "n/a";
  if (c.t) {
    ratio = fmt::format("{:.4f} [{:.4f}, {:.4f}]", c.ratio, c.ratio_ci.lo, c.ratio_ci.hi);
    speedup = paper_form(c.speedup, c.speedup_half_width);
  }
  if (c.bootstrap)
    boot = fmt::format("{:.4f} [{:.4f}, {:.4f}]", c.bootstrap->estimate, c.bootstrap->percentile.lo,
                       c.bootstrap->percentile.hi);
  if (c.tost) tost = fmt::format("{}, {}", p_phrase(c.tost->p_value), c.tost->equivalent ? "shown" : "not shown");
  std::string out = fmt::format(
      "<tr class=\"verdict-row verdict-{}\" data-comparison=\"{}\"><td>{}</td><td class=\"num\">{}</td>"
      "<td class=\"num\">{}</td><td class=\"num\">{}</td><td class=\"num\">{}</td><td class=\"num\">{}</td>"
      "<td>{}</td></tr>\n",
      key, aa ? "aa" : "main", aa ? "A/A control (baseline against itself)" : "contender against baseline",
      c.contexts, ratio, speedup, boot, tost, badge(key, words));
  std::string why = escape(c.verdict);
  for (std::size_t i = 1; i < c.reasons.size(); ++i) why += "<br>also " + escape(c.reasons[i]);
  for (const std::string& n : c.notes) why += "<br>note: " + escape(n);
  return out + fmt::format("<tr class=\"reason-row\"><td colspan=\"7\" class=\"reason\">{}</td></tr>\n", why);
}

std::string compare_summary(const SweepReport& r) {
  std::string out = "<section id=\"summary\">\n<h2>Verdict</h2>\n";
  if (!r.comparison && !r.aa) return out + "<p>Nothing was compared.</p>\n</section>\n";
  out += fmt::format(
      "<p class=\"meta\">Ratio = contender / baseline of <code>{}</code> per context, combined over the contexts; "
      "speedup = baseline / contender ± half its interval, the paper's form; {:g}% intervals; equivalence margin "
      "±{:g}%.</p>\n",
      escape(r.metric), level_pct(r.alpha), 100 * r.margin);
  if (r.aa && (r.aa->outcome == Outcome::better || r.aa->outcome == Outcome::worse ||
               r.aa->outcome == Outcome::incomparable))
    out += "<p class=\"bad\"><strong>The baseline differs from itself</strong>: nothing below can be trusted (noise, "
           "drift or a context effect this design does not cancel).</p>\n";
  out += "<table class=\"sweep-summary\">\n<thead><tr><th>comparison</th><th>contexts</th><th>ratio [CI]</th>"
         "<th>speedup</th><th>bootstrap [CI]</th><th>equivalence (TOST)</th><th>verdict</th></tr></thead>\n<tbody>\n";
  if (r.aa) out += comparison_row(*r.aa, true);
  if (r.comparison) out += comparison_row(*r.comparison, false);
  return out + "</tbody>\n</table>\n</section>\n";
}

std::string bias_context_table(const BiasAnalysis& b) {
  const std::string u = sweep_metric_unit(b.metric);
  std::string out = fmt::format(
      "<details><summary>Per context: mean, its {:g}% t interval, ratio to the median context</summary>\n"
      "<table class=\"contexts\">\n<thead><tr><th>context</th><th>n</th><th>mean</th><th>CI</th><th>median</th>"
      "<th>ratio</th><th>ratio CI</th></tr></thead>\n<tbody>\n",
      level_pct(b.alpha));
  for (const ContextStat& c : b.contexts) {
    const std::string ci = c.mean_ci ? fmt::format("[{}, {}]", format_value(c.mean_ci->lo, u), format_value(c.mean_ci->hi, u))
                                     : "n/a (one run)";
    const std::string rci = c.ratio_ci ? fmt::format("[{:.4f}, {:.4f}]", c.ratio_ci->lo, c.ratio_ci->hi) : "";
    const bool lowest = &c == &b.contexts[b.lowest], highest = &c == &b.contexts[b.highest];
    out += fmt::format("<tr><td><code>{}</code>{}</td><td class=\"num\">{}</td><td class=\"num\">{}</td>"
                       "<td class=\"num\">{}</td><td class=\"num\">{}</td><td class=\"num\">{:.4f}</td>"
                       "<td class=\"num\">{}</td></tr>\n",
                       escape(c.label), lowest ? " (lowest)" : highest ? " (highest)" : "", c.n,
                       escape(format_value(c.mean, u)), escape(ci), escape(format_value(c.median, u)), c.ratio, rci);
  }
  for (const ContextSeries& f : b.failed)
    out += fmt::format("<tr><td><code>{}</code></td><td colspan=\"6\" class=\"bad\">failed: {}</td></tr>\n",
                       escape(f.label), escape(f.failure.substr(0, f.failure.find('\n'))));
  return out + "</tbody>\n</table>\n</details>\n";
}

std::string bias_figures(const SweepReport& r) {
  std::string out;
  const auto names = slugs(r);
  for (std::size_t i = 0; i < r.bias.size(); ++i) {
    const BiasAnalysis& b = r.bias[i];
    const std::string chart = bias_contexts_svg(r, i);
    if (chart.empty()) continue;
    out += fmt::format("<section class=\"metric\" id=\"bias-{}\">\n<h3>{} ({}) {}</h3>\n", escape(names[i]),
                       escape(b.metric), escape(sweep_metric_unit(b.metric)), badge(bias_key(b), bias_words(b)));
    out += "<figure class=\"bias\">\n" + chart;
    out += fmt::format(
        "<figcaption>Each context's mean with its {:g}% t interval; hollow points: every run; line: the median of the "
        "context means ({}). Extremes: {} ({:.4f}) and {} ({:.4f}), a swing of {:.2f}%.</figcaption>\n</figure>\n",
        level_pct(b.alpha), escape(format_value(b.median_of_means, sweep_metric_unit(b.metric))),
        escape(b.contexts[b.lowest].label), b.ratio_min, escape(b.contexts[b.highest].label), b.ratio_max,
        100 * b.swing);
    out += bias_context_table(b) + "</section>\n";
  }
  if (out.empty()) return "";
  return "<section id=\"figures\">\n<h2>The metric in each context</h2>\n<p class=\"meta\">As the paper's Figures 6 "
         "and 8: if only the context changes and the points move by more than their intervals, the context biases the "
         "measurement.</p>\n" +
         out + "</section>\n";
}

std::string compare_figures(const SweepReport& r) {
  const std::string ratios = compare_ratios_svg(r), contexts = compare_contexts_svg(r);
  if (ratios.empty() && contexts.empty()) return "";
  std::string out = "<section id=\"figures\">\n<h2>The ratio in each context</h2>\n<div class=\"figures\">\n";
  if (!ratios.empty())
    out += "<figure class=\"compare-ratios\">\n" + ratios +
           fmt::format("<figcaption>As the paper's Figure 13: each point is one context's ratio of the means "
                       "contender / baseline; the outline a Gaussian kernel density (Silverman's bandwidth), the bar "
                       "the median; the diamond the ratio over all contexts with its {:g}% paired-t interval. Below "
                       "1 the contender takes less.</figcaption>\n</figure>\n",
                       level_pct(r.alpha));
  if (!contexts.empty())
    out += "<figure class=\"compare-contexts\">\n" + contexts +
           "<figcaption>The same ratios against the context (the paper's Figures 6 and 8 for two variants): a context "
           "alone could have told either story when points fall on both sides of 1.</figcaption>\n</figure>\n";
  return out + "</div>\n</section>\n";
}

std::string contexts_section(const SweepReport& r) {
  std::string out = "<section id=\"contexts\">\n<h2>Contexts</h2>\n<details><summary>What each of the " +
                    std::to_string(r.contexts.size()) +
                    " contexts was</summary>\n<table class=\"context-list\">\n<thead><tr><th>id</th><th>label</th>"
                    "<th>what</th><th>binary sha256</th></tr></thead>\n<tbody>\n";
  for (const SweepContextRecord& c : r.contexts) {
    out += fmt::format("<tr><td class=\"num\">{}</td><td><code>{}</code></td><td>{}</td><td><code>{}</code></td></tr>\n",
                       c.id, escape(c.label), escape(context_text(c)), escape(c.binary_sha256.substr(0, 16)));
    if (!c.failure.empty())
      out += fmt::format("<tr><td></td><td colspan=\"3\" class=\"bad\">could not be prepared: {}</td></tr>\n",
                         escape(c.failure));
  }
  out += "</tbody>\n</table>\n</details>\n";
  if (r.command == JobKind::compare && r.comparison && !r.comparison->per_context.empty()) {
    const std::string u = sweep_metric_unit(r.metric);
    out += "<details><summary>Per context: the two means and their ratio</summary>\n<table class=\"ratios\">\n"
           "<thead><tr><th>context</th><th>baseline mean</th><th>contender mean</th><th>ratio</th></tr></thead>\n"
           "<tbody>\n";
    for (const ContextRatio& c : r.comparison->per_context)
      out += fmt::format("<tr><td><code>{}</code></td><td class=\"num\">{}</td><td class=\"num\">{}</td>"
                         "<td class=\"num\">{:.4f}</td></tr>\n",
                         escape(c.label), escape(format_value(c.baseline_mean, u)),
                         escape(format_value(c.contender_mean, u)), c.ratio);
    out += "</tbody>\n</table>\n</details>\n";
  }
  return out + "</section>\n";
}

std::string notes_section(const SweepReport& r) {
  if (r.notes.empty()) return "";
  std::string out = "<section id=\"notes\">\n<h2>Notes</h2>\n<ul>\n";
  for (const std::string& n : r.notes) out += fmt::format("<li>{}</li>\n", escape(n));
  return out + "</ul>\n</section>\n";
}

std::string methods_section(const SweepReport& r) {
  std::string out = "<section id=\"methods\">\n<h2>Methods</h2>\n<table class=\"methods\">\n"
                    "<thead><tr><th>what</th><th>method</th></tr></thead>\n<tbody>\n";
  auto row = [&](const std::string& what, const std::string& method) {
    out += fmt::format("<tr><td>{}</td><td>{}</td></tr>\n", escape(what), escape(method));
  };
  row("design", fmt::format("every context × variant measured {} times, rounds interleaved in a seeded random order "
                            "(contexts shuffled, then the variants within each), so drift spreads over all of them",
                            r.runs_per_context));
  if (r.command == JobKind::bias) {
    const double level = r.bias.empty() ? level_pct(r.alpha) : level_pct(r.bias.front().alpha);
    row("mean per context", fmt::format("arithmetic mean of the context's runs; {:g}% Student t interval (n ≥ 2)", level));
    row("ratio", "context mean / median of the context means; its interval the mean's interval divided by that median");
    row("ratio quartiles", "definition 7 of Hyndman & Fan (R's default)");
    std::vector<std::string> seen;
    for (const BiasAnalysis& b : r.bias)
      if (std::find(seen.begin(), seen.end(), b.method) == seen.end()) {
        seen.push_back(b.method);
        row("spread across contexts", b.method);
      }
    row("figures", "SVG written by obscheck (report/svg.h); every run a hollow point jittered sideways only");
  } else {
    const double level = level_pct(r.alpha);
    row("ratio", fmt::format("paired t over contexts on d = ln(contender mean) − ln(baseline mean); ratio = exp(mean d), "
                             "{:g}% interval exp(t interval)",
                             level));
    row("speedup", "baseline / contender = 1 / ratio, ± half the width of its interval (the paper's form)");
    std::size_t resamples = 0;
    for (const VariantComparison* c : {r.aa ? &*r.aa : nullptr, r.comparison ? &*r.comparison : nullptr})
      if (c && c->bootstrap) resamples = c->bootstrap->resamples;
    row("bootstrap", fmt::format("two-level bootstrap of mean(contender) / mean(baseline), contexts then runs within "
                                 "each (Kalibera & Jones 2013); {:g}% percentile interval{}",
                                 level, resamples ? fmt::format(", {} resamples", resamples) : ""));
    row("equivalence", fmt::format("TOST on d within ±{:g}%, α = {:g}, with the paired t's standard error",
                                   100 * r.margin, r.alpha));
    row("verdict", "better / worse only when the t interval and the bootstrap interval both exclude 1; incomparable "
                   "when a context fails for one variant only, when outputs differ, or under two clean contexts");
    row("figures", "SVG written by obscheck (report/svg.h); violin: Gaussian KDE, Silverman's rule-of-thumb bandwidth");
  }
  return out + "</tbody>\n</table>\n</section>\n";
}

}  // namespace

std::string bias_contexts_svg(const SweepReport& r, std::size_t i) {
  if (i >= r.bias.size() || r.bias[i].contexts.empty()) return "";
  const BiasAnalysis& b = r.bias[i];
  const ContextAxis axis = context_axis(r);
  double magnitude = 0;
  for (const ContextStat& c : b.contexts) magnitude = std::max(magnitude, std::abs(c.mean));
  const std::string unit = sweep_metric_unit(b.metric);
  const DisplayUnit du = display_unit(unit, magnitude);
  const double d = du.divisor;

  svg::IntervalChart chart;
  chart.root = {{"class", "plot bias-contexts"}, {"data-metric", b.metric}};
  chart.title = b.metric + " in each measurement context";
  chart.x_label = axis.title;
  chart.y_label = b.metric + " (" + du.name + ")";
  chart.unit = du.unit;
  chart.width = chart_width(axis.slots.size());
  chart.height = kChartHeight;
  chart.slots = axis.slots;
  chart.zero_line = false;
  chart.connect = false;
  chart.series.push_back({fmt::format("mean, {:g}% t interval", level_pct(b.alpha)), svg::kBlue, svg::Marker::circle,
                          {{"data-series", "mean"}}});
  for (const ContextStat& c : b.contexts) {
    if (c.id >= axis.slots.size()) continue;
    const double lo = c.mean_ci ? c.mean_ci->lo / d : std::nan(""), hi = c.mean_ci ? c.mean_ci->hi / d : std::nan("");
    chart.points.push_back(
        {c.id, 0, c.mean / d, lo, hi,
         fmt::format("{}: mean {}{}, n = {}, ratio to the median context {:.4f}", c.label, format_value(c.mean, unit),
                     c.mean_ci ? fmt::format(" [{}, {}]", format_value(c.mean_ci->lo, unit),
                                             format_value(c.mean_ci->hi, unit))
                               : "",
                     c.n, c.ratio)});
  }
  // Every run the analysis used: the clean runs with a positive value (bias.h).
  for (const SweepRunRecord& run : r.runs) {
    if (!run.ok || run.context >= axis.slots.size()) continue;
    const double v = run_value(run, b.metric);
    if (std::isfinite(v) && v > 0) chart.raw.push_back({run.context, v / d});
  }
  chart.raw_label = "every run";
  chart.raw_seed = r.seed;
  chart.lines.push_back({b.median_of_means / d, "median of the context means", svg::kVermillion, true,
                         {{"data-ref", "median"}}});
  return svg::render(chart);
}

std::string compare_ratios_svg(const SweepReport& r) {
  svg::DistributionChart chart;
  chart.root = {{"class", "plot compare-ratios"}, {"data-metric", r.metric}};
  chart.title = "contender / baseline over the contexts";
  chart.y_label = "ratio of " + r.metric + " means";
  chart.seed = r.seed;
  chart.width = kChartWidth;
  chart.height = kChartHeight;
  chart.estimate_label = fmt::format("over all contexts, {:g}% CI", level_pct(r.alpha));
  auto add = [&](const VariantComparison& c, bool aa) {
    if (c.per_context.empty()) return;
    svg::DistributionGroup g;
    g.label = aa ? "A/A control\nbaseline / baseline" : "contender / baseline";
    for (const ContextRatio& x : c.per_context) g.values.push_back(x.ratio);
    g.colour = aa ? svg::kGrey : svg::kBlue;
    g.attrs = {{"data-comparison", aa ? "aa" : "main"}};
    if (c.t)
      g.estimate = svg::GroupEstimate{c.ratio, c.ratio_ci.lo, c.ratio_ci.hi,
                                      fmt::format("{}: {:.4f} [{:.4f}, {:.4f}] over {} contexts", aa ? "A/A" : "ratio",
                                                  c.ratio, c.ratio_ci.lo, c.ratio_ci.hi, c.contexts)};
    chart.groups.push_back(std::move(g));
  };
  if (r.aa) add(*r.aa, true);
  if (r.comparison) add(*r.comparison, false);
  if (chart.groups.empty()) return "";
  chart.lines.push_back({1.0, "1 = no difference", "#333333", true, {{"data-ref", "one"}}});
  return svg::render(chart);
}

std::string compare_contexts_svg(const SweepReport& r) {
  if (!r.comparison || r.comparison->per_context.empty()) return "";
  const VariantComparison& c = *r.comparison;
  const ContextAxis axis = context_axis(r);
  svg::IntervalChart chart;
  chart.root = {{"class", "plot compare-contexts"}, {"data-metric", r.metric}};
  chart.title = "contender / baseline in each context";
  chart.x_label = axis.title;
  chart.y_label = "ratio of " + r.metric + " means";
  chart.width = chart_width(axis.slots.size());
  chart.height = kChartHeight;
  chart.slots = axis.slots;
  chart.zero_line = false;
  chart.connect = false;
  chart.series.push_back({"contender / baseline", svg::kBlue, svg::Marker::circle, {{"data-comparison", "main"}}});
  const bool aa = r.aa && !r.aa->per_context.empty();
  if (aa) chart.series.push_back({"A/A", svg::kGrey, svg::Marker::diamond, {{"data-comparison", "aa"}}});
  for (const ContextRatio& x : c.per_context)
    if (x.id < axis.slots.size())
      chart.points.push_back({x.id, 0, x.ratio, std::nan(""), std::nan(""),
                              fmt::format("{}: {:.4f}", x.label, x.ratio)});
  if (aa)
    for (const ContextRatio& x : r.aa->per_context)
      if (x.id < axis.slots.size())
        chart.points.push_back({x.id, 1, x.ratio, std::nan(""), std::nan(""),
                                fmt::format("{} (A/A): {:.4f}", x.label, x.ratio)});
  if (c.t) {
    chart.band = std::make_pair(c.ratio_ci.lo, c.ratio_ci.hi);
    chart.band_label = fmt::format("{:g}% CI", level_pct(r.alpha));
    chart.lines.push_back({c.ratio, "overall ratio", svg::kBlue, false, {{"data-ref", "ratio"}}});
  }
  chart.lines.push_back({1.0, "1", "#333333", true, {{"data-ref", "one"}}});
  return svg::render(chart);
}

std::string sweep_html(const SweepReport& r, const SweepPageContext& ctx) {
  const bool bias = r.command == JobKind::bias;
  std::string title = "obscheck " + std::string(to_string(r.command));
  for (const SweepVariantRecord& v : r.variants)
    if (v.name != kAaName) title += (v.name == "contender" ? " vs " : ": ") + quoted_words(v.argv);
  std::string out = "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n";
  out += "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n";
  out += fmt::format("<title>{}</title>\n", escape(title));
  out += fmt::format("<style>{}</style>\n</head>\n<body>\n", html_stylesheet());
  out += header_section(r, ctx);
  out += bias ? bias_summary(r) : compare_summary(r);
  out += bias ? bias_figures(r) : compare_figures(r);
  out += contexts_section(r);
  out += notes_section(r);
  out += html_host_section(ctx.host, ctx.doctor);
  out += methods_section(r);
  out += "</body>\n</html>\n";
  return out;
}

std::vector<std::pair<std::string, std::string>> sweep_svgs(const SweepReport& r) {
  std::vector<std::pair<std::string, std::string>> out;
  if (r.command == JobKind::bias) {
    const auto names = slugs(r);
    for (std::size_t i = 0; i < r.bias.size(); ++i) {
      std::string chart = bias_contexts_svg(r, i);
      if (!chart.empty()) out.emplace_back("bias-" + names[i] + ".svg", std::move(chart));
    }
    return out;
  }
  std::string ratios = compare_ratios_svg(r), contexts = compare_contexts_svg(r);
  if (!ratios.empty()) out.emplace_back("compare-ratios.svg", std::move(ratios));
  if (!contexts.empty()) out.emplace_back("compare-contexts.svg", std::move(contexts));
  return out;
}

}  // namespace obscheck
