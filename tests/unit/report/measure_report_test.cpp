// `obscheck measure`'s machine-readable layouts (-x SEP, --csv, --markdown, JSON's
// schema), against golden files in tests/golden/report/ on a fixed summary, so the
// layout is pinned independently of any run. Regenerate after an intended change
// with OBSCHECK_UPDATE_GOLDEN=1 ./test_report and read the diff.
#include <catch2/catch.hpp>

#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>

#include <nlohmann/json.hpp>

#include "report/measure_report.h"

using namespace obscheck;
namespace fs = std::filesystem;

namespace {

void check_measure_golden(const std::string& name, const std::string& actual) {
  const fs::path path = fs::path(OBSCHECK_GOLDEN_DIR) / "report" / name;
  const char* update = std::getenv("OBSCHECK_UPDATE_GOLDEN");
  if (update && std::string(update) == "1") {
    std::ofstream(path, std::ios::binary) << actual;
    return;
  }
  std::ifstream in(path, std::ios::binary);
  INFO("golden file " << path << " (regenerate with OBSCHECK_UPDATE_GOLDEN=1)");
  REQUIRE(in.good());
  std::stringstream expected;
  expected << in.rdbuf();
  CHECK(actual == expected.str());
}

// Three runs: a clock counter, a count that never varies, and the driver's wall time.
MeasureFindings fixture() {
  MeasureFindings f;
  f.argv = {"compute", "100"};
  f.runs = 3;
  f.warmups = 1;
  f.env_bytes = 1568;
  MetricSummary clock;
  clock.series = MetricSeries{"task-clock", "ns", {900000, 910000, 920000}, 0, 1.0, true, 2730000, 2730000};
  clock.n = 3;
  clock.mean = 910000;
  clock.sd = 10000;
  clock.median = 910000;
  clock.min = 900000;
  clock.q1 = 905000;
  clock.q3 = 915000;
  clock.max = 920000;
  clock.ci_lo = 900000;
  clock.ci_hi = 920000;
  clock.ci_method = "percentile bootstrap of the median, 10000 resamples";
  MetricSummary faults;
  faults.series = MetricSeries{"page-faults", "count", {74, 74, 74}, 0, 1.0, true, 2730000, 2730000};
  faults.n = 3;
  faults.mean = faults.median = faults.min = faults.q1 = faults.q3 = faults.max = faults.ci_lo = faults.ci_hi = 74;
  faults.sd = 0;
  MetricSummary multiplexed;
  multiplexed.series = MetricSeries{"instructions", "count", {1000, 1200, 1100}, 3, 2.0, true, 1365000, 2730000};
  multiplexed.n = 3;
  multiplexed.mean = multiplexed.median = 1100;
  multiplexed.sd = 100;
  multiplexed.min = 1000;
  multiplexed.q1 = 1050;
  multiplexed.q3 = 1150;
  multiplexed.max = 1200;
  multiplexed.ci_lo = 1000;
  multiplexed.ci_hi = 1200;
  MetricSummary wall;
  wall.series = MetricSeries{"wall-time", "ns", {1000000, 1010000, 1020000}, 0, 1.0, false};
  wall.n = 3;
  wall.mean = wall.median = 1010000;
  wall.sd = 10000;
  wall.min = 1000000;
  wall.q1 = 1005000;
  wall.q3 = 1015000;
  wall.max = 1020000;
  wall.ci_lo = 1000000;
  wall.ci_hi = 1020000;
  f.metrics = {clock, faults, multiplexed, wall};
  return f;
}

}  // namespace

TEST_CASE("measure -x, gives perf stat's fields in perf stat's order") {
  const std::string out = measure_separated(fixture(), ",");
  check_measure_golden("measure-x.txt", out);
  // value, unit, event, variance (+- of the mean), run time, % running
  CHECK(out.substr(0, out.find('\n')) == "0.91,msec,task-clock,0.63%,910000,100.00");
  CHECK(out.find("1100,,instructions,5.25%,455000,50.00\n") != std::string::npos);
  CHECK(out.find("1.01,msec,wall-time,0.57%,,\n") != std::string::npos);
}

TEST_CASE("measure -x takes any separator, as perf stat's does") {
  const std::string out = measure_separated(fixture(), ";");
  CHECK(out.substr(0, out.find('\n')) == "0.91;msec;task-clock;0.63%;910000;100.00");
}

TEST_CASE("measure --csv has a header and one row per metric with every summary value") {
  check_measure_golden("measure.csv", measure_csv(fixture()));
}

TEST_CASE("measure --markdown is a table with mean and sd") {
  const std::string md = measure_markdown(fixture());
  CHECK(md.find("| task-clock | 910.000 us | [900.000 us, 920.000 us] | 910.000 us ± 10.000 us |") != std::string::npos);
}

TEST_CASE("measure's text shows mean ± sd and perf stat's +- figure") {
  const std::string text = measure_text(fixture(), false);
  CHECK(text.find("910.000 us ± 10.000 us") != std::string::npos);
  CHECK(text.find("( +- 0.63% )") != std::string::npos);
}

TEST_CASE("measure JSON names its schema and version") {
  const nlohmann::json j = nlohmann::json::parse(measure_json(fixture()));
  CHECK(j.at("schema") == "obscheck-measure");
  CHECK(j.at("version") == kMeasureJsonVersion);
  CHECK(j.at("metrics").at(0).at("sd") == 10000.0);
  CHECK(j.at("metrics").at(3).at("running_ns").is_null());
}

TEST_CASE("measure: a multiplexed counter says, run by run, how much of the run it was counted") {
  MeasureFindings f = fixture();
  MetricSeries& s = f.metrics.at(0).series;
  s.multiplexed_runs = 2;
  s.max_scale = 4.0;
  s.running_fractions = {1.0, 0.5, 0.25};
  const std::string text = measure_text(f, false);
  CHECK(text.find("multiplexed in 2/3 runs (running 25.0%-100.0% of the time, scaled up to x4.00)") !=
        std::string::npos);
  const nlohmann::json j = nlohmann::json::parse(measure_json(f));
  CHECK(j.at("metrics").at(0).at("running_fraction") == nlohmann::json::array({1.0, 0.5, 0.25}));
  CHECK(j.at("metrics").at(3).at("running_fraction").is_null());  // the driver's wall time
}

TEST_CASE("measure: a run whose count is a fault is named under its counter, in the text and the JSON") {
  MeasureFindings f = fixture();
  f.metrics.at(0).series.faults = {"task-clock never ran: time running 0 of 5 ns enabled (run 2)"};
  const std::string text = measure_text(f, false);
  CHECK(text.find("fault: task-clock never ran: time running 0 of 5 ns enabled (run 2)\n") != std::string::npos);
  const nlohmann::json j = nlohmann::json::parse(measure_json(f));
  CHECK(j.at("metrics").at(0).at("faults") ==
        nlohmann::json::array({"task-clock never ran: time running 0 of 5 ns enabled (run 2)"}));
  CHECK(j.at("metrics").at(1).at("faults") == nlohmann::json::array());
  CHECK(j.at("metrics").at(3).at("faults").is_null());
}
