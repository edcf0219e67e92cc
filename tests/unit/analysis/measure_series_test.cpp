// analysis/measure: what a measure's runs give each counter's series, on fixed runs.
#include <catch2/catch.hpp>

#include <cmath>
#include <string>
#include <vector>

#include "analysis/measure.h"
#include "record/run_record.h"

using namespace obscheck;

namespace {

Reading reading(std::uint64_t raw, std::uint64_t enabled, std::uint64_t running) {
  Reading r;
  r.name = "cycles";
  r.raw = raw;
  r.time_enabled = enabled;
  r.time_running = running;
  r.multiplexed = running < enabled;
  r.scale = running == 0 ? 0.0 : static_cast<double>(enabled) / static_cast<double>(running);
  r.value = static_cast<double>(raw) * r.scale;
  return r;
}

RunRecord run(Reading r, bool warmup = false) {
  RunRecord rec;
  rec.warmup = warmup;
  rec.readings = {std::move(r)};
  return rec;
}

}  // namespace

TEST_CASE("measure_series: each measured run's running fraction, warm-ups left out") {
  const std::vector<RunRecord> runs = {run(reading(5, 10, 5), true), run(reading(100, 1000, 1000)),
                                       run(reading(25, 1000, 250)), run(reading(0, 1000, 0))};
  const std::vector<MetricSeries> series = measure_series(runs);
  REQUIRE_FALSE(series.empty());
  const MetricSeries& s = series.front();
  CHECK(s.name == "cycles");
  CHECK(s.running_fractions == std::vector<double>{1.0, 0.25, 0.0});
  CHECK(s.multiplexed_runs == 2);
  CHECK(s.max_scale == 4.0);
  CHECK(s.running_ns == 1250.0);
  CHECK(s.enabled_ns == 3000.0);
  CHECK(s.faults.empty());
}

TEST_CASE("measure_series: a run whose count is a fault is named, with its run") {
  Reading zero = reading(0, 1000, 1000);
  zero.value = std::nan("");
  zero.fault = "cycles reads 0 although it ran 1000 ns: the PMU did not count it";
  RunRecord r = run(zero);
  r.index = 7;
  const std::vector<MetricSeries> series = measure_series({run(reading(100, 1000, 1000)), r});
  REQUIRE_FALSE(series.empty());
  CHECK(series.front().faults ==
        std::vector<std::string>{"cycles reads 0 although it ran 1000 ns: the PMU did not count it (run 7)"});
}

TEST_CASE("summarize_metrics: one table of draws per length, the summaries of summarize_metric bit for bit") {
  std::vector<MetricSeries> series;
  for (int m = 0; m < 6; ++m) {
    MetricSeries s{"metric" + std::to_string(m), "ns"};
    for (int i = 0; i < 40; ++i) s.values.push_back(static_cast<double>((i * 7919 + m * 104729) % 97) + 0.5 * m);
    series.push_back(s);
  }
  series[3].values[5] = std::nan("");                 // one run without a value: 39 values
  series[4].values.assign(40, 47.0);                   // constant: no draws
  series[5].values.resize(41, 3.0);                    // another length
  const std::uint64_t seed = 12345;
  const std::vector<MetricSummary> got = summarize_metrics(series, seed);
  REQUIRE(got.size() == series.size());
  for (std::size_t i = 0; i < series.size(); ++i) {
    const MetricSummary want = summarize_metric(series[i], seed);
    CHECK(got[i].series.name == series[i].name);
    CHECK(got[i].n == want.n);
    CHECK(got[i].median == want.median);
    CHECK(got[i].ci_lo == want.ci_lo);
    CHECK(got[i].ci_hi == want.ci_hi);
    CHECK(got[i].ci_method == want.ci_method);
  }
  CHECK(summarize_metrics({}, seed).empty());
}
