#include "report/measure_report.h"

#include <fmt/core.h>

#include <cmath>
#include <nlohmann/json.hpp>

namespace obscheck {
namespace {

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

// JSON has no NaN: a value that does not exist is null.
nlohmann::json num(double v) { return std::isfinite(v) ? nlohmann::json(v) : nlohmann::json(nullptr); }

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
  out += fmt::format("  {:<24} {:>14}  {:<31} {:<58} {}\n", "metric", "median", "95% CI of the median",
                     "min / q1 / q3 / max", "counted");
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
                              : fmt::format("multiplexed in {}/{} runs (scaled up to x{:.2f})",
                                            m.series.multiplexed_runs, m.n, m.series.max_scale);
    out += fmt::format("  {:<24} {:>14}  {:<31} {:<58} {}\n", m.series.name, format_value(m.median, u), ci, five,
                       counted);
    if (m.severe_outliers + m.mild_outliers > 0)
      out += fmt::format("  {}{:<24} outliers kept: {} mild, {} severe (Tukey fences){}\n", dim, "",
                         m.mild_outliers, m.severe_outliers, reset);
    if (method.empty()) method = m.ci_method;
  }
  if (!method.empty()) out += fmt::format("\n  {}intervals: {}{}\n", dim, method, reset);
  for (const auto& n : f.notes) out += fmt::format("  note: {}\n", n);
  return out;
}

std::string measure_json(const MeasureFindings& f) {
  nlohmann::json j;
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
                       {"max_scale", m.series.max_scale},
                       {"outliers", {{"mild", m.mild_outliers}, {"severe", m.severe_outliers}}},
                       {"values", values}});
  }
  return j.dump(2) + "\n";
}

}  // namespace obscheck
