#include "analysis/counter_validity.h"

#include <fmt/core.h>

#include <algorithm>
#include <cmath>
#include <optional>
#include <string>

#include "stats/descriptive.h"

namespace obscheck {
namespace {

// One row's reading of a column, as the journal kept it.
struct RowReading {
  bool present = false;   // the run has this reading
  bool ran = false;       // time running > 0
  bool scaled = false;    // multiplexed and ran
  bool valued = false;    // its value is a number to analyse
  double running = 0;     // time_running / time_enabled
  double scale = 1;
  double value = 0;
};

RowReading reading_at(const RunTable::Readings& col, std::size_t row) {
  RowReading r;
  const double scale = col.scale[row];
  if (std::isnan(scale)) return r;  // no such reading in this run
  r.present = true;
  r.ran = scale > 0;
  r.scale = scale;
  r.running = r.ran && std::isfinite(scale) ? 1.0 / scale : 0.0;
  r.scaled = r.ran && col.multiplexed[row];
  r.value = col.value[row];
  r.valued = std::isfinite(r.value);
  return r;
}

// The facts of one configuration from its readings, in run order.
CounterRunning running_of(std::size_t config, const std::vector<RowReading>& rs) {
  CounterRunning c;
  c.config = config;
  c.runs = rs.size();
  std::vector<double> fractions;
  std::vector<double> values;
  for (const RowReading& r : rs) {
    fractions.push_back(r.running);
    if (!r.ran) ++c.never_ran;
    else if (!r.valued) ++c.faults;
    if (r.scaled) ++c.scaled_runs, c.max_scale = std::max(c.max_scale, r.scale);
    if (r.valued) values.push_back(r.value);
  }
  c.running_min = *std::min_element(fractions.begin(), fractions.end());
  c.running_median = stats::median(fractions);
  c.identical = values.size() >= 2 && values.size() == rs.size() &&
                std::all_of(values.begin(), values.end(), [&](double v) { return v == values.front(); });
  return c;
}

// Whether `rs` (the runs of `where`) were one exact count, and the phrase that says so.
void judge_determinism(const std::vector<RowReading>& rs, const std::string& where, CounterValidity& v) {
  if (rs.empty()) {
    v.determinism_text = "no A/A or reference runs count it";
    return;
  }
  const auto inexact = static_cast<std::size_t>(
      std::count_if(rs.begin(), rs.end(), [](const RowReading& r) { return r.scaled || !r.valued; }));
  if (inexact > 0) {
    v.determinism_text =
        fmt::format("scaled or faulty in {} of the {} {}: no exact count to compare", inexact, rs.size(), where);
    return;
  }
  if (rs.size() < 2) {
    v.determinism_text = fmt::format("one of the {}: nothing to compare", where);
    return;
  }
  double lo = rs.front().value, hi = lo;
  for (const RowReading& r : rs) lo = std::min(lo, r.value), hi = std::max(hi, r.value);
  if (lo == hi) {
    v.determinism = Determinism::deterministic;
    v.determinism_text = fmt::format("the same count ({:.0f}) in all {} {}", lo, rs.size(), where);
    return;
  }
  v.determinism = Determinism::varies;
  v.determinism_text =
      lo > 0 ? fmt::format("varies over the {} {}: {:.0f} to {:.0f} ({:.2g}% of the smallest)", rs.size(), where, lo,
                           hi, 100 * (hi - lo) / lo)
             : fmt::format("varies over the {} {}: {:.0f} to {:.0f}", rs.size(), where, lo, hi);
}

bool in_aa(const Plan& plan, std::size_t config) {
  return plan.aa < plan.configs.size() && !plan.baselines.empty() &&
         (config == plan.aa || config == plan.baselines.front());
}

// The counter's reference: the configuration that counts it alone, held layout first.
std::optional<std::size_t> reference_of(const Plan& plan, const MetricInfo& m) {
  if (!m.counter) return std::nullopt;
  std::optional<std::size_t> any;
  for (const Configuration& c : plan.configs) {
    if (c.aa_duplicate || c.solo_of != m.counter) continue;
    if (c.layout == Layout::held) return c.index;
    if (!any) any = c.index;
  }
  return any;
}

CounterValidity validity_of(const Plan& plan, const RunTable& t, const RunTable::Readings& col,
                            const MetricInfo& m, std::size_t metric) {
  std::vector<std::vector<RowReading>> by_config(plan.configs.size());
  std::vector<RowReading> aa;
  for (std::size_t row = 0; row < t.size(); ++row) {
    if (t.warmup[row] || t.config[row] >= plan.configs.size()) continue;
    const RowReading r = reading_at(col, row);
    if (!r.present) continue;
    by_config[t.config[row]].push_back(r);
    if (in_aa(plan, t.config[row])) aa.push_back(r);
  }
  CounterValidity v;
  v.metric = metric;
  for (std::size_t c = 0; c < by_config.size(); ++c) {
    if (by_config[c].empty()) continue;
    v.configs.push_back(running_of(c, by_config[c]));
    v.scaled_runs += v.configs.back().scaled_runs;
    v.never_ran += v.configs.back().never_ran;
    v.faults += v.configs.back().faults;
  }
  const std::optional<std::size_t> ref = reference_of(plan, m);
  if (!aa.empty() || !ref) judge_determinism(aa, "A/A runs", v);
  else judge_determinism(by_config[*ref], "runs of " + plan.configs[*ref].id, v);
  return v;
}

}  // namespace

std::vector<CounterValidity> counter_validity(const Plan& plan, const RunTable& t,
                                              const std::vector<MetricInfo>& metrics) {
  std::vector<CounterValidity> out;
  for (std::size_t m = 0; m < metrics.size(); ++m) {
    if (metrics[m].driver) continue;
    const RunTable::Readings* col = t.find(metrics[m].name);
    if (!col) continue;
    CounterValidity v = validity_of(plan, t, *col, metrics[m], m);
    if (!v.configs.empty()) out.push_back(std::move(v));
  }
  return out;
}

}  // namespace obscheck
