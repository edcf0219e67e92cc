// report/check: the terminal text: the header, the verdict table, the A/A control's and
// incomparable runs' sections, the counters' validity, a text plot of effect against
// dose per metric, the host, and the methods; ANSI colour on request.
#include "report/check_report.h"
#include "report/check_report_internal.h"

#include <fmt/core.h>

#include <algorithm>
#include <cmath>
#include <set>
#include <sstream>

#include "host/host_info.h"
#include "report/display_unit.h"
#include "report/doctor_report.h"
#include "report/measure_report.h"
#include "report/textplot.h"

namespace obscheck {
namespace check_report_detail {
namespace {

// Level labels grow with the counter list ("4[cycles,instructions,l1d,llc]"); past this
// width a label gets a line of its own so the table stays within ~120 columns.
constexpr std::size_t kLevelColumnMax = 28;
// A terminal's customary width; the verdict column moves onto the reason line when a
// row would pass it (three layouts with two-decimal effects do).
constexpr std::size_t kTableWidth = 120;

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

// "= 0.0123", "< 0.0001", "= n/a": the relation and the value, ready after "p".
std::string p_clause(double p) {
  if (!std::isfinite(p)) return "= n/a";
  if (p < 1e-4) return "< 0.0001";
  return fmt::format("= {:.4f}", p);
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

}  // namespace
}  // namespace check_report_detail

std::string check_text(const Plan& plan, const Findings& f, const CheckContext& ctx, bool color) {
  namespace detail = check_report_detail;
  const detail::Palette pal(color);
  std::string out = detail::text_header(plan, f, ctx, pal) + "\n";
  for (const std::string& line : summary_lines(plan, f, ctx)) out += detail::wrap_line(line, 2, detail::kTableWidth);
  if (ctx.summary_only) return out + "  detail: obscheck report " + ctx.journal_path + "\n";
  out += "\n";
  out += detail::verdict_table(plan, f, pal, ctx.verbose);
  if (const std::string line = detail::to_decide_line(f, ctx); !line.empty()) out += line + "\n";
  out += "\n" + detail::aa_section(plan, f, pal);
  out += detail::incomparable_section(plan, f, pal);
  out += detail::counter_validity_section(plan, f);
  for (const auto& n : f.notes) out += "note: " + n + "\n";
  for (const auto& w : ctx.warnings) out += pal.paint(pal.yellow, "warning:") + " " + w + "\n";
  for (const Observation& o : ctx.observations) out += "observer: " + observation_text(o) + "\n";
  for (std::size_t m = 0; m < f.metrics.size() && ctx.verbose; ++m)
    if (const std::string cost = detail::profiler_cost_text(plan, f, m); !cost.empty())
      out += "observer: profiler's cost, no verdict: " + cost + "\n";
  for (const auto& w : ctx.sweep) out += "sweep: " + w + "\n";
  for (std::size_t m = 0; m < f.metrics.size(); ++m) {
    const Verdict worst = m < f.metric_verdicts.size() ? f.metric_verdicts[m] : Verdict::inconclusive;
    if (!ctx.verbose && f.metrics[m].driver && f.metrics[m].name != "wall-time" &&
        (worst == Verdict::not_perturbed || worst == Verdict::inconclusive))
      continue;
    const std::string plot = detail::metric_plot(plan, f, m, pal);
    if (!plot.empty()) out += "\n" + plot;
  }
  out += "\n" + detail::host_section(ctx, pal);
  out += "\nmethods:\n";
  for (const auto& line : detail::methods_lines(plan, f)) out += "  " + pal.paint(pal.dim, line) + "\n";
  return out;
}

std::string observation_text(const Observation& o) {
  const std::string what = o.unit == "count" ? o.what : fmt::format("{} ({})", o.what, o.unit);
  const std::string range = o.min == o.max ? fmt::format("{:.{}f}", o.min, o.digits)
                                           : fmt::format("{:.{}f}..{:.{}f} (mean {:.{}f})", o.min, o.digits, o.max,
                                                         o.digits, o.mean, o.digits);
  return fmt::format("{}: {} per run = {}", o.level, what, range);
}

}  // namespace obscheck
