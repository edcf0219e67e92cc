#include "report/measure_html.h"

#include <fmt/core.h>

#include <cmath>

#include "report/html_page.h"
#include "report/measure_report.h"
#include "report/svg.h"

namespace obscheck {
namespace {

using svg::escape;

std::string cell(const std::string& text) { return "<td>" + escape(text) + "</td>"; }

std::string metric_row(const MetricSummary& m) {
  const std::string& u = m.series.unit;
  const std::string ci = std::isfinite(m.ci_lo)
                             ? fmt::format("[{}, {}]", format_value(m.ci_lo, u), format_value(m.ci_hi, u))
                             : "n/a (one run)";
  const std::string mean = std::isfinite(m.sd) ? format_value(m.mean, u) + " ± " + format_value(m.sd, u)
                                               : format_value(m.mean, u);
  const std::string five = fmt::format("{} / {} / {} / {}", format_value(m.min, u), format_value(m.q1, u),
                                       format_value(m.q3, u), format_value(m.max, u));
  const std::string counted = !m.series.counter                ? "driver"
                              : m.series.multiplexed_runs == 0 ? "exact"
                                                               : fmt::format("multiplexed in {}/{} runs (scaled)",
                                                                             m.series.multiplexed_runs, m.n);
  std::string outliers;
  if (m.mild_outliers + m.severe_outliers > 0)
    outliers = fmt::format("{} mild, {} severe", m.mild_outliers, m.severe_outliers);
  return "<tr>" + cell(m.series.name) + cell(format_value(m.median, u)) + cell(ci) + cell(mean) + cell(five) +
         cell(counted) + cell(outliers) + "</tr>\n";
}

}  // namespace

std::string measure_html(const MeasureFindings& f) {
  std::string cmd;
  for (const auto& a : f.argv) cmd += (cmd.empty() ? "" : " ") + a;
  std::string out = "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n";
  out += "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n";
  out += fmt::format("<title>obscheck measure: {}</title>\n", escape(cmd));
  out += fmt::format("<style>{}</style>\n</head>\n<body>\n", html_stylesheet());
  out += fmt::format("<h1>obscheck measure</h1>\n<p><code>{}</code></p>\n", escape(cmd));
  out += fmt::format("<p>{} measured runs after {} warm-up{}; environment {} bytes; ASLR {}{}.</p>\n", f.runs,
                     f.warmups, f.warmups == 1 ? "" : "s", f.env_bytes, f.aslr ? "on" : "off",
                     f.cpu >= 0 ? fmt::format("; pinned to CPU {}", f.cpu) : "");
  out += "<table>\n<tr><th>metric</th><th>median</th><th>95% CI of the median</th><th>mean ± sd</th>"
         "<th>min / q1 / q3 / max</th><th>counted</th><th>outliers kept (Tukey fences)</th></tr>\n";
  std::string method;
  for (const MetricSummary& m : f.metrics) {
    out += metric_row(m);
    if (method.empty()) method = m.ci_method;
  }
  out += "</table>\n";
  if (!f.notes.empty()) {
    out += "<ul class=\"notes\">\n";
    for (const std::string& n : f.notes) out += "<li>" + escape(n) + "</li>\n";
    out += "</ul>\n";
  }
  if (!method.empty()) out += "<p class=\"methods\">Intervals: " + escape(method) + ".</p>\n";
  return out + "</body>\n</html>\n";
}

}  // namespace obscheck
