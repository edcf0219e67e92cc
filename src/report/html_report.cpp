#include "report/html_report.h"

#include <fmt/core.h>

#include <algorithm>
#include <cmath>
#include <map>
#include <optional>

#include "analysis/check.h"
#include "host/host_info.h"
#include "report/display_unit.h"
#include "report/doctor_report.h"
#include "report/findings_text.h"
#include "report/html_page.h"
#include "report/measure_report.h"
#include "report/svg.h"

namespace obscheck {
namespace {

using report_text::cell;
using report_text::cell_text;
using report_text::config_id;
using report_text::dose_axis;
using report_text::level_label;
using report_text::metric_name;
using report_text::on_dose_axis;

using svg::escape;

// Enough to show which configuration fails and how; the JSON report lists every run.
constexpr std::size_t kIncomparableOnPage = 50;
// SVG cannot measure text (svg.h); about 7 px per glyph at 12 px.
constexpr double kGlyphWidth = 7;


std::string format_p(double p) {
  if (!std::isfinite(p)) return "n/a";
  if (p < 1e-4) return "&lt; 0.0001";
  return fmt::format("{:.4f}", p);
}

// The layout conditions keep one colour and one marker shape everywhere on the page.
struct LayoutStyle {
  const char* colour;
  svg::Marker shape;
};
LayoutStyle style_of(Layout l) {
  switch (l) {
    case Layout::natural: return {svg::kVermillion, svg::Marker::circle};
    case Layout::held: return {svg::kBlue, svg::Marker::square};
    case Layout::sham: return {svg::kGreen, svg::Marker::triangle};
  }
  return {svg::kGrey, svg::Marker::diamond};
}

std::vector<const Comparison*> comparisons_of(const Findings& f, std::size_t metric) {
  std::vector<const Comparison*> out;
  for (const Comparison& c : f.comparisons)
    if (!c.aa && c.metric == metric) out.push_back(&c);
  return out;
}

// A word as the page shows the command: quoted unless every character is one no shell
// interprets (a stricter rule than the text report's, since the page is for pasting).
std::string page_shell_word(const std::string& a) {
  if (!a.empty() && a.find_first_not_of("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-_./=:,+@%") ==
                        std::string::npos)
    return a;
  std::string out = "'";
  for (char c : a) out += c == '\'' ? std::string("'\\''") : std::string(1, c);
  return out + "'";
}

std::string page_command_line(const CheckContext& ctx) {
  std::string out;
  for (const std::string& a : ctx.argv) out += (out.empty() ? "" : " ") + page_shell_word(a);
  return out.empty() ? "(target not recorded)" : out;
}

std::vector<std::string> slugs(const Findings& f) {
  std::vector<std::string> out;
  for (const MetricInfo& m : f.metrics) {
    std::string s;
    for (char c : m.name) {
      const char l = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
      if ((l >= 'a' && l <= 'z') || (l >= '0' && l <= '9')) s += l;
      else if (!s.empty() && s.back() != '-') s += '-';
    }
    while (!s.empty() && s.back() == '-') s.pop_back();
    if (s.empty()) s = "metric";
    std::string unique = s;
    for (int k = 2; std::find(out.begin(), out.end(), unique) != out.end(); ++k) unique = fmt::format("{}-{}", s, k);
    out.push_back(unique);
  }
  return out;
}

// The x label of a configuration in the strip plot: its dose (or the counter measured
// alone), its layout, and "A/A" for the duplicate baseline.
std::string strip_label(const Plan& plan, const Configuration& c) {
  std::string first;
  if (on_dose_axis(c.level)) first = fmt::format("dose {}", c.level.dose);
  else if (c.solo_of && *c.solo_of < plan.spec.counters.size()) first = plan.spec.counters[*c.solo_of] + " alone";
  else first = c.level.label;
  return first + "\n" + std::string(to_string(c.layout)) + (c.aa_duplicate ? "\nA/A copy" : "");
}

// ---- page sections ----------------------------------------------------------------

constexpr const char* kStyle = R"(
:root { --fg:#1b1b1b; --muted:#5f5f5f; --rule:#d9d9d9; }
* { box-sizing: border-box; }
body { font-family: system-ui, -apple-system, "Segoe UI", Roboto, "DejaVu Sans", sans-serif; color: var(--fg);
       margin: 0 auto; padding: 1.5rem; max-width: 1280px; line-height: 1.45; }
h1 { font-size: 1.5rem; margin: 0 0 .25rem; }
h2 { font-size: 1.2rem; border-bottom: 1px solid var(--rule); padding-bottom: .2rem; margin-top: 2rem; }
h3 { font-size: 1.05rem; margin: 1.2rem 0 .4rem; }
code, pre { font-family: ui-monospace, "DejaVu Sans Mono", monospace; font-size: .9em; }
pre { background: #f6f6f6; padding: .6rem .8rem; overflow-x: auto; white-space: pre-wrap; }
.meta { color: var(--muted); margin: .2rem 0; }
table { border-collapse: collapse; margin: .5rem 0; font-size: .92rem; }
th, td { border-bottom: 1px solid var(--rule); padding: .3rem .6rem; text-align: left; vertical-align: top; }
th { background: #f2f2f2; }
td.num { font-variant-numeric: tabular-nums; white-space: nowrap; }
td.reason { color: var(--muted); font-size: .88rem; padding-top: 0; }
tr.verdict-row td { border-bottom: none; }
td code { overflow-wrap: anywhere; }
.badge { display: inline-block; padding: .05rem .45rem; border-radius: .25rem; font-weight: 600; white-space: nowrap; }
.badge.verdict-perturbed { background: #fde0dc; color: #a1241a; }
.badge.verdict-layout { background: #fff1cc; color: #7a4f00; }
.badge.verdict-not-perturbed { background: #dff1e6; color: #1c623f; }
.badge.verdict-incomparable { background: #f1e0f6; color: #6e1c91; }
.badge.verdict-inconclusive { background: #ececec; color: #4a4a4a; }
tr.verdict-row td:first-child { border-left: 4px solid #bdbdbd; white-space: nowrap; }
tr.verdict-perturbed td:first-child { border-left-color: #d55e00; }
tr.verdict-layout td:first-child { border-left-color: #e69f00; }
tr.verdict-not-perturbed td:first-child { border-left-color: #009e73; }
tr.verdict-incomparable td:first-child { border-left-color: #cc79a7; }
table.verdicts { width: 100%; }
table.doctor td:nth-child(2) code { white-space: nowrap; }
table.doctor td:last-child code { white-space: pre-wrap; overflow-wrap: anywhere; }
tr.metric-head td { background: #fafafa; font-weight: 600; }
.warn { color: #7a4f00; }
.bad { color: #a1241a; }
.figures { display: flex; flex-wrap: wrap; gap: 1rem; align-items: flex-start; }
figure { margin: 0; }
figure svg { max-width: 100%; height: auto; }
figcaption { color: var(--muted); font-size: .85rem; max-width: 600px; }
ul.summary { list-style: none; padding: 0; display: flex; flex-wrap: wrap; gap: .4rem 1.2rem; }
ul.answer { list-style: none; padding: 0; font-family: ui-monospace, monospace; white-space: pre-wrap; }
@media print {
  body { max-width: none; padding: 0; font-size: 10pt; }
  * { -webkit-print-color-adjust: exact; print-color-adjust: exact; }
  section.metric, figure, table { break-inside: avoid; page-break-inside: avoid; }
  h2 { break-after: avoid; page-break-after: avoid; }
  details > summary { list-style: none; }
}
)";


std::string header_section(const Plan& plan, const Findings& f, const CheckContext& ctx) {
  std::string out = "<header>\n<h1>obscheck: does measuring change what is measured?</h1>\n";
  out += fmt::format("<p class=\"meta\">target <code>{}</code></p>\n", escape(page_command_line(ctx)));
  out += fmt::format(
      "<p class=\"meta\">mode {}; {} measured blocks × {} configurations = {} runs; seed {}; margin ε = {}</p>\n",
      escape(ctx.mode.empty() ? "external" : ctx.mode), f.measured_blocks, plan.block_size(),
      f.measured_blocks * plan.block_size(), ctx.seed, format_margin(f.margin));
  out += fmt::format(
      "<p class=\"meta\">journal <code>{}</code>; {} runs analysed, {} warm-up runs dropped; {} of {} planned runs "
      "done{}</p>\n",
      escape(ctx.journal_path.empty() ? "(none)" : ctx.journal_path), f.runs, f.warmup_runs_dropped, ctx.runs_done,
      ctx.runs_planned, ctx.complete ? "" : " <strong class=\"warn\">(incomplete)</strong>");
  if (!ctx.backend.empty()) {
    out += "<ul class=\"backend\">\n";
    for (const std::string& line : ctx.backend) out += fmt::format("<li>{}</li>\n", escape(line));
    out += "</ul>\n";
  }
  out += html_warnings(ctx.warnings);
  return out + "</header>\n";
}

// The answer in words first, as the text report opens (summary_lines), then a badge
// per metric that links to its figures.
std::string summary_section(const Plan& plan, const Findings& f, const CheckContext& ctx) {
  std::string answer;
  for (const std::string& line : summary_lines(plan, f, ctx)) answer += "<li>" + escape(line) + "</li>\n";
  std::string items;
  for (std::size_t m = 0; m < f.metrics.size() && m < f.metric_verdicts.size(); ++m) {
    if (comparisons_of(f, m).empty()) continue;
    // A metric that is not judged (the profiler's cost) has no badge: it has no verdict.
    items += fmt::format("<li><a href=\"#metric-{}\">{}</a> {}</li>\n", escape(slugs(f)[m]), escape(f.metrics[m].name),
                         f.metrics[m].judged           ? html_verdict_badge(f.metric_verdicts[m])
                         : !f.metrics[m].hidden.empty() ? escape(f.metrics[m].hidden) + ", no verdict"
                                                        : std::string("(the profiler's cost, no verdict)"));
  }
  if (items.empty() && answer.empty()) return "";
  return "<section id=\"summary\">\n<h2>Summary</h2>\n<ul class=\"answer\">\n" + answer + "</ul>\n" +
         (items.empty() ? "" : "<ul class=\"summary\">\n" + items + "</ul>\n") + "</section>\n";
}

std::string verdict_section(const Plan& plan, const Findings& f) {
  std::string out = "<section id=\"verdicts\">\n<h2>Verdicts</h2>\n";
  if (f.verdicts.empty()) return out + "<p>No verdicts yet: no measured block has completed.</p>\n</section>\n";
  out += fmt::format(
      "<p class=\"meta\">Effect of each level against its reference, {}; margin ε = {}.</p>\n",
      f.deterministic ? "exact (deterministic simulated counts: no interval)" : "with its confidence interval",
      format_margin(f.margin));
  out += "<table class=\"verdicts\">\n<thead><tr><th>level</th>";
  for (Layout l : plan.spec.layouts) out += fmt::format("<th>{}</th>", to_string(l));
  out += "<th>verdict</th></tr></thead>\n<tbody>\n";
  const std::size_t columns = plan.spec.layouts.size() + 2;  // level, the layouts, verdict
  for (std::size_t m = 0; m < f.metrics.size(); ++m) {
    bool first = true;
    for (const LevelVerdict& v : f.verdicts) {
      if (v.metric != m) continue;
      if (first && m < f.metric_verdicts.size())
        out += fmt::format("<tr class=\"metric-head\"><td colspan=\"{}\">{} ({}) {}</td></tr>\n", columns,
                           escape(f.metrics[m].name + (f.metrics[m].scope.empty() ? "" : " (" + f.metrics[m].scope + ")")),
                           escape(f.metrics[m].unit), html_verdict_badge(f.metric_verdicts[m]));
      first = false;
      out += fmt::format("<tr class=\"verdict-row verdict-{}\" data-metric=\"{}\" data-level=\"{}\"><td><code>{}</code></td>",
                         verdict_key(v.verdict), escape(f.metrics[m].name), escape(v.level_label),
                         escape(v.level_label));
      for (Layout l : plan.spec.layouts) out += fmt::format("<td class=\"num\">{}</td>", escape(cell_text(f, cell(f, v, l))));
      // The reason gets a full-width row of its own: a column of it squeezes the table.
      out += fmt::format("<td>{}</td></tr>\n<tr class=\"reason-row\"><td colspan=\"{}\" class=\"reason\">{}</td></tr>\n",
                         html_verdict_badge(v.verdict), columns, escape(v.reason));
    }
  }
  return out + "</tbody>\n</table>\n</section>\n";
}

std::string aa_section(const Plan& plan, const Findings& f) {
  std::string out = "<section id=\"aa\">\n<h2>A/A control</h2>\n";
  std::vector<const Comparison*> aa;
  for (const Comparison& c : f.comparisons)
    if (c.aa) aa.push_back(&c);
  if (aa.empty()) return out + "<p>No paired blocks yet.</p>\n</section>\n";
  // The same words as the text report: what the A/A tested, never more.
  out += f.aa.ok ? "<p>" + escape(aa_line(f)) + ".</p>\n"
                 : fmt::format("<p class=\"bad\"><strong>FAILED</strong>: {}</p>\n",
                               escape(f.aa.reason.empty() ? "a difference between identical runs" : f.aa.reason));
  out += "<table class=\"aa\">\n<thead><tr><th>metric</th><th>configuration</th><th>effect [CI]</th><th>n</th>"
         "<th>p</th><th>within ε</th></tr></thead>\n<tbody>\n";
  for (const Comparison* c : aa)
    out += fmt::format("<tr><td>{}</td><td><code>{}</code></td><td class=\"num\">{}</td><td class=\"num\">{}</td>"
                       "<td class=\"num\">{}</td><td>{}</td></tr>\n",
                       escape(metric_name(f, c->metric)), escape(config_id(plan, c->config)), escape(cell_text(f, c)),
                       c->n, format_p(c->p_value), c->equivalent ? "yes" : "no");
  return out + "</tbody>\n</table>\n</section>\n";
}

std::string incomparable_section(const Plan& plan, const Findings& f) {
  if (f.incomparable.empty()) return "";
  std::string out = fmt::format("<section id=\"incomparable\">\n<h2>Incomparable runs ({})</h2>\n", f.incomparable.size());
  out += "<table>\n<thead><tr><th>run</th><th>configuration</th><th>why</th></tr></thead>\n<tbody>\n";
  for (std::size_t i = 0; i < f.incomparable.size() && i < kIncomparableOnPage; ++i) {
    const IncomparableRun& r = f.incomparable[i];
    out += fmt::format("<tr><td class=\"num\">{}</td><td><code>{}</code></td><td>{}</td></tr>\n", r.run_index,
                       escape(config_id(plan, r.config)), escape(r.why));
  }
  out += "</tbody>\n</table>\n";
  if (f.incomparable.size() > kIncomparableOnPage)
    out += fmt::format("<p class=\"meta\">… and {} more (see the JSON report).</p>\n",
                       f.incomparable.size() - kIncomparableOnPage);
  return out + "</section>\n";
}

// Per counter: its determinism, then per configuration the running fraction (min /
// median), the runs and what its readings were (exact, scaled, never ran, faults).
std::string counters_section(const Plan& plan, const Findings& f) {
  if (f.counters.empty()) return "";
  std::string out = fmt::format("<section id=\"counters\">\n<h2>Counters</h2>\n<p class=\"meta\">{}</p>\n<ul>\n",
                                escape(report_text::kValidityHeading));
  for (const CounterValidity& v : f.counters)
    out += fmt::format("<li><code>{}</code> <span class=\"determinism\" data-determinism=\"{}\">{}</span>: {}</li>\n",
                       escape(metric_name(f, v.metric)), determinism_key(v.determinism),
                       determinism_key(v.determinism), escape(v.determinism_text));
  out += "</ul>\n<table class=\"counters\">\n<thead><tr><th>counter</th><th>configuration</th><th>runs</th>"
         "<th>running min</th><th>running median</th><th>readings</th></tr></thead>\n<tbody>\n";
  for (const CounterValidity& v : f.counters)
    for (const CounterRunning& c : v.configs)
      out += fmt::format("<tr data-metric=\"{}\" data-config=\"{}\"><td>{}</td><td><code>{}</code></td>"
                         "<td class=\"num\">{}</td><td class=\"num\">{}</td><td class=\"num\">{}</td><td>{}</td></tr>\n",
                         escape(metric_name(f, v.metric)), escape(config_id(plan, c.config)),
                         escape(metric_name(f, v.metric)), escape(config_id(plan, c.config)), c.runs,
                         report_text::running_text(c.running_min), report_text::running_text(c.running_median),
                         escape(report_text::validity_state(c)));
  return out + "</tbody>\n</table>\n</section>\n";
}

std::string notes_section(const Findings& f) {
  if (f.notes.empty()) return "";
  std::string out = "<section id=\"notes\">\n<h2>Notes</h2>\n<ul>\n";
  for (const std::string& n : f.notes) out += fmt::format("<li>{}</li>\n", escape(n));
  return out + "</ul>\n</section>\n";
}

// Under the effect curve: what each dose is, the reference, the interval drawn.
std::string metric_caption(const Plan& plan, const Findings& f, std::size_t m) {
  const auto cs = comparisons_of(f, m);
  std::string out = "<figcaption>";
  std::vector<std::string> doses;
  for (std::size_t li : dose_axis(plan))
    doses.push_back(fmt::format("{} = <code>{}</code>", plan.spec.levels[li].dose, escape(plan.spec.levels[li].label)));
  const std::size_t ref = cs.front()->baseline < plan.configs.size() ? plan.configs[cs.front()->baseline].level_index
                                                                     : plan.spec.levels.size();
  out += "Dose ";
  for (std::size_t i = 0; i < doses.size(); ++i) out += (i ? ", " : "") + doses[i];
  out += fmt::format(". Reference (0 by definition): <code>{}</code>. {}; shaded: ±ε = {}.",
                     escape(level_label(plan, ref)),
                     f.deterministic ? "Exact counts, so no interval bars"
                                     : "Bars: the " + escape(cs.front()->ci_method) + " interval",
                     format_margin(f.margin));
  out += "</figcaption>\n";
  return out;
}

// Below the figures: the medians behind the effects, the levels measured alone, and
// the trend test.
std::string metric_tables(const Plan& plan, const Findings& f, std::size_t m) {
  const auto cs = comparisons_of(f, m);
  const MetricInfo& info = f.metrics[m];
  const std::size_t ref = cs.front()->baseline < plan.configs.size() ? plan.configs[cs.front()->baseline].level_index
                                                                     : plan.spec.levels.size();
  std::string out;
  // Medians: one row per level with a comparison (the reference first), one column per layout.
  std::vector<std::size_t> levels{ref};
  for (const Comparison* c : cs)
    if (std::find(levels.begin(), levels.end(), c->level_index) == levels.end()) levels.push_back(c->level_index);
  out += "<table class=\"medians\">\n<thead><tr><th>level</th>";
  for (Layout l : plan.spec.layouts) out += fmt::format("<th>{} median</th><th>{} effect [CI]</th>", to_string(l), to_string(l));
  out += "</tr></thead>\n<tbody>\n";
  const auto axis = dose_axis(plan);
  for (std::size_t li : levels) {
    const bool alone = std::find(axis.begin(), axis.end(), li) == axis.end() && li != ref;
    out += fmt::format("<tr><td><code>{}</code>{}{}</td>", escape(level_label(plan, li)), li == ref ? " (reference)" : "",
                       alone ? " (alone, off the dose axis)" : "");
    for (Layout l : plan.spec.layouts) {
      const Comparison* hit = nullptr;
      for (const Comparison* c : cs)
        if (c->layout == l && (li == ref ? c->n > 0 : c->level_index == li)) {
          hit = c;
          break;
        }
      if (!hit || hit->n == 0) {
        out += "<td></td><td></td>";
        continue;
      }
      const double median = li == ref ? hit->median_baseline : hit->median_config;
      out += fmt::format("<td class=\"num\">{}</td><td class=\"num\">{}</td>", escape(format_value(median, info.unit)),
                         li == ref ? "0 (reference)" : escape(cell_text(f, hit)));
    }
    out += "</tr>\n";
  }
  out += "</tbody>\n</table>\n";
  for (const Trend& t : f.trends)
    if (t.metric == m)
      out += fmt::format(
          "<p class=\"meta trend\">Trend with the dose, {}: L = {:g}, p(increasing) = {}, p(decreasing) = {} over {} "
          "levels × {} blocks ({}).</p>\n",
          to_string(t.layout), t.L, format_p(t.p_value), format_p(t.p_decreasing), t.levels, t.blocks,
          escape(t.method));
  return out;
}

std::string metric_section(const Plan& plan, const Findings& f, std::size_t m, const std::string& slug,
                           const std::vector<RunRecord>& runs) {
  const MetricInfo& info = f.metrics[m];
  std::string out = fmt::format("<section class=\"metric\" id=\"metric-{}\">\n<h3>{} ({}){}</h3>\n", escape(slug),
                                escape(info.name), escape(info.unit),
                                m < f.metric_verdicts.size() && info.judged ? " " + html_verdict_badge(f.metric_verdicts[m]) : "");
  out += "<div class=\"figures\">\n<figure class=\"effect\">\n" + effect_curve_svg(plan, f, m);
  out += metric_caption(plan, f, m) + "</figure>\n";
  const std::string strip = runs_strip_svg(plan, f, m, runs);
  if (!strip.empty())
    out += "<figure class=\"runs\">\n" + strip +
           "<figcaption>Every measured run's value per configuration (warm-ups excluded): points jittered sideways "
           "only, the bar is the median, the outline a Gaussian kernel density (Silverman's bandwidth).</figcaption>\n"
           "</figure>\n";
  return out + "</div>\n" + metric_tables(plan, f, m) + "</section>\n";
}

std::string host_section(const CheckContext& ctx, bool env_line = true) {
  std::string out = "<section id=\"host\">\n<h2>Host</h2>\n";
  if (!ctx.host.is_object() || ctx.host.empty()) {
    out += "<p>Host: not recorded.</p>\n";
  } else {
    try {
      HostInfo host;
      from_json(ctx.host, host);
      out += "<pre class=\"host-summary\">" + escape(host_summary_text(host)) + "</pre>\n";
    } catch (const nlohmann::json::exception&) {
      out += fmt::format("<p>Host {} (the recorded host description is malformed).</p>\n",
                         escape(ctx.host.value("hostname", std::string("unknown"))));
    }
  }
  if (env_line)
    out += fmt::format("<p>Target environment: {} bytes.</p>\n",
                       escape(format_value(static_cast<double>(ctx.env_bytes), "count")));
  std::string rows;
  std::size_t info = 0;
  for (const nlohmann::json& d : ctx.doctor) {
    const std::string severity = d.value("severity", std::string("info"));
    if (severity == "info") {
      ++info;
      continue;
    }
    rows += fmt::format("<tr class=\"doctor-{}\"><td class=\"{}\">{}</td><td><code>{}</code></td><td>{}</td>"
                        "<td class=\"reason\">{}</td><td><code>{}</code></td></tr>\n",
                        escape(severity), severity == "blocking" ? "bad" : "warn", escape(severity),
                        escape(d.value("id", std::string("?"))), escape(d.value("what", std::string())),
                        escape(d.value("why", std::string())), escape(d.value("fix", std::string())));
  }
  if (!rows.empty())
    out += "<h3>Doctor warnings</h3>\n<table class=\"doctor\">\n<thead><tr><th>severity</th><th>check</th><th>what</th>"
           "<th>why it matters</th><th>fix</th></tr></thead>\n<tbody>\n" +
           rows + "</tbody>\n</table>\n";
  if (info > 0) out += fmt::format("<p class=\"meta\">{} informational doctor findings (obscheck doctor lists them).</p>\n", info);
  if (ctx.host.is_object() && !ctx.host.empty())
    out += "<details><summary>Full host record</summary>\n<pre>" + escape(ctx.host.dump(2)) + "</pre>\n</details>\n";
  return out + "</section>\n";
}

std::string methods_section(const Plan&, const Findings& f) {
  // Each distinct method, in first-use order, with how many comparisons used it.
  std::vector<std::pair<std::string, std::size_t>> ci, p;
  auto count = [](std::vector<std::pair<std::string, std::size_t>>& v, const std::string& method) {
    if (method.empty()) return;
    for (auto& [name, n] : v)
      if (name == method) {
        ++n;
        return;
      }
    v.emplace_back(method, 1);
  };
  std::vector<std::string> difference;
  std::size_t family = 0;
  for (const Comparison& c : f.comparisons) {
    count(ci, c.ci_method);
    count(p, c.p_method);
    if (!c.aa) ++family;
    if (c.n > 0 && c.scale == Scale::difference &&
        std::find(difference.begin(), difference.end(), metric_name(f, c.metric)) == difference.end())
      difference.push_back(metric_name(f, c.metric));
  }
  std::string out = "<section id=\"methods\">\n<h2>Methods</h2>\n<table class=\"methods\">\n"
                    "<thead><tr><th>what</th><th>method</th><th>comparisons</th></tr></thead>\n<tbody>\n";
  auto row = [&](const std::string& what, const std::string& method, const std::string& n) {
    out += fmt::format("<tr><td>{}</td><td>{}</td><td class=\"num\">{}</td></tr>\n", escape(what), escape(method), n);
  };
  if (f.deterministic) {
    // Exact simulated counts: no interval, test or look to name.
    row("effect", "x_level / x_reference − 1, from one run of each (exact simulated counts)", "");
    row("interval, p-value", "none: the counts are deterministic", std::to_string(f.comparisons.size()));
    row("determinism", "every further run of a configuration, and the A/A copy, must repeat its counts exactly", "");
    row("verdict", fmt::format("beyond {} under held layout: perturbed; within it: not perturbed", format_margin(f.margin)), "");
    row("figures", "SVG written by obscheck (report/svg.h)", "");
    return out + "</tbody>\n</table>\n</section>\n";
  }
  row("effect", "the median of d, d = ln(x_level) − ln(x_reference) per measured block (shown as a ratio − 1)", "");
  for (const auto& [method, n] : ci) row("interval", method, std::to_string(n));
  for (const auto& [method, n] : p) row("p-value", method, std::to_string(n));
  row("multiplicity", fmt::format("Holm over the comparisons of the named counters and wall time (the answer), apart "
                                  "over the other metrics', and the A/A control apart, α = {:g} each", f.alpha),
      std::to_string(family));
  row("equivalence", fmt::format("the interval within {} (two one-sided tests at α = {:g} each)",
                                 format_margin(f.margin), f.alpha), "");
  row("sequential", fmt::format("looked at {} time{}; every look is valid on its own (confidence sequences, "
                                "always-valid p-values)", f.looks_planned, f.looks_planned == 1 ? "" : "s"), "");
  std::vector<std::string> trend;
  for (const Trend& t : f.trends)
    if (std::find(trend.begin(), trend.end(), t.method) == trend.end()) trend.push_back(t.method);
  for (const std::string& t : trend) row("trend with the dose", t, "");
  if (!difference.empty()) {
    std::string names;
    for (const std::string& n : difference) names += (names.empty() ? "" : ", ") + n;
    row("small counts and coarse clocks", "d = x_level − x_reference per run, for " + names, "");
  }
  row("figures", "SVG written by obscheck (report/svg.h); violin: Gaussian KDE, Silverman's rule-of-thumb bandwidth", "");
  return out + "</tbody>\n</table>\n</section>\n";
}

}  // namespace

std::string html_stylesheet() { return kStyle; }

std::string html_verdict_badge(Verdict v) {
  return fmt::format("<span class=\"badge verdict-{}\">{}</span>", verdict_key(v), escape(verdict_text(v)));
}

std::string html_warnings(const std::vector<std::string>& warnings) {
  if (warnings.empty()) return "";
  std::string out = "<ul class=\"warnings\">\n";
  for (const std::string& w : warnings) out += fmt::format("<li class=\"warn\">{}</li>\n", escape(w));
  return out + "</ul>\n";
}

std::string html_host_section(const nlohmann::json& host, const std::vector<nlohmann::json>& doctor) {
  CheckContext ctx;
  ctx.host = host;
  ctx.doctor = doctor;
  return host_section(ctx, false);
}

namespace {

// A comparison has a point on the chart when it has pairs, its effect is on the chart's
// scale and both ends of its interval are finite, or both NaN (an exact count: the
// simulated PMU, a point without a bar). An end the data cannot bound (±inf) has no
// place on a finite axis: the tables give it.
bool drawable(const Comparison& c, Scale scale) {
  if (c.n == 0 || !std::isfinite(c.effect) || c.scale != scale) return false;
  const bool exact = std::isnan(c.ci_lo) && std::isnan(c.ci_hi);
  return exact || (std::isfinite(c.ci_lo) && std::isfinite(c.ci_hi));
}

// The ±margin band: ε in percent, or the comparisons' per-run margin when they share one.
void effect_band(svg::IntervalChart& chart, const Findings& f, const std::vector<const Comparison*>& cs,
                 const EffectAxis& es, const std::string& metric_unit) {
  if (es.scale == Scale::ratio) {
    chart.band = std::make_pair(-pct(f.margin), pct(f.margin));
    chart.band_label = "±ε = " + format_margin(f.margin);
    return;
  }
  for (const Comparison* c : cs)
    if (c->scale == es.scale && c->margin != cs.front()->margin) return;  // margins differ by layout: no one band
  const double m = cs.front()->margin;
  if (!std::isfinite(m)) return;
  chart.band = std::make_pair(-m * es.factor, m * es.factor);
  chart.band_label = "±" + format_value(m, metric_unit) + " per run";
}

// The reference level sits at 0 by definition, at the slot of its dose, so each curve
// starts where the paper's do (the reference of a counter is the counter alone, dose 1).
void add_reference_points(svg::IntervalChart& chart, const Plan& plan, const std::vector<std::size_t>& axis,
                          std::size_t ref, const std::vector<bool>& has_series,
                          const std::vector<std::vector<bool>>& occupied) {
  if (ref >= plan.spec.levels.size()) return;
  const auto& layouts = plan.spec.layouts;
  const int ref_dose = plan.spec.levels[ref].dose;
  for (std::size_t xi = 0; xi < axis.size(); ++xi) {
    if (plan.spec.levels[axis[xi]].dose != ref_dose) continue;
    for (std::size_t si = 0; si < layouts.size(); ++si)
      if (has_series[si] && !occupied[si][xi])
        chart.points.push_back({xi, si, 0.0, std::nan(""), std::nan(""),
                                fmt::format("{}, {}: the reference, 0 by definition", to_string(layouts[si]),
                                            level_label(plan, ref))});
    return;
  }
}

}  // namespace

std::string effect_curve_svg(const Plan& plan, const Findings& f, std::size_t m) {
  if (m >= f.metrics.size()) return "";
  const auto cs = comparisons_of(f, m);
  if (cs.empty()) return "";
  const MetricInfo& info = f.metrics[m];
  const auto axis = dose_axis(plan);
  const auto& layouts = plan.spec.layouts;
  const EffectAxis es = effect_axis(cs, info.unit);

  svg::IntervalChart chart;
  chart.root = {{"class", "plot effect-curve"}, {"data-metric", info.name},
                {"data-scale", es.scale == Scale::ratio ? "ratio" : "difference"}};
  chart.title = info.name + ": effect against the dose";
  chart.x_label = plan.spec.doses_are_counters() ? "dose: counters programmed" : "dose (" + std::string(plan.spec.name()) + ")";
  chart.y_label = "effect on " + info.name + " (" + es.axis_unit + ")";
  chart.unit = es.unit;
  chart.width = kChartWidth;
  chart.height = kChartHeight;
  for (std::size_t li : axis) chart.slots.push_back(std::to_string(plan.spec.levels[li].dose));
  for (Layout l : layouts) {
    const LayoutStyle st = style_of(l);
    chart.series.push_back({std::string(to_string(l)), st.colour, st.shape, {{"data-layout", std::string(to_string(l))}}});
  }
  effect_band(chart, f, cs, es, info.unit);

  const std::size_t ref = cs.front()->baseline < plan.configs.size() ? plan.configs[cs.front()->baseline].level_index
                                                                     : plan.spec.levels.size();
  std::vector<bool> has_series(layouts.size(), false);
  std::vector<std::vector<bool>> occupied(layouts.size(), std::vector<bool>(axis.size(), false));
  for (const Comparison* c : cs) {
    const auto slot = std::find(axis.begin(), axis.end(), c->level_index);
    const auto series = std::find(layouts.begin(), layouts.end(), c->layout);
    if (slot == axis.end() || series == layouts.end() || !drawable(*c, es.scale)) continue;
    const auto si = static_cast<std::size_t>(series - layouts.begin());
    const auto xi = static_cast<std::size_t>(slot - axis.begin());
    has_series[si] = occupied[si][xi] = true;
    chart.points.push_back({xi, si, c->effect * es.factor, c->ci_lo * es.factor, c->ci_hi * es.factor,
                            fmt::format("{}, {}: {} ({} interval), n = {}, Holm p = {:.4g}", to_string(c->layout),
                                        c->level_label, effect_text(*c, f.metrics.at(c->metric).unit), c->ci_method,
                                        c->n, c->p_holm)});
  }
  add_reference_points(chart, plan, axis, ref, has_series, occupied);
  return svg::render(chart);
}

std::string runs_strip_svg(const Plan& plan, const Findings& f, std::size_t m, const std::vector<RunRecord>& runs) {
  if (m >= f.metrics.size() || comparisons_of(f, m).empty()) return "";
  const MetricInfo& info = f.metrics[m];
  std::vector<std::vector<double>> values(plan.configs.size());
  double magnitude = 0;
  for (const RunRecord& r : runs) {
    if (r.warmup || r.config >= plan.configs.size()) continue;
    const std::optional<double> v = metric_value(info, r);
    if (!v || !std::isfinite(*v)) continue;
    values[r.config].push_back(*v);
    magnitude = std::max(magnitude, std::abs(*v));
  }
  const DisplayUnit du = display_unit(info.unit, magnitude);

  svg::DistributionChart chart;
  chart.root = {{"class", "plot runs-strip"}, {"data-metric", info.name}};
  chart.title = info.name + ": every run, per configuration";
  chart.y_label = info.name + " (" + du.name + ")";
  chart.unit = du.unit;
  chart.seed = plan.seed();
  chart.width = kChartWidth;
  chart.height = kChartHeight;
  double longest = 0;
  for (const Configuration& c : plan.configs) {
    if (values[c.index].empty()) continue;
    svg::DistributionGroup g;
    g.label = strip_label(plan, c);
    for (double v : values[c.index]) g.values.push_back(v / du.divisor);
    g.colour = c.aa_duplicate ? svg::kGrey : style_of(c.layout).colour;
    g.attrs = {{"data-config", c.id}, {"data-layout", std::string(to_string(c.layout))}};
    std::size_t start = 0;
    for (;;) {
      const std::size_t nl = g.label.find('\n', start);
      longest = std::max(longest, static_cast<double>(g.label.substr(start, nl - start).size()));
      if (nl == std::string::npos) break;
      start = nl + 1;
    }
    chart.groups.push_back(std::move(g));
  }
  if (chart.groups.empty()) return "";
  // Each group as wide as its longest label line, so labels never run into each other.
  chart.width = std::max(chart.width, 80 + static_cast<double>(chart.groups.size()) * (longest * kGlyphWidth + 10));
  return svg::render(chart);
}

std::vector<std::pair<std::string, std::string>> check_svgs(const Plan& plan, const Findings& f,
                                                            const std::vector<RunRecord>& runs) {
  std::vector<std::pair<std::string, std::string>> out;
  const auto names = slugs(f);
  for (std::size_t m = 0; m < f.metrics.size(); ++m) {
    std::string curve = effect_curve_svg(plan, f, m);
    if (curve.empty()) continue;
    out.emplace_back("effect-" + names[m] + ".svg", std::move(curve));
    std::string strip = runs_strip_svg(plan, f, m, runs);
    if (!strip.empty()) out.emplace_back("runs-" + names[m] + ".svg", std::move(strip));
  }
  return out;
}

std::string check_html(const Plan& plan, const Findings& f, const CheckContext& ctx, const std::vector<RunRecord>& runs) {
  std::string out = "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n";
  out += "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n";
  out += fmt::format("<title>obscheck: {}</title>\n", escape(page_command_line(ctx)));
  out += fmt::format("<style>{}</style>\n</head>\n<body>\n", kStyle);
  out += header_section(plan, f, ctx);
  out += summary_section(plan, f, ctx);
  out += verdict_section(plan, f);
  out += aa_section(plan, f);
  out += incomparable_section(plan, f);
  out += counters_section(plan, f);
  out += notes_section(f);
  const auto names = slugs(f);
  std::string figures;
  for (std::size_t m = 0; m < f.metrics.size(); ++m)
    if (!comparisons_of(f, m).empty()) figures += metric_section(plan, f, m, names[m], runs);
  if (!figures.empty())
    out += "<section id=\"figures\">\n<h2>Effect against the dose, and every run</h2>\n"
           "<p class=\"meta\">Each metric's effect at each dose against its reference level, per layout: "
           "<strong>natural</strong> (the target sees what the observer does to it), <strong>held</strong> "
           "(environment padded to one size), <strong>sham</strong> (the observer announced, one counter "
           "programmed). A curve that rises under natural but stays inside the band under held is the layout "
           "talking, not the measurement.</p>\n" +
           figures + "</section>\n";
  out += host_section(ctx);
  out += methods_section(plan, f);
  out += "</body>\n</html>\n";
  return out;
}

}  // namespace obscheck
