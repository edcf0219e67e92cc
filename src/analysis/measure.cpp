#include "analysis/measure.h"

#include <fmt/core.h>

#include <algorithm>
#include <cmath>
#include <functional>
#include <iterator>
#include <limits>
#include <map>

#include "record/run_table.h"
#include "stats/pipeline.h"

namespace obscheck {

MetricSummary summarize_metric(MetricSeries series, std::uint64_t seed, double level,
                               const stats::MedianResampleTable* table) {
  MetricSummary m;
  const double nan = std::numeric_limits<double>::quiet_NaN();
  m.mean = m.median = m.min = m.q1 = m.q3 = m.max = m.mad = m.cv = m.sd = m.ci_lo = m.ci_hi = nan;
  m.ci_level = level;
  // A counter that never ran in some run has no value there (NaN): the summary is of
  // the runs that have one, and says how many those were.
  std::vector<double> finite;
  finite.reserve(series.values.size());
  for (double v : series.values)
    if (std::isfinite(v)) finite.push_back(v);
  m.n = finite.size();
  m.series = std::move(series);
  if (finite.empty()) return m;

  const stats::Summary s = stats::summarize(finite, {level, kMeasureBootstrapResamples, seed}, table);
  m.mean = s.mean;
  m.median = s.median;
  m.min = s.five.min;
  m.q1 = s.five.q1;
  m.q3 = s.five.q3;
  m.max = s.five.max;
  m.mad = s.mad;
  if (s.cv) m.cv = *s.cv;
  if (s.stddev) m.sd = *s.stddev;
  if (s.median_ci) {
    m.ci_lo = s.median_ci->lo;
    m.ci_hi = s.median_ci->hi;
  }
  m.ci_method = fmt::format("percentile bootstrap of the median, {} resamples; quartiles by Hyndman-Fan type 7",
                            s.resamples);
  m.mild_outliers = s.outliers_mild;
  m.severe_outliers = s.outliers_severe;
  return m;
}

std::vector<MetricSummary> summarize_metrics(std::vector<MetricSeries> series, std::uint64_t seed, double level) {
  const stats::BootstrapOptions draws{kMeasureBootstrapResamples, level, seed};
  std::map<std::size_t, stats::MedianResampleTable> tables;  // by count of finite values
  std::vector<MetricSummary> out;
  out.reserve(series.size());
  for (MetricSeries& s : series) {
    std::vector<double> finite;
    std::copy_if(s.values.begin(), s.values.end(), std::back_inserter(finite), [](double v) { return std::isfinite(v); });
    // A series of one value is summarised without draws: no table is drawn for it.
    const bool varies = std::adjacent_find(finite.begin(), finite.end(), std::not_equal_to<>()) != finite.end();
    const stats::MedianResampleTable* table = nullptr;
    if (varies) table = &tables.try_emplace(finite.size(), finite.size(), draws).first->second;
    out.push_back(summarize_metric(std::move(s), seed, level, table));
  }
  return out;
}

std::vector<MetricSeries> measure_series(const std::vector<RunRecord>& runs) {
  std::vector<MetricSeries> counters;
  std::map<std::string, std::size_t> slot;
  std::vector<MetricSeries> driver;
  for (const DriverMetric& d : driver_metrics()) driver.push_back(MetricSeries{d.name, d.unit});
  for (const RunRecord& run : runs) {
    if (run.warmup) continue;
    for (const Reading& rd : run.readings) {
      auto [it, fresh] = slot.emplace(rd.name, counters.size());
      if (fresh) counters.push_back(MetricSeries{rd.name, counter_unit(rd.name), {}, 0, 1.0, true});
      MetricSeries& s = counters[it->second];
      s.values.push_back(rd.value);
      s.running_ns += static_cast<double>(rd.time_running);
      s.enabled_ns += static_cast<double>(rd.time_enabled);
      s.running_fractions.push_back(rd.running_fraction());
      if (!rd.fault.empty()) s.faults.push_back(fmt::format("{} (run {})", rd.fault, run.index));
      if (rd.multiplexed) {
        ++s.multiplexed_runs;
        s.max_scale = std::max(s.max_scale, rd.scale);
      }
    }
    for (std::size_t i = 0; i < driver.size(); ++i) driver[i].values.push_back(driver_metrics()[i].of(run.exit));
  }
  for (auto& s : driver) counters.push_back(std::move(s));
  return counters;
}

std::vector<std::string> keep_simulated(std::vector<MetricSeries>& series, const std::vector<std::string>& events) {
  std::vector<std::string> notes;
  std::erase_if(series, [&](const MetricSeries& s) { return std::find(events.begin(), events.end(), s.name) == events.end(); });
  for (const MetricSeries& s : series)
    if (std::adjacent_find(s.values.begin(), s.values.end(), std::not_equal_to<>()) != s.values.end())
      notes.push_back(fmt::format("not deterministic: {} differs between runs (from {:.0f} to {:.0f})", s.name,
                                  *std::min_element(s.values.begin(), s.values.end()),
                                  *std::max_element(s.values.begin(), s.values.end())));
  notes.push_back("wall time and rusage are the simulator's under --backend sim, not the program's: not reported");
  return notes;
}

}  // namespace obscheck
