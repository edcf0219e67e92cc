// analysis/: the summary `obscheck measure` reports — per metric, the median, the
// five-number summary and a confidence interval, never a bare number (Rechistov, "Pitfalls of measuring software performance").
#pragma once

#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include "record/run_record.h"
#include "stats/bootstrap.h"

namespace obscheck {

// One metric's per-run values (warm-ups already excluded), as the runner saw them.
struct MetricSeries {
  std::string name;
  std::string unit;                 // "ns", "events", "KiB", "cycles", "count"
  std::vector<double> values;       // one per measured run, run order
  std::size_t multiplexed_runs = 0; // runs in which the counter was scaled
  double max_scale = 1.0;           // largest time_enabled / time_running seen
  bool counter = false;             // a perf counter (vs the driver's wall time / rusage)
  // Counters: the sums over the measured runs of the kernel's time_running and
  // time_enabled, in ns (perf stat's "run time" and "% running" columns).
  double running_ns = 0, enabled_ns = 0;
  // Counters: time_running / time_enabled of each measured run, run order (1: exact,
  // < 1: multiplexed, 0: never ran), so a report says per run how much was estimated.
  std::vector<double> running_fractions;
  // Counters: the runs whose count was not a value (Reading::fault), "REASON (run I)",
  // run order; such a run's value is NaN and left out of every statistic.
  std::vector<std::string> faults;
};

struct MetricSummary {
  MetricSeries series;
  std::size_t n = 0;
  double mean = 0, median = 0, min = 0, q1 = 0, q3 = 0, max = 0;
  double mad = 0, cv = 0;
  double sd = 0;                    // sample standard deviation (n - 1); NaN below two runs
  double ci_lo = 0, ci_hi = 0;      // CI of the median
  double ci_level = 0.95;
  std::string ci_method;            // e.g. "percentile bootstrap of the median, 10000 resamples"
  std::size_t mild_outliers = 0, severe_outliers = 0;  // Tukey fences, labelled not dropped
};

// Bootstrap resamples for the CI of the median: 10,000 keeps the Monte Carlo error
// of a 95% percentile bound well below the interval's own width (Efron & Tibshirani
// 1993, §13.3, recommend ≥ 1000 for percentile intervals).
inline constexpr int kMeasureBootstrapResamples = 10000;

// Pure: the seed makes the bootstrap reproducible. n == 0 gives NaNs; n == 1 gives
// that value with an empty (NaN) interval.
// `table`, when it serves the series' count of finite values, gives the median's CI
// without drawing (stats/pipeline.h summarize): the same summary.
MetricSummary summarize_metric(MetricSeries series, std::uint64_t seed, double level = 0.95,
                               const stats::MedianResampleTable* table = nullptr);

// summarize_metric of each series, in order, with one table of bootstrap draws for all
// the series of one length: a measure's metrics have one value per run, so their ten
// bootstraps share one set of draws (the draws depend on the length and the seed, not
// on the values). The summaries are those of summarize_metric alone, bit for bit.
std::vector<MetricSummary> summarize_metrics(std::vector<MetricSeries> series, std::uint64_t seed,
                                             double level = 0.95);

// One series per metric over the measured runs (warm-ups skipped): the counters in the
// order they first appear, then the driver's metrics (record/run_table.h).
std::vector<MetricSeries> measure_series(const std::vector<RunRecord>& runs);

// For a backend whose wall time and rusage time a simulator, not the program
// (run/backend.h Backend::times_the_program): keeps the series of `events` alone and
// returns the notes that say so, after one for each event whose runs do not repeat
// one another's counts (exact counts must).
std::vector<std::string> keep_simulated(std::vector<MetricSeries>& series, const std::vector<std::string>& events);

}  // namespace obscheck

namespace obscheck {

// Everything `measure` reports, ready for a reporter.
struct MeasureFindings {
  std::vector<std::string> argv;
  std::size_t runs = 0, warmups = 0;
  std::size_t env_bytes = 0;
  bool aslr = false;
  int cpu = -1;
  std::vector<MetricSummary> metrics;
  std::vector<std::string> notes;   // e.g. "interrupted after 4 of 10 runs"
};

}  // namespace obscheck
