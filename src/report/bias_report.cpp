#include "report/bias_report.h"

#include <fmt/core.h>

#include <algorithm>
#include <cmath>
#include <nlohmann/json.hpp>

#include "report/findings_text.h"
#include "report/measure_report.h"

namespace obscheck {
namespace {

using nlohmann::json;

using report_text::csv_field;
using report_text::num;

std::string join_words(const std::vector<std::string>& w, const char* sep = " ") {
  std::string out;
  for (const auto& s : w) out += (out.empty() ? "" : sep) + s;
  return out;
}

struct Style {
  const char *bold, *dim, *red, *reset;
};
Style style(bool color) {
  return color ? Style{"\x1b[1m", "\x1b[2m", "\x1b[1;31m", "\x1b[0m"} : Style{"", "", "", ""};
}

// What the contexts were, one line.
std::string contexts_line(const SweepReport& r) {
  std::size_t failed = 0;
  for (const auto& c : r.contexts) failed += !c.failure.empty();
  return fmt::format("  {} contexts ({} could not be prepared), {} runs per context and variant, interleaved "
                     "in a seeded random order (seed {}); {} warm-up round{} not analysed\n",
                     r.contexts.size(), failed, r.runs_per_context, r.seed, r.warmup, r.warmup == 1 ? "" : "s");
}

std::string what_context(const SweepContextRecord& c) {
  std::string s;
  if (c.env_pad) s += fmt::format("env {} B (pad {})", c.env_bytes, *c.env_pad);
  if (c.argv0_pad) s += fmt::format("{}argv[0] +{}", s.empty() ? "" : ", ", c.argv0_pad);
  if (c.link_order) s += fmt::format("{}{}", s.empty() ? "" : ", ", join_words(c.objects));
  return s.empty() ? "as given" : s;
}

std::string bias_table(const BiasAnalysis& b, const SweepReport& r, const Style& st) {
  const std::string u = sweep_metric_unit(b.metric);
  std::string out = fmt::format("\n  {}{}{}: geometric mean per context, {:g}% interval (t on logs);\n"
                                "  ratio = mean / median of the context means ({})\n",
                                st.bold, b.metric, st.reset, 100 * (1 - b.alpha),
                                format_value(b.median_of_means, u));
  out += fmt::format("  {:<22} {:<40} {:>12}  {:<27} {:>7}  {}\n", "context", "what", "mean", "CI", "ratio",
                     "ratio CI");
  for (const ContextStat& c : b.contexts) {
    const std::string ci = c.mean_ci ? fmt::format("[{}, {}]", format_value(c.mean_ci->lo, u),
                                                   format_value(c.mean_ci->hi, u))
                                     : "n/a (one run)";
    const std::string rci = c.ratio_ci ? fmt::format("[{:.4f}, {:.4f}]", c.ratio_ci->lo, c.ratio_ci->hi) : "";
    out += fmt::format("  {:<22} {:<40} {:>12}  {:<27} {:>7.4f}  {}\n", c.label, what_context(r.contexts.at(c.id)),
                       format_value(c.mean, u), ci, c.ratio, rci);
  }
  for (const ContextSeries& f : b.failed)
    out += fmt::format("  {:<22} failed: {}\n", f.label, f.failure.substr(0, f.failure.find('\n')));
  out += fmt::format("  ratios over {} contexts: min {:.4f}  q1 {:.4f}  median {:.4f}  q3 {:.4f}  max {:.4f}\n",
                     b.contexts.size(), b.ratio_min, b.ratio_q1, b.ratio_median, b.ratio_q3, b.ratio_max);
  out += fmt::format("  extremes: {} ({:.4f}) and {} ({:.4f}): a swing of {:.2f}%\n",
                     b.contexts[b.lowest].label, b.ratio_min, b.contexts[b.highest].label, b.ratio_max,
                     100 * b.swing);
  if (b.incomparable())
    out += fmt::format("  {}{}{}\n", st.red, scaled_counter_verdict(b.scaled), st.reset);
  else if (b.exact)
    out += fmt::format("  {}{}{}\n", b.exceeds_noise ? st.red : "",
                       b.exceeds_noise ? fmt::format("exact values: the contexts move it by {:.2f}%, beyond ±{:g}%: "
                                                     "measurement bias", 100 * b.swing, 100 * b.margin)
                                       : fmt::format("exact values: the contexts move it by {:.4g}%, within ±{:g}%: "
                                                     "no measurement bias", 100 * b.swing, 100 * b.margin),
                       st.reset);
  else if (b.spread)
    out += fmt::format("  {}{}{}\n", b.exceeds_noise ? st.red : "",
                       b.exceeds_noise ? "the spread across contexts exceeds run-to-run noise: measurement bias"
                                       : "the spread across contexts is within run-to-run noise",
                       st.reset);
  if (b.scaled.scaled() && !b.incomparable()) out += fmt::format("  {}\n", scaled_counter_verdict(b.scaled));
  out += fmt::format("  {}{}{}\n", st.dim, b.method, st.reset);
  return out;
}

std::string comparison_text(const VariantComparison& c, const SweepReport& r, const std::string& title, const Style& st) {
  std::string out = fmt::format("\n  {}{}{}\n", st.bold, title, st.reset);
  out += fmt::format("  verdict: {}{}{}\n", st.bold, c.verdict, st.reset);
  for (std::size_t i = 1; i < c.reasons.size(); ++i) out += fmt::format("           also {}\n", c.reasons[i]);
  if (c.t) {
    const double level = 100 * (1 - r.alpha);
    out += fmt::format("  speedup (baseline / contender, {}): {}   at {:g}%, over {} contexts\n", r.metric,
                       paper_form(c.speedup, c.speedup_half_width), level, c.contexts);
    out += fmt::format("  ratio contender / baseline: {:.4f}, {:g}% CI [{:.4f}, {:.4f}] (paired t over context "
                       "means, log scale, p = {:.3g})\n",
                       c.ratio, level, c.ratio_ci.lo, c.ratio_ci.hi, c.t->p_value);
    if (c.bootstrap)
      out += fmt::format("  two-level bootstrap (contexts, then runs; Kalibera & Jones): {:.4f}, CI [{:.4f}, {:.4f}]\n",
                         c.bootstrap->estimate, c.bootstrap->percentile.lo, c.bootstrap->percentile.hi);
    if (c.tost)
      out += fmt::format("  equivalence within ±{:g}% (TOST): p = {:.3g}, {}\n", 100 * r.margin, c.tost->p_value,
                         c.tost->equivalent ? "shown" : "not shown");
  }
  for (const auto& n : c.notes) out += fmt::format("  note: {}\n", n);
  return out;
}

// A metric's multiplexing (analysis/scaled_counter.h): the facts and their line.
json scaled_json(const ScaledCounter& s) {
  return {{"counter", s.counter},         {"runs", s.runs},
          {"scaled_runs", s.scaled_runs}, {"running_min", num(s.running_min)},
          {"running_median", num(s.running_median)}, {"allowed", s.allowed},
          {"text", scaled_counter_verdict(s)}};
}

json analysis_json(const BiasAnalysis& b) {
  json j;
  j["metric"] = b.metric;
  j["median_of_means"] = num(b.median_of_means);
  j["ratio"] = {{"min", b.ratio_min}, {"q1", b.ratio_q1}, {"median", b.ratio_median}, {"q3", b.ratio_q3},
                {"max", b.ratio_max}};
  j["lowest"] = b.contexts[b.lowest].id;
  j["highest"] = b.contexts[b.highest].id;
  j["swing"] = num(b.swing);
  j["exceeds_noise"] = b.exceeds_noise;
  j["incomparable"] = b.incomparable();
  j["scaled"] = scaled_json(b.scaled);
  j["exact"] = b.exact;
  j["alpha"] = b.alpha;
  j["method"] = b.method;
  if (b.spread)
    j["spread"] = {{"f", num(b.spread->f)},         {"df_between", b.spread->df_between},
                   {"df_within", b.spread->df_within}, {"p_value", num(b.spread->p_value)},
                   {"var_between", b.spread->var_between}, {"var_within", b.spread->var_within},
                   {"icc", b.spread->icc}, {"blocked", b.spread->blocked}, {"df_blocks", b.spread->df_blocks}};
  j["contexts"] = json::array();
  for (const ContextStat& c : b.contexts) {
    json cj = {{"id", c.id}, {"label", c.label}, {"n", c.n}, {"mean", c.mean}, {"median", c.median},
               {"ratio", c.ratio}};
    if (c.mean_ci) cj["mean_ci"] = {c.mean_ci->lo, c.mean_ci->hi};
    if (c.ratio_ci) cj["ratio_ci"] = {c.ratio_ci->lo, c.ratio_ci->hi};
    j["contexts"].push_back(cj);
  }
  j["failed"] = json::array();
  for (const ContextSeries& f : b.failed) j["failed"].push_back({{"id", f.id}, {"label", f.label}, {"failure", f.failure}});
  return j;
}

json comparison_json(const VariantComparison& c) {
  json j;
  j["outcome"] = outcome_name(c.outcome);
  j["equivalent"] = c.outcome == Outcome::equivalent;
  j["verdict"] = c.verdict;
  j["reasons"] = c.reasons;
  j["notes"] = c.notes;
  j["scaled"] = scaled_json(c.scaled);
  j["contexts"] = c.contexts;
  if (c.t) {
    j["ratio"] = c.ratio;
    j["ratio_ci"] = {c.ratio_ci.lo, c.ratio_ci.hi};
    j["speedup"] = c.speedup;
    j["speedup_ci"] = {c.speedup_ci.lo, c.speedup_ci.hi};
    j["speedup_half_width"] = c.speedup_half_width;
    j["paper_form"] = paper_form(c.speedup, c.speedup_half_width);
    j["t"] = {{"t", num(c.t->t)}, {"df", c.t->df}, {"p_value", num(c.t->p_value)}, {"se", c.t->se}};
  }
  if (c.bootstrap)
    j["bootstrap"] = {{"estimate", c.bootstrap->estimate},
                      {"ci", {c.bootstrap->percentile.lo, c.bootstrap->percentile.hi}},
                      {"resamples", c.bootstrap->resamples}};
  if (c.tost) j["tost"] = {{"p_value", c.tost->p_value}, {"equivalent", c.tost->equivalent}};
  j["per_context"] = json::array();
  for (const ContextRatio& r : c.per_context)
    j["per_context"].push_back({{"id", r.id}, {"label", r.label}, {"baseline_mean", r.baseline_mean},
                                {"contender_mean", r.contender_mean}, {"ratio", r.ratio}});
  return j;
}

}  // namespace

std::string sweep_metric_unit(const std::string& metric) {
  return metric == "task-clock" || metric == "cpu-clock" || metric == "wall-time" || metric == "user-time" ? "ns"
                                                                                                           : "count";
}

std::string bias_text(const SweepReport& r, bool color) {
  const Style st = style(color);
  std::string out = fmt::format("{}obscheck bias{}: {}\n", st.bold, st.reset, join_words(r.variants.at(0).argv));
  out += contexts_line(r);
  for (const BiasAnalysis& b : r.bias) out += bias_table(b, r, st);
  for (const auto& c : r.contexts)
    if (!c.failure.empty()) out += fmt::format("\n  context {} could not be prepared: {}\n", c.label, c.failure);
  for (const auto& n : r.notes) out += fmt::format("  note: {}\n", n);
  return out;
}

std::string compare_text(const SweepReport& r, bool color) {
  const Style st = style(color);
  std::string out = fmt::format("{}obscheck compare{}\n", st.bold, st.reset);
  for (const auto& v : r.variants)
    if (v.name != "baseline (A/A)") out += fmt::format("  {:<10} {}\n", v.name + ":", join_words(v.argv));
  out += contexts_line(r);
  if (r.aa) {
    out += comparison_text(*r.aa, r, "A/A control: the baseline against itself in the same contexts", st);
    // A multiplexed counter's A/A is incomparable for what its verdict says, not
    // because the baseline differed from itself.
    if (r.aa->outcome == Outcome::better || r.aa->outcome == Outcome::worse ||
        (r.aa->outcome == Outcome::incomparable && !r.aa->scaled.incomparable()))
      out += fmt::format("  {}WARNING: the baseline differs from itself — nothing below can be trusted "
                         "(noise, drift or a context effect this design does not cancel){}\n",
                         st.red, st.reset);
  }
  if (r.comparison) out += comparison_text(*r.comparison, r, "baseline against contender", st);
  for (const auto& n : r.notes) out += fmt::format("  note: {}\n", n);
  return out;
}

std::string sweep_json(const SweepReport& r) {
  json j;
  j["command"] = std::string(to_string(r.command));
  j["seed"] = r.seed;
  j["runs_per_context"] = r.runs_per_context;
  j["warmup"] = r.warmup;
  j["events"] = r.events;
  j["metric"] = r.metric;
  j["pad_variable"] = r.pad_name;
  j["variants"] = json::array();
  for (const auto& v : r.variants)
    j["variants"].push_back({{"name", v.name}, {"argv", v.argv}, {"binary_sha256", v.binary_sha256}});
  j["contexts"] = json::array();
  for (const auto& c : r.contexts) {
    json cj = {{"id", c.id}, {"label", c.label}, {"env_bytes", c.env_bytes}, {"argv0_pad", c.argv0_pad}};
    cj["env_pad"] = c.env_pad ? json(*c.env_pad) : json(nullptr);
    cj["link_order"] = c.link_order ? json(*c.link_order) : json(nullptr);
    if (c.link_order) {
      cj["objects"] = c.objects;
      cj["binary"] = c.binary;
      cj["binary_sha256"] = c.binary_sha256;
    }
    if (!c.failure.empty()) cj["failure"] = c.failure;
    j["contexts"].push_back(cj);
  }
  j["runs"] = json::array();
  for (const auto& run : r.runs) {
    json rj = {{"seq", run.seq},         {"round", run.round},   {"context", run.context},
               {"variant", run.variant}, {"env_bytes", run.env_bytes}, {"argv", run.argv},
               {"binary", run.binary},   {"binary_sha256", run.binary_sha256}, {"ok", run.ok},
               {"status", run.status},   {"wall_ns", run.wall_ns}, {"multiplexed", run.multiplexed},
               {"output_digest", run.output_digest}, {"first_line", run.first_line}};
    json m = json::object(), running = json::object();
    for (const auto& [name, v] : run.metrics) m[name] = num(v);
    for (const auto& [name, f] : run.running) running[name] = num(f);
    rj["metrics"] = m;
    rj["running_fraction"] = running;
    rj["stack_address"] = run.stack_address ? json(fmt::format("{:#x}", *run.stack_address)) : json(nullptr);
    if (!run.failure.empty()) rj["failure"] = run.failure;
    j["runs"].push_back(rj);
  }
  if (!r.bias.empty()) {
    j["analyses"] = json::array();
    for (const auto& b : r.bias) j["analyses"].push_back(analysis_json(b));
  }
  j["allow_multiplex"] = r.allow_multiplex;
  if (r.command == JobKind::compare) {
    j["margin"] = r.margin;
    j["alpha"] = r.alpha;
    j["aa"] = r.aa ? comparison_json(*r.aa) : json(nullptr);
    j["comparison"] = r.comparison ? comparison_json(*r.comparison) : json(nullptr);
  }
  j["notes"] = r.notes;
  return j.dump(2) + "\n";
}

std::string sweep_csv(const SweepReport& r) {
  std::vector<std::string> names;
  for (const auto& run : r.runs)
    for (const auto& [name, v] : run.metrics)
      if (std::find(names.begin(), names.end(), name) == names.end()) names.push_back(name);
  std::vector<std::string> counters;  // those with a running fraction
  for (const auto& run : r.runs)
    for (const auto& [name, f] : run.running)
      if (std::find(counters.begin(), counters.end(), name) == counters.end()) counters.push_back(name);
  std::string out = "seq,round,context,label,variant,env_pad,env_bytes,argv0_pad,link_order,binary_sha256,ok,status";
  for (const auto& n : names) out += "," + csv_field(n);
  for (const auto& n : counters) out += "," + csv_field(n + ":running");
  out += ",stack_address,first_line\n";
  for (const auto& run : r.runs) {
    const SweepContextRecord& c = r.contexts.at(run.context);
    out += fmt::format("{},{},{},{},{},{},{},{},{},{},{},{}", run.seq, run.round, run.context, csv_field(c.label),
                       csv_field(r.variants.at(run.variant).name), c.env_pad ? std::to_string(*c.env_pad) : "",
                       run.env_bytes, c.argv0_pad, c.link_order ? std::to_string(*c.link_order) : "",
                       run.binary_sha256, run.ok ? 1 : 0, csv_field(run.status));
    for (const auto& n : names) {
      std::string cell;
      for (const auto& [name, v] : run.metrics)
        if (name == n && std::isfinite(v)) cell = fmt::format("{}", v);
      out += "," + cell;
    }
    for (const auto& n : counters) {
      std::string cell;
      for (const auto& [name, f] : run.running)
        if (name == n && std::isfinite(f)) cell = fmt::format("{}", f);
      out += "," + cell;
    }
    out += fmt::format(",{},{}\n", run.stack_address ? fmt::format("{:#x}", *run.stack_address) : "",
                       csv_field(run.first_line));
  }
  return out;
}

}  // namespace obscheck
