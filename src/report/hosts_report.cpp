#include "report/hosts_report.h"

#include <fmt/core.h>
#include <fmt/format.h>

#include <cmath>
#include <nlohmann/json.hpp>

#include "report/html_page.h"
#include "report/svg.h"

namespace obscheck {
namespace {

// The pooled or a host's effect as the check prints one, through a comparison.
Comparison as_comparison(Scale scale, double margin, double effect, double lo, double hi) {
  Comparison c;
  c.scale = scale;
  c.margin = margin;
  c.effect = effect;
  c.ci_lo = lo;
  c.ci_hi = hi;
  return c;
}

std::string unit_of(const HostsFindings& f, const std::string& metric) {
  for (const MetricInfo& m : f.metrics)
    if (m.name == metric) return m.unit;
  return "";
}

std::string heterogeneity_text(const PooledEffect& p) {
  if (p.pooled_hosts < 2 || p.blocks_within > 0) return "";
  if (p.p_heterogeneity < 0.05)
    return fmt::format("the effect differs between hosts (Cochran's Q = {:.3g}, p = {:.2g}, I² = {:.0f}%)", p.q,
                       p.p_heterogeneity, 100 * p.i2);
  return fmt::format("no evidence that the hosts differ (Q = {:.3g}, p = {:.2g})", p.q, p.p_heterogeneity);
}

nlohmann::json num_json(double v) { return std::isfinite(v) ? nlohmann::json(v) : nlohmann::json(); }

}  // namespace

std::string hosts_text(const Plan& plan, const HostsFindings& f, const MergeContext& ctx) {
  std::string out = fmt::format("obscheck: {} journals of plan {} ({} blocks of {}), from {} host{}\n",
                                ctx.journals.size(), ctx.plan_digest.substr(0, 12),
                                plan.spec.fixed_blocks ? *plan.spec.fixed_blocks : 0, ctx.target, f.hosts.size(),
                                f.hosts.size() == 1 ? "" : "s");
  std::size_t total = 0;
  for (const MergedJournal& j : ctx.journals) {
    out += fmt::format("  shard {}/{} on {}: {} runs{} ({})\n", j.shard, j.shards, j.host, j.runs,
                       j.runs_taken != j.runs ? fmt::format(", {} taken (its warm-up ran on this host already)", j.runs_taken) : "",
                       j.path);
    total += j.runs_taken;
  }
  out += fmt::format("  {} runs merged, each once\n", total);
  for (const std::string& w : ctx.warnings) out += "  warning: " + w + "\n";
  out += "hosts by CPU model:\n";
  for (const auto& [model, names] : f.cpu_models)
    out += fmt::format("  {}: {}\n", model, fmt::join(names, ", "));
  out += "\n";
  std::string metric;
  for (const PooledEffect& p : f.pooled) {
    if (p.metric != metric) {
      metric = p.metric;
      out += metric + "\n";
    }
    const std::string unit = unit_of(f, p.metric);
    const Comparison pc = as_comparison(p.scale, p.margin, p.effect, p.lo, p.hi);
    if (p.hosts.size() == 1)
      out += fmt::format("  {}: {} — {}", p.level, p.pooled_hosts ? effect_text(pc, unit) : std::string("n/a"),
                         verdict_text(p.verdict));
    else if (p.blocks_within > 0)
      out += fmt::format("  {}: pooled {} — {} in all {} blocks of the {} hosts (an effect on at least 1 run in {} "
                         "would have shown{}) — {}; perturbed on {} of {} hosts",
                         p.level, effect_text(pc, unit), p.equal ? "equal" : "within " + margin_text(pc, unit),
                         p.blocks_within, p.hosts.size(), intermittent_covered(p.blocks_within, (1 - p.coverage) / 2, p.cover_doses),
                         p.cover_doses == 2   ? std::string(" at both doses together")
                         : p.cover_doses > 2 ? fmt::format(" at all {} doses together", p.cover_doses)
                                             : std::string{},
                         verdict_text(p.verdict), p.perturbed_hosts, p.hosts.size());
    else if (p.pooled_hosts > 0)
      out += fmt::format("  {}: pooled {} ({:.0f}%, hosts as a random factor) — {}; perturbed on {} of {} hosts", p.level,
                         effect_text(pc, unit), 100 * p.coverage, verdict_text(p.verdict), p.perturbed_hosts,
                         p.hosts.size());
    else
      out += fmt::format("  {}: not pooled: {}; perturbed on {} of {} hosts", p.level, p.note, p.perturbed_hosts,
                         p.hosts.size());
    out += "\n";
    if (const std::string h = heterogeneity_text(p); !h.empty()) out += "    " + h + "\n";
    if (p.hosts.size() > 1)
      for (const HostVerdict& h : p.hosts)
        out += fmt::format("    {}: {} — {}\n", h.host,
                         std::isfinite(h.effect) ? effect_text(as_comparison(p.scale, p.margin, h.effect, h.lo, h.hi), unit)
                                                 : std::string("n/a"),
                         verdict_text(h.verdict));
  }
  return out;
}

std::string hosts_json(const Plan& plan, const HostsFindings& f, const MergeContext& ctx) {
  using nlohmann::json;
  json j;
  j["schema"] = "obscheck-hosts-report";
  j["plan_digest"] = ctx.plan_digest;
  j["target"] = ctx.target;
  j["blocks"] = plan.spec.fixed_blocks ? json(*plan.spec.fixed_blocks) : json();
  j["journals"] = json::array();
  std::size_t total = 0;
  for (const MergedJournal& m : ctx.journals) {
    j["journals"].push_back({{"path", m.path}, {"shard", m.shard}, {"shards", m.shards}, {"host", m.host},
                             {"runs", m.runs}, {"runs_taken", m.runs_taken}});
    total += m.runs_taken;
  }
  j["runs"] = total;
  j["warnings"] = ctx.warnings;
  j["hosts"] = json::array();
  for (const HostRuns& h : f.hosts)
    j["hosts"].push_back({{"name", h.name}, {"cpu_model", h.cpu_model}, {"shards", h.shards}, {"runs", h.runs.size()}});
  j["cpu_models"] = f.cpu_models;
  j["pooled"] = json::array();
  for (const PooledEffect& p : f.pooled) {
    json hosts = json::array();
    for (const HostVerdict& h : p.hosts)
      hosts.push_back({{"host", h.host}, {"verdict", verdict_key(h.verdict)}, {"effect", num_json(h.effect)},
                       {"ci_lo", num_json(h.lo)}, {"ci_hi", num_json(h.hi)}, {"n", h.n}});
    j["pooled"].push_back({{"metric", p.metric},
                           {"level", p.level},
                           {"scale", to_string(p.scale)},
                           {"margin", p.margin},
                           {"pooled_hosts", p.pooled_hosts},
                           {"effect", p.pooled_hosts ? num_json(p.effect) : json()},
                           {"ci_lo", p.pooled_hosts ? num_json(p.lo) : json()},
                           {"ci_hi", p.pooled_hosts ? num_json(p.hi) : json()},
                           {"coverage", p.coverage},
                           {"tau", p.tau},
                           {"q", p.q},
                           {"p_heterogeneity", p.p_heterogeneity},
                           {"i2", p.i2},
                           {"verdict", verdict_key(p.verdict)},
                           {"perturbed_hosts", p.perturbed_hosts},
                           {"note", p.note},
                           {"blocks_within", p.blocks_within},
                           {"equal", p.equal},
                           {"hosts", hosts}});
  }
  return j.dump(2) + "\n";
}

namespace {

using svg::escape;

// An effect on the chart's y axis: percent on the ratio scale, the value otherwise.
double chart_y(Scale scale, double v) { return scale == Scale::ratio ? 100 * v : v; }

std::string forest_svg(const PooledEffect& p, const std::string& unit) {
  svg::IntervalChart c;
  c.root = {{"class", "plot hosts-forest"}, {"data-metric", p.metric}, {"data-level", p.level}};
  c.title = fmt::format("{} at {}: each host, then pooled", p.metric, p.level);
  c.x_label = "host";
  c.y_label = p.scale == Scale::ratio ? "effect (%)" : "effect (" + unit + " per run)";
  c.unit = p.scale == Scale::ratio ? "%" : "";
  c.connect = false;
  c.width = kChartWidth;
  c.height = kChartHeight;
  c.series = {{"hosts", svg::kBlue, svg::Marker::circle, {{"data-series", "host"}}},
              {"pooled (hosts as a random factor)", svg::kVermillion, svg::Marker::diamond, {{"data-series", "pooled"}}}};
  c.band = std::pair{chart_y(p.scale, -p.margin), chart_y(p.scale, p.margin)};
  c.band_label = "±ε";
  for (std::size_t h = 0; h < p.hosts.size(); ++h) {
    const HostVerdict& v = p.hosts[h];
    c.slots.push_back(v.host);
    c.points.push_back({h, 0, std::isfinite(v.effect) ? chart_y(p.scale, v.effect) : NAN, chart_y(p.scale, v.lo),
                        chart_y(p.scale, v.hi), fmt::format("{}: {}", v.host, verdict_text(v.verdict))});
  }
  if (p.hosts.size() > 1 && p.pooled_hosts > 0) {
    c.slots.push_back("pooled");
    c.points.push_back({p.hosts.size(), 1, chart_y(p.scale, p.effect), chart_y(p.scale, p.lo), chart_y(p.scale, p.hi),
                        fmt::format("pooled over {} hosts: {}", p.pooled_hosts, verdict_text(p.verdict))});
  }
  return svg::render(c);
}

}  // namespace

std::string hosts_html(const Plan& plan, const HostsFindings& f, const MergeContext& ctx) {
  std::string out = "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n";
  out += "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n";
  out += fmt::format("<title>obscheck: {} on {} hosts</title>\n", escape(ctx.target), f.hosts.size());
  out += fmt::format("<style>{}</style>\n</head>\n<body>\n", html_stylesheet());
  out += "<header>\n<h1>obscheck: one plan on several hosts</h1>\n";
  out += fmt::format("<p class=\"meta\">target <code>{}</code>; plan {}; {} blocks</p>\n", escape(ctx.target),
                     escape(ctx.plan_digest.substr(0, 12)), plan.spec.fixed_blocks ? *plan.spec.fixed_blocks : 0);
  std::size_t total = 0;
  std::string journals;
  for (const MergedJournal& j : ctx.journals) {
    total += j.runs_taken;
    journals += fmt::format("<tr><td>{}/{}</td><td>{}</td><td>{}</td><td>{}</td><td><code>{}</code></td></tr>\n",
                            j.shard, j.shards, escape(j.host), j.runs, j.runs_taken, escape(j.path));
  }
  out += fmt::format("<p class=\"meta\">{} journals from {} host{}; {} runs merged, each once</p>\n",
                     ctx.journals.size(), f.hosts.size(), f.hosts.size() == 1 ? "" : "s", total);
  out += html_warnings(ctx.warnings);
  out += "</header>\n";
  out += "<section id=\"journals\">\n<h2>Shards</h2>\n<table class=\"journals\">\n<tr><th>shard</th><th>host</th>"
         "<th>runs</th><th>taken</th><th>journal</th></tr>\n" + journals + "</table>\n";
  out += "<h2>Hosts by CPU model</h2>\n<table class=\"cpu-models\">\n<tr><th>CPU model</th><th>hosts</th></tr>\n";
  for (const auto& [model, names] : f.cpu_models)
    out += fmt::format("<tr><td>{}</td><td>{}</td></tr>\n", escape(model), escape(fmt::format("{}", fmt::join(names, ", "))));
  out += "</table>\n</section>\n";

  out += "<section id=\"pooled\">\n<h2>Per metric and level: each host, and pooled</h2>\n"
         "<p class=\"meta\">Each host is analysed as a check of its own (paired within its blocks). The pooled "
         "effect is a random-effects model over the hosts (DerSimonian &amp; Laird's between-host variance, "
         "Hartung &amp; Knapp's interval): its interval carries the variation between hosts, so with few hosts "
         "that disagree it is wider than any one host's.</p>\n";
  for (const PooledEffect& p : f.pooled) {
    const std::string unit = unit_of(f, p.metric);
    out += fmt::format("<div class=\"host-effect\" data-metric=\"{}\" data-level=\"{}\">\n<h3>{} at {}</h3>\n",
                       escape(p.metric), escape(p.level), escape(p.metric), escape(p.level));
    out += "<table class=\"hosts\">\n<tr><th>host</th><th>effect [interval]</th><th>blocks</th><th>verdict</th></tr>\n";
    for (const HostVerdict& h : p.hosts)
      out += fmt::format("<tr class=\"host-row verdict-{}\" data-host=\"{}\"><td>{}</td><td>{}</td><td>{}</td><td>{}</td></tr>\n",
                         verdict_key(h.verdict), escape(h.host), escape(h.host),
                         escape(std::isfinite(h.effect) ? effect_text(as_comparison(p.scale, p.margin, h.effect, h.lo, h.hi), unit)
                                                        : std::string("n/a")),
                         h.n, html_verdict_badge(h.verdict));
    if (p.hosts.size() > 1)
      out += fmt::format(
          "<tr class=\"pooled-row verdict-{}\"><td>pooled ({:.0f}%)</td><td>{}</td><td>{} hosts</td><td>{}</td></tr>\n",
          verdict_key(p.verdict), 100 * p.coverage,
          escape(p.pooled_hosts ? effect_text(as_comparison(p.scale, p.margin, p.effect, p.lo, p.hi), unit) : p.note),
          p.pooled_hosts, html_verdict_badge(p.verdict));
    out += "</table>\n";
    std::string words = fmt::format("perturbed on {} of {} host{}", p.perturbed_hosts, p.hosts.size(),
                                    p.hosts.size() == 1 ? "" : "s");
    if (const std::string h = heterogeneity_text(p); !h.empty()) words += "; " + h;
    out += "<p class=\"meta\">" + escape(words) + "</p>\n";
    out += forest_svg(p, unit);
    out += "</div>\n";
  }
  out += "</section>\n</body>\n</html>\n";
  return out;
}

}  // namespace obscheck
