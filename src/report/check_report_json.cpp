// report/check: the JSON report ("schema": "obscheck-check-report", docs/report-schema.md):
// the answer, the context, the plan, every metric, comparison, verdict, trend, the A/A
// control, the incomparable runs and the counters' validity.
#include "report/check_report.h"
#include "report/check_report_internal.h"

#include <fmt/core.h>

#include <cmath>

#include "analysis/summary.h"
#include "report/display_unit.h"

namespace obscheck {
namespace check_report_detail {
namespace {

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

// Per metric that is not judged (the target's and the profiler's usage together): its
// effect per dose, with its interval: the profiler's cost, without a verdict.
nlohmann::json profiler_cost_json(const Plan& plan, const Findings& f) {
  using nlohmann::json;
  json out = json::array();
  for (std::size_t m = 0; m < f.metrics.size(); ++m) {
    const std::vector<CostAtDose> doses = profiler_cost_doses(plan, f, m);
    if (doses.empty()) continue;
    json per_dose = json::array();
    for (const CostAtDose& d : doses) {
      const Comparison& c = *d.comparison;
      per_dose.push_back({{"level", c.level_label},
                          {"dose", c.dose},
                          {"layout", std::string(to_string(c.layout))},
                          {"scale", std::string(to_string(c.scale))},
                          {"blocks", c.n},
                          {"effect", num(c.effect)},
                          {"ci", {num(c.ci_lo), num(c.ci_hi)}},
                          {"ci_level", c.level},
                          {"text", effect_text(c, f.metrics[m].unit)}});
    }
    out.push_back({{"metric", f.metrics[m].name},
                   {"unit", f.metrics[m].unit},
                   {"scope", f.metrics[m].scope},
                   {"per_dose", per_dose}});
  }
  return out;
}

// The metrics that are not the target's own and get no verdict for that (MetricInfo::hidden).
nlohmann::json hidden_json(const Findings& f) {
  nlohmann::json out = nlohmann::json::array();
  for (const MetricInfo& m : f.metrics)
    if (!m.hidden.empty()) out.push_back({{"metric", m.name}, {"unit", m.unit}, {"why", m.hidden}});
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
          {"metrics", metrics},
          {"profiler_cost", profiler_cost_json(plan, f)},
          {"hidden", hidden_json(f)}};
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
    if (!mi.hidden.empty()) metrics.back()["hidden"] = mi.hidden;
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
          {"max_scale", num(c.max_scale)},
          {"mean", {{"effect", num(c.mean_effect)}, {"lo", num(c.mean_lo)}, {"hi", num(c.mean_hi)},
                    {"beyond_margin", c.mean_beyond}}},
          {"tail", {{"blocks", c.tail_blocks}, {"size", num(c.tail_size)}}},
          {"median_only", c.median_only}};
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

}  // namespace
}  // namespace check_report_detail

std::string check_json(const Plan& plan, const Findings& f, const CheckContext& ctx) {
  namespace detail = check_report_detail;
  nlohmann::json j;
  j["schema"] = "obscheck-check-report";
  j["version"] = 1;
  // The answer first, as the text report gives it (docs/report-schema.md "answer").
  j["answer"] = detail::answer_json(plan, f, ctx);
  j["context"] = detail::context_json(f, ctx);
  j["plan"] = detail::plan_json(plan);
  j["summary"] = detail::summary_json(f);
  j["metrics"] = detail::metrics_json(f);
  j["comparisons"] = detail::comparisons_json(plan, f);
  j["verdicts"] = detail::verdicts_json(f);
  j["trends"] = detail::trends_json(f);
  j["aa"] = {{"ok", f.aa.ok}, {"reason", f.aa.reason}, {"comparisons", f.aa.comparisons}, {"line", aa_line(f)}};
  j["incomparable"] = detail::incomparable_json(plan, f);
  j["counters"] = detail::counters_json(plan, f);
  j["notes"] = f.notes;
  j["methods"] = detail::methods_lines(plan, f);
  return j.dump(2) + "\n";
}

nlohmann::json observation_json(const Observation& o) {
  namespace detail = check_report_detail;
  return {{"level", o.level}, {"dose", o.dose}, {"key", o.key},   {"what", o.what}, {"unit", o.unit},
          {"runs", o.n},      {"min", detail::num(o.min)}, {"max", detail::num(o.max)}, {"mean", detail::num(o.mean)}};
}

}  // namespace obscheck
