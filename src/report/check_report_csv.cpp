// report/check: the CSV report: one row per comparison, its verdict and each side's
// counter validity (RFC 4180 quoting).
#include "report/check_report.h"
#include "report/check_report_internal.h"

#include <fmt/core.h>

#include <cmath>

namespace obscheck {
namespace check_report_detail {
namespace {

std::string csv_number(double v) { return std::isfinite(v) ? fmt::format("{}", v) : ""; }

// The counter validity columns of a CSV row: the comparison's metric in one
// configuration (running_min, running_median, scaled_runs, never_ran, faults); empty
// cells for a driver metric or a configuration that does not count it.
std::vector<std::string> csv_validity_cells(const Findings& f, std::size_t metric, std::size_t config) {
  const CounterRunning* c = counter_running(f, metric, config);
  if (!c) return {"", "", "", "", ""};
  return {csv_number(c->running_min), csv_number(c->running_median), std::to_string(c->scaled_runs),
          std::to_string(c->never_ran), std::to_string(c->faults)};
}

}  // namespace
}  // namespace check_report_detail

std::string check_csv(const Plan& plan, const Findings& f) {
  namespace detail = check_report_detail;
  std::string out =
      "metric,unit,config_id,level,dose,layout,aa,n,effect,ci_lo,ci_hi,p,p_holm,significant,equivalent,verdict,reason,"
      "running_min,running_median,scaled_runs,never_ran,faults,baseline_running_min,baseline_running_median,"
      "baseline_scaled_runs,baseline_never_ran,baseline_faults,determinism\n";
  for (const Comparison& c : f.comparisons) {
    const LevelVerdict* v = detail::verdict_for(f, c);
    std::vector<std::string> row = {
        detail::metric_name(f, c.metric),
        c.metric < f.metrics.size() ? f.metrics[c.metric].unit : "",
        detail::config_id(plan, c.config),
        c.level_label,
        std::to_string(c.dose),
        std::string(to_string(c.layout)),
        c.aa ? "true" : "false",
        std::to_string(c.n),
        detail::csv_number(c.effect),
        detail::csv_number(c.ci_lo),
        detail::csv_number(c.ci_hi),
        detail::csv_number(c.p_value),
        detail::csv_number(c.p_holm),
        c.significant ? "true" : "false",
        c.equivalent ? "true" : "false",
        v ? std::string(verdict_key(v->verdict)) : "",
        v ? v->reason : ""};
    for (std::size_t config : {c.config, c.baseline})
      for (std::string& cell : detail::csv_validity_cells(f, c.metric, config)) row.push_back(std::move(cell));
    const CounterValidity* validity = detail::counter_validity_of(f, c.metric);
    row.push_back(validity ? std::string(determinism_key(validity->determinism)) : "");
    for (std::size_t i = 0; i < row.size(); ++i) out += (i ? "," : "") + detail::csv_field(row[i]);
    out += "\n";
  }
  return out;
}

}  // namespace obscheck
