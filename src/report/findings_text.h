// report/: the pieces of a check's findings that the text, CSV, Markdown, JSON and HTML
// forms name the same way (a cell of the verdict table, a level's label, the dose axis).
// One definition for all of report/: the module is compiled as a few unity translation
// units (CMakeLists.txt), where two files' private copies of one helper would collide.
#pragma once

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <fmt/core.h>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "analysis/findings.h"
#include "plan/plan.h"

namespace obscheck::report_text {

// JSON has no NaN: a value that does not exist is null.
inline nlohmann::json num(double v) { return std::isfinite(v) ? nlohmann::json(v) : nlohmann::json(nullptr); }

// RFC 4180: a field with a comma, quote or line break is quoted, its quotes doubled.
inline std::string csv_field(const std::string& s) {
  if (s.find_first_of(",\"\r\n") == std::string::npos) return s;
  std::string out = "\"";
  for (char c : s) out += c == '"' ? std::string("\"\"") : std::string(1, c);
  return out + "\"";
}

// The comparison behind one cell of the verdict table: the verdict's own list first,
// any matching comparison when the analysis left the list empty.
inline const Comparison* cell(const Findings& f, const LevelVerdict& v, Layout layout) {
  for (std::size_t i : v.comparisons)
    if (i < f.comparisons.size() && f.comparisons[i].layout == layout) return &f.comparisons[i];
  for (const Comparison& c : f.comparisons)
    if (!c.aa && c.metric == v.metric && c.level_index == v.level_index && c.layout == layout) return &c;
  return nullptr;
}

inline std::string cell_text(const Findings& f, const Comparison* c) {
  if (!c) return "";
  if (c->n == 0) return "no pairs";
  return effect_text(*c, f.metrics.at(c->metric).unit);
}

inline std::string metric_name(const Findings& f, std::size_t m) {
  return m < f.metrics.size() ? f.metrics[m].name : fmt::format("metric {}", m);
}

inline std::string config_id(const Plan& plan, std::size_t config) {
  return config < plan.configs.size() ? plan.configs[config].id : fmt::format("config {}", config);
}

inline std::string level_label(const Plan& plan, std::size_t level) {
  return level < plan.spec.levels.size() ? plan.spec.levels[level].label : fmt::format("level {}", level);
}

// A level is on the dose axis when it counts a prefix of the counter list (any level of
// an observer without counters); the others are counters measured alone.
inline bool on_dose_axis(const Level& level) {
  for (std::size_t i = 0; i < level.programmed.size(); ++i)
    if (level.programmed[i] != i) return false;
  return true;
}

// The levels a plot's x axis shows, those counting a prefix of the counter list: level
// indexes, by dose then plan order.
inline std::vector<std::size_t> dose_axis(const Plan& plan) {
  std::vector<std::size_t> axis;
  for (std::size_t i = 0; i < plan.spec.levels.size(); ++i)
    if (on_dose_axis(plan.spec.levels[i])) axis.push_back(i);
  std::stable_sort(axis.begin(), axis.end(),
                   [&](std::size_t a, std::size_t b) { return plan.spec.levels[a].dose < plan.spec.levels[b].dose; });
  return axis;
}

// "100%" / "50%" / "0.1%": a running fraction (time running / time enabled), as few
// digits as tell it from whole.
inline std::string running_text(double fraction) {
  const double p = fraction * 100 + 0.0;  // + 0.0 folds -0 into +0
  return p == std::floor(p) ? fmt::format("{:.0f}%", p) : fmt::format("{:.3g}%", p);
}

// What one counter's readings in one configuration were, in words, as every form of
// the check's report says it: "exact", or "scaled in 6 (up to x2.00)", "never ran in
// 1", "fault in 2 (no value)", then ", the same count in every run" when identical.
inline std::string validity_state(const CounterRunning& c) {
  std::vector<std::string> parts;
  if (c.scaled_runs > 0) parts.push_back(fmt::format("scaled in {} (up to x{:.2f})", c.scaled_runs, c.max_scale));
  if (c.never_ran > 0) parts.push_back(fmt::format("never ran in {}", c.never_ran));
  if (c.faults > 0) parts.push_back(fmt::format("fault in {} (no value)", c.faults));
  if (parts.empty()) parts.push_back("exact");
  if (c.identical) parts.push_back("the same count in every run");
  std::string out;
  for (const std::string& p : parts) out += (out.empty() ? "" : ", ") + p;
  return out;
}

// The validity of `metric` (a counter) in configuration `config`; null when the check
// has none (a driver metric, or a configuration that does not count it).
inline const CounterRunning* counter_running(const Findings& f, std::size_t metric, std::size_t config) {
  for (const CounterValidity& v : f.counters)
    if (v.metric == metric)
      for (const CounterRunning& c : v.configs)
        if (c.config == config) return &c;
  return nullptr;
}

inline const CounterValidity* counter_validity_of(const Findings& f, std::size_t metric) {
  for (const CounterValidity& v : f.counters)
    if (v.metric == metric) return &v;
  return nullptr;
}

// The heading every form puts over the counters' validity.
inline constexpr const char* kValidityHeading =
    "running = time running / time enabled, min / median over the runs; determinism over the A/A runs, else the "
    "counter's reference";

}  // namespace obscheck::report_text
