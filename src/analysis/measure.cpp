#include "analysis/measure.h"

#include <fmt/core.h>

#include <cmath>
#include <limits>

#include "stats/pipeline.h"

namespace obscheck {

MetricSummary summarize_metric(MetricSeries series, std::uint64_t seed, double level) {
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

  const stats::Summary s = stats::summarize(finite, {level, kMeasureBootstrapResamples, seed});
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

}  // namespace obscheck
