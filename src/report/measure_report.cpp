#include "report/measure_report.h"

#include <algorithm>

#include <fmt/core.h>

#include <cmath>
#include <nlohmann/json.hpp>

#include "report/findings_text.h"

namespace obscheck {
namespace {

using report_text::csv_field;
using report_text::num;

std::string group_thousands(double v) {
  const bool neg = v < 0;
  std::string digits = fmt::format("{:.0f}", std::fabs(v));
  std::string out;
  for (std::size_t i = 0; i < digits.size(); ++i) {
    if (i > 0 && (digits.size() - i) % 3 == 0) out += ',';
    out += digits[i];
  }
  return neg ? "-" + out : out;
}

// Each run's time_running / time_enabled (the share of the run the counter was on the PMU).
nlohmann::json fractions(const MetricSeries& s) {
  nlohmann::json out = nlohmann::json::array();
  for (double f : s.running_fractions) out.push_back(num(f));
  return out;
}

// "50.0%" or "25.0%-100.0%": the least and most of the runs' running fractions.
std::string running_range(const MetricSeries& s) {
  if (s.running_fractions.empty()) return "n/a";
  const auto [lo, hi] = std::minmax_element(s.running_fractions.begin(), s.running_fractions.end());
  if (*lo == *hi) return fmt::format("{:.1f}% of the time", 100 * *lo);
  return fmt::format("{:.1f}%-{:.1f}% of the time", 100 * *lo, 100 * *hi);
}

// perf stat's "( +- x% )": the standard error of the mean relative to the mean, in %.
double relative_sem_percent(const MetricSummary& m) {
  if (!(m.n >= 2) || !std::isfinite(m.sd) || m.mean == 0) return std::nan("");
  return 100.0 * m.sd / std::sqrt(static_cast<double>(m.n)) / std::fabs(m.mean);
}

// "mean ± sd" in the metric's unit, or the mean alone below two runs.
std::string mean_sd(const MetricSummary& m) {
  const std::string& u = m.series.unit;
  if (!std::isfinite(m.sd)) return format_value(m.mean, u);
  return format_value(m.mean, u) + " ± " + format_value(m.sd, u);
}

// A number for machine-readable output: shortest round-trip form, "" when it is not one.
std::string plain(double v) { return std::isfinite(v) ? fmt::format("{}", v) : ""; }

}  // namespace

std::string format_value(double v, const std::string& unit) {
  if (!std::isfinite(v)) return "n/a";
  if (unit == "ns") {
    const double a = std::fabs(v);
    if (a >= 1e9) return fmt::format("{:.3f} s", v / 1e9);
    if (a >= 1e6) return fmt::format("{:.3f} ms", v / 1e6);
    if (a >= 1e3) return fmt::format("{:.3f} us", v / 1e3);
    return fmt::format("{:.0f} ns", v);
  }
  if (unit == "KiB") return group_thousands(v) + " KiB";
  if (std::fabs(v - std::round(v)) < 1e-9 || std::fabs(v) >= 1e6) return group_thousands(v);
  return fmt::format("{:.2f}", v);
}

std::string measure_text(const MeasureFindings& f, bool color) {
  const char* bold = color ? "\x1b[1m" : "";
  const char* dim = color ? "\x1b[2m" : "";
  const char* reset = color ? "\x1b[0m" : "";
  std::string cmd;
  for (const auto& a : f.argv) cmd += (cmd.empty() ? "" : " ") + a;
  std::string out = fmt::format("{}obscheck measure{}: {}\n", bold, reset, cmd);
  out += fmt::format("  {} measured runs after {} warm-up{}; environment {} bytes; ASLR {}{}\n\n", f.runs,
                     f.warmups, f.warmups == 1 ? "" : "s", group_thousands(static_cast<double>(f.env_bytes)),
                     f.aslr ? "on" : "off", f.cpu >= 0 ? fmt::format("; pinned to CPU {}", f.cpu) : "");
  out += fmt::format("  {:<24} {:>14}  {:<31} {:<30} {:<14} {:<58} {}\n", "metric", "median", "95% CI of the median",
                     "mean ± sd", "(± sem)", "min / q1 / q3 / max", "counted");
  std::string method;
  for (const MetricSummary& m : f.metrics) {
    const std::string& u = m.series.unit;
    std::string ci = std::isfinite(m.ci_lo)
                         ? fmt::format("[{}, {}]", format_value(m.ci_lo, u), format_value(m.ci_hi, u))
                         : "n/a (one run)";
    std::string five = fmt::format("{} / {} / {} / {}", format_value(m.min, u), format_value(m.q1, u),
                                   format_value(m.q3, u), format_value(m.max, u));
    std::string counted = !m.series.counter ? "driver"
                          : m.series.multiplexed_runs == 0
                              ? "exact"
                              : fmt::format("multiplexed in {}/{} runs (running {}, scaled up to x{:.2f})",
                                            m.series.multiplexed_runs, m.n, running_range(m.series),
                                            m.series.max_scale);
    const double sem = relative_sem_percent(m);
    const std::string pm = std::isfinite(sem) ? fmt::format("( +- {:.2f}% )", sem) : "";
    out += fmt::format("  {:<24} {:>14}  {:<31} {:<30} {:<14} {:<58} {}\n", m.series.name, format_value(m.median, u),
                       ci, mean_sd(m), pm, five, counted);
    for (const std::string& fault : m.series.faults) out += fmt::format("  {:<24} fault: {}\n", "", fault);
    if (m.severe_outliers + m.mild_outliers > 0)
      out += fmt::format("  {}{:<24} outliers kept: {} mild, {} severe (Tukey fences){}\n", dim, "",
                         m.mild_outliers, m.severe_outliers, reset);
    if (method.empty()) method = m.ci_method;
  }
  if (!method.empty())
    out += fmt::format("\n  {}intervals: {}; (± sem): the standard error of the mean as a percentage of it, "
                       "as perf stat prints it{}\n",
                       dim, method, reset);
  for (const auto& n : f.notes) out += fmt::format("  note: {}\n", n);
  return out;
}

std::string measure_json(const MeasureFindings& f) {
  nlohmann::json j;
  j["schema"] = "obscheck-measure";
  j["version"] = kMeasureJsonVersion;
  j["command"] = "measure";
  j["argv"] = f.argv;
  j["runs"] = f.runs;
  j["warmup"] = f.warmups;
  j["env_bytes"] = f.env_bytes;
  j["aslr"] = f.aslr;
  j["cpu"] = f.cpu;
  j["notes"] = f.notes;
  auto& metrics = j["metrics"] = nlohmann::json::array();
  for (const MetricSummary& m : f.metrics) {
    nlohmann::json values = nlohmann::json::array();
    for (double v : m.series.values) values.push_back(num(v));
    metrics.push_back({{"name", m.series.name},
                       {"unit", m.series.unit},
                       {"source", m.series.counter ? "counter" : "driver"},
                       {"n", m.n},
                       {"mean", num(m.mean)},
                       {"sd", num(m.sd)},
                       {"sem_percent", num(relative_sem_percent(m))},
                       {"median", num(m.median)},
                       {"min", num(m.min)},
                       {"q1", num(m.q1)},
                       {"q3", num(m.q3)},
                       {"max", num(m.max)},
                       {"mad", num(m.mad)},
                       {"cv", num(m.cv)},
                       {"ci", {{"level", m.ci_level}, {"lo", num(m.ci_lo)}, {"hi", num(m.ci_hi)},
                               {"method", m.ci_method}}},
                       {"multiplexed_runs", m.series.multiplexed_runs},
                       {"running_ns", m.series.counter ? num(m.series.running_ns) : nlohmann::json(nullptr)},
                       {"enabled_ns", m.series.counter ? num(m.series.enabled_ns) : nlohmann::json(nullptr)},
                       {"running_fraction", m.series.counter ? fractions(m.series) : nlohmann::json(nullptr)},
                       {"faults", m.series.counter ? nlohmann::json(m.series.faults) : nlohmann::json(nullptr)},
                       {"max_scale", m.series.max_scale},
                       {"outliers", {{"mild", m.mild_outliers}, {"severe", m.severe_outliers}}},
                       {"values", values}});
  }
  return j.dump(2) + "\n";
}

std::string measure_separated(const MeasureFindings& f, const std::string& sep) {
  std::string out;
  for (const MetricSummary& m : f.metrics) {
    const bool clock = m.series.unit == "ns";
    // perf stat prints clocks (task-clock, cpu-clock) in msec with the unit; counts bare.
    const std::string value = clock ? fmt::format("{:.2f}", m.mean / 1e6) : plain(std::round(m.mean * 100) / 100);
    const std::string unit = clock ? "msec" : m.series.unit == "KiB" ? "KiB" : "";
    const double sem = relative_sem_percent(m);
    const std::string variance = std::isfinite(sem) ? fmt::format("{:.2f}%", sem) : "";
    std::string run_time, running;
    if (m.series.counter && m.n > 0) {
      run_time = fmt::format("{:.0f}", m.series.running_ns / static_cast<double>(m.n));
      running = m.series.enabled_ns > 0 ? fmt::format("{:.2f}", 100.0 * m.series.running_ns / m.series.enabled_ns)
                                        : "100.00";
    }
    out += fmt::format("{}{}{}{}{}{}{}{}{}{}{}\n", std::isfinite(m.mean) ? value : "<not counted>", sep, unit, sep,
                       m.series.name, sep, variance, sep, run_time, sep, running);
  }
  return out;
}

std::string measure_csv(const MeasureFindings& f) {
  std::string out =
      "metric,unit,source,n,mean,sd,sem_percent,median,ci_lo,ci_hi,ci_level,min,q1,q3,max,multiplexed_runs,"
      "outliers_mild,outliers_severe\r\n";
  for (const MetricSummary& m : f.metrics)
    out += fmt::format("{},{},{},{},{},{},{},{},{},{},{},{},{},{},{},{},{},{}\r\n", csv_field(m.series.name),
                       csv_field(m.series.unit), m.series.counter ? "counter" : "driver", m.n, plain(m.mean),
                       plain(m.sd), plain(relative_sem_percent(m)), plain(m.median), plain(m.ci_lo), plain(m.ci_hi),
                       m.ci_level, plain(m.min), plain(m.q1), plain(m.q3), plain(m.max), m.series.multiplexed_runs,
                       m.mild_outliers, m.severe_outliers);
  return out;
}

std::string measure_markdown(const MeasureFindings& f) {
  std::string cmd;
  for (const auto& a : f.argv) cmd += (cmd.empty() ? "" : " ") + a;
  std::string out = fmt::format("**obscheck measure** `{}`: {} measured runs after {} warm-up{}\n\n", cmd, f.runs,
                                f.warmups, f.warmups == 1 ? "" : "s");
  out += "| metric | median | 95% CI of the median | mean ± sd | min | max | counted |\n";
  out += "|---|---:|---|---|---:|---:|---|\n";
  for (const MetricSummary& m : f.metrics) {
    const std::string& u = m.series.unit;
    const std::string ci = std::isfinite(m.ci_lo)
                               ? fmt::format("[{}, {}]", format_value(m.ci_lo, u), format_value(m.ci_hi, u))
                               : "n/a";
    const std::string counted = !m.series.counter ? "driver" : m.series.multiplexed_runs == 0 ? "exact" : "multiplexed";
    out += fmt::format("| {} | {} | {} | {} | {} | {} | {} |\n", m.series.name, format_value(m.median, u), ci,
                       mean_sd(m), format_value(m.min, u), format_value(m.max, u), counted);
  }
  for (const auto& n : f.notes) out += "\n> " + n + "\n";
  return out;
}

}  // namespace obscheck
