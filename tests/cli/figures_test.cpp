// Every figure is drawn from the data it claims: the SVG files of a simulated check, a
// native check and a sweep are parsed back — each series with comparisons has its
// points, the y axis's ticks cover the points drawn and stay within a few steps of
// them, a per-run difference is never labelled as a percentage (in the SVG or the text
// plot), and the sweep's x axis is the bytes added to the environment, as the text
// report's "env+N" labels are.
#include <catch2/catch.hpp>
#include <stdlib.h>

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <regex>
#include <set>
#include <sstream>

#include "../unit/temp_dir.h"
#include "../unit/occurrences.h"
#include "run_cli.h"

using obscheck::test::count;
using obscheck::test::slurp;
using nlohmann::json;
using obscheck::test::run_cli;
using obscheck::test::TempDir;
using obscheck::test::workload;

namespace {

// The text between `open` (its first occurrence from `from`) and the matching close of
// a <g> group: groups nest, so the closes are counted.
std::string group_body(const std::string& svg, std::size_t open) {
  std::size_t depth = 0, at = open;
  while (at < svg.size()) {
    const std::size_t next_open = svg.find("<g", at + 1), next_close = svg.find("</g>", at + 1);
    if (next_close == std::string::npos) break;
    if (next_open != std::string::npos && next_open < next_close) {
      ++depth;
      at = next_open;
      continue;
    }
    if (depth == 0) return svg.substr(open, next_close - open);
    --depth;
    at = next_close;
  }
  return svg.substr(open);
}

struct Tick {
  double px = 0, value = 0;
  std::string label;
};

// The y axis's tick labels: pixel row and the number they print (unit stripped).
std::vector<Tick> y_ticks(const std::string& svg) {
  const std::size_t at = svg.find("<g class=\"axis y-axis\">");
  REQUIRE(at != std::string::npos);
  const std::string body = group_body(svg, at);
  std::vector<Tick> ticks;
  static const std::regex tick(R"re(<text class="tick-label" x="[^"]*" y="([^"]*)"[^>]*>([^<]*)</text>)re");
  for (std::sregex_iterator it(body.begin(), body.end(), tick), end; it != end; ++it)
    ticks.push_back({std::stod((*it)[1]), std::stod((*it)[2]), (*it)[2]});
  return ticks;
}

std::vector<std::string> x_tick_labels(const std::string& svg) {
  const std::size_t at = svg.find("<g class=\"axis x-axis\">");
  REQUIRE(at != std::string::npos);
  const std::string body = group_body(svg, at);
  std::vector<std::string> labels;
  static const std::regex tick(R"re(<text class="tick-label"[^>]*>([^<]*)</text>)re");
  for (std::sregex_iterator it(body.begin(), body.end(), tick), end; it != end; ++it) labels.push_back((*it)[1]);
  return labels;
}

// The pixel rows of a series' polyline (its points in slot order).
std::vector<double> polyline_rows(const std::string& series) {
  std::vector<double> rows;
  static const std::regex line(R"re(<polyline class="series-line" points="([^"]*)")re");
  std::smatch m;
  if (!std::regex_search(series, m, line)) return rows;
  std::istringstream pts(m[1].str());
  std::string xy;
  while (pts >> xy) rows.push_back(std::stod(xy.substr(xy.find(',') + 1)));
  return rows;
}

// The pixel rows of both ends of every interval bar in `svg`.
std::vector<double> bar_rows(const std::string& svg) {
  std::vector<double> rows;
  static const std::regex bar(R"re(<line class="ci-bar" x1="[^"]*" x2="[^"]*" y1="([^"]*)" y2="([^"]*)")re");
  for (std::sregex_iterator it(svg.begin(), svg.end(), bar), end; it != end; ++it) {
    rows.push_back(std::stod((*it)[1]));
    rows.push_back(std::stod((*it)[2]));
  }
  return rows;
}

// Series bodies by their data-layout (or data-config) attribute.
std::map<std::string, std::string> series_of(const std::string& svg) {
  std::map<std::string, std::string> out;
  static const std::regex open(R"re(<g class="series" data-layout="([^"]*)")re");
  for (std::sregex_iterator it(svg.begin(), svg.end(), open), end; it != end; ++it)
    out[(*it)[1]] = group_body(svg, static_cast<std::size_t>(it->position()));
  return out;
}

// The value a pixel row stands for, from the first and last ticks (the axis is linear).
double value_at(const std::vector<Tick>& ticks, double px) {
  const Tick& a = ticks.front();
  const Tick& b = ticks.back();
  return a.value + (px - a.px) * (b.value - a.value) / (b.px - a.px);
}

// The ticks cover every plotted row, and the axis is no more than a few of its own
// steps wider than what it must show (the points, zero and the ±ε band `band`).
void check_y_axis(const std::string& name, const std::string& svg, const std::vector<double>& rows, double band) {
  INFO(name);
  const auto ticks = y_ticks(svg);
  REQUIRE(ticks.size() >= 2);
  const double lo_tick = std::min(ticks.front().value, ticks.back().value);
  const double hi_tick = std::max(ticks.front().value, ticks.back().value);
  const double step = (hi_tick - lo_tick) / static_cast<double>(ticks.size() - 1);
  double lo = std::min(0.0, -band), hi = std::max(0.0, band);
  for (double px : rows) {
    const double v = value_at(ticks, px);
    lo = std::min(lo, v);
    hi = std::max(hi, v);
  }
  CHECK(lo_tick <= lo + step * 1e-6);
  CHECK(hi_tick >= hi - step * 1e-6);
  if (hi - lo <= step * 1e-6) return;  // nothing but zero to show: the ticks of a range widened to ±1 (svg.h)
  CHECK(lo_tick >= lo - 1.01 * step);  // nice ticks widen by less than one step each side
  CHECK(hi_tick <= hi + 1.01 * step);
}

// Per effect figure of a check: the points per series, the axis, the unit of the ticks.
void check_effect_figures(const std::string& dir, const json& report) {
  std::map<std::string, std::set<std::string>> layouts_with_points;  // metric -> layouts
  std::map<std::string, std::string> scale_of;
  for (const json& c : report.at("comparisons")) {
    if (c.at("aa").get<bool>() || c.at("n").get<int>() == 0 || c.at("effect").is_null()) continue;
    // JSON writes NaN and ±inf alike as null: an exact count is told by its method, and an
    // interval the data could not bound (few blocks, or the t-test set aside) is no point.
    const bool exact = c.at("ci").at("method").get<std::string>().rfind("none: deterministic", 0) == 0;
    const bool bounded = !c.at("ci").at("lo").is_null() && !c.at("ci").at("hi").is_null();
    if (exact || bounded) layouts_with_points[c.at("metric_name")].insert(c.at("layout").get<std::string>());
    scale_of[c.at("metric_name")] = c.at("scale");
  }
  std::size_t figures = 0;
  for (const auto& [metric, layouts] : layouts_with_points) {
    const std::string path = dir + "/effect-" + metric + ".svg";
    if (!std::filesystem::exists(path)) continue;
    ++figures;
    INFO(path);
    const std::string svg = slurp(path);
    const bool difference = scale_of[metric] == "difference";
    CHECK(count(svg, difference ? "data-scale=\"difference\"" : "data-scale=\"ratio\"") == 1);
    const auto series = series_of(svg);
    std::vector<double> rows;
    for (const std::string& layout : layouts) {
      INFO("layout " << layout);
      REQUIRE(series.count(layout) == 1);
      CHECK(count(series.at(layout), "<g class=\"point\"") >= 1);
      for (double r : polyline_rows(series.at(layout))) rows.push_back(r);
      for (double r : bar_rows(series.at(layout))) rows.push_back(r);
    }
    for (const Tick& t : y_ticks(svg)) CHECK((t.label.back() == '%') == !difference);
    check_y_axis(path, svg, rows, difference ? 0 : 100 * report.at("summary").at("margin").get<double>());
  }
  CHECK(figures >= 1);
}

}  // namespace

TEST_CASE("figures: a simulated check's effect SVGs draw every layout's points, exact counts without bars") {
  TempDir d;
  const std::string journal = d.file("check.jsonl"), figs = d.file("svg");
  // In process, so natural, held and sham layouts each get a series (the lab's fig02-03).
  auto r = run_cli({"--backend", "sim", "--sim-cache", "D1=2048,1,32", "--mode", "inprocess", "--counters",
                    "l1d,cycles", "--seed", "12", "--journal", journal, "--", workload("layout"), "200", "1024"});
  INFO(r.out << r.err);
  REQUIRE((r.code == 0 || r.code == 1));
  auto rep = run_cli({"report", journal, "--svg", figs});
  REQUIRE((rep.code == 0 || rep.code == 1));
  auto js = run_cli({"report", journal, "--json"});
  REQUIRE((js.code == 0 || js.code == 1));
  const json report = json::parse(js.out);
  check_effect_figures(figs, report);
  const std::string l1d = slurp(figs + "/effect-l1d.svg");
  for (const char* layout : {"natural", "held", "sham"}) {
    INFO(layout);
    const auto series = series_of(l1d);
    REQUIRE(series.count(layout) == 1);
    CHECK(count(series.at(layout), "<g class=\"point\"") == 2);  // dose 1 (the reference) and dose 2
  }
  CHECK(count(l1d, "class=\"ci-bar\"") == 0);  // exact: no interval to draw
}

TEST_CASE("figures: a native check's figures and text plots put a per-run difference in its unit, not in %") {
  TempDir d;
  const std::string journal = d.file("check.jsonl"), figs = d.file("svg");
  // Hardware breakpoints on the target's own function: any user may set them, and the
  // driver's rusage metrics of so short a program are small enough to be compared as
  // differences per run.
  auto r = run_cli({"--breakpoints", "obs_once", "--counters", "task-clock", "--time-budget", "3", "--seed", "7",
                    "--journal", journal, "--", workload("calls"), "1000"});
  INFO(r.out << r.err);
  if (r.code != 0 && r.code != 1) {
    WARN("SKIPPED: this host refuses a breakpoint or the task-clock event here (exit " << r.code << "): " << r.err);
    return;
  }
  REQUIRE((r.code == 0 || r.code == 1));
  auto rep = run_cli({"report", journal, "-v", "--svg", figs});
  REQUIRE((rep.code == 0 || rep.code == 1));
  auto js = run_cli({"report", journal, "--json"});
  REQUIRE((js.code == 0 || js.code == 1));
  const json report = json::parse(js.out);
  check_effect_figures(figs, report);
  // The text plot of each difference-scale metric: its heading says "per run" and no
  // axis label is a percentage.
  std::size_t difference_plots = 0;
  for (const json& m : report.at("metrics")) {
    const std::string name = m.at("name");
    bool difference = false;
    for (const json& c : report.at("comparisons"))
      if (c.at("metric_name") == name && c.at("scale") == "difference") difference = true;
    const std::size_t at = rep.out.find("\n" + name + " (");
    if (!difference || at == std::string::npos) continue;
    ++difference_plots;
    const std::size_t axis = rep.out.find("+--", at);
    REQUIRE(axis != std::string::npos);
    const std::string plot = rep.out.substr(at, axis - at);
    INFO(plot);
    CHECK(plot.find(", per run): effect vs dose") != std::string::npos);
    CHECK(plot.find("% |") == std::string::npos);
  }
  if (difference_plots == 0) WARN("no metric of this check was compared as a difference: the text-plot half checked nothing");
}

TEST_CASE("figures: a sweep's figure has a point per context on the x axis of bytes added, as the text's env+N") {
  TempDir d;
  const std::string figs = d.file("fig");
  auto r = run_cli({"bias", "--verbose", "--env-sizes", "0,400,800,1200", "-r", "2", "--seed", "5", "--svg", figs, "--",
                    workload("stackaddr")});
  INFO(r.out << r.err);
  REQUIRE((r.code == 0 || r.code == 1));
  for (const char* pad : {"env+0 ", "env+400 ", "env+800 ", "env+1200 "}) CHECK(r.out.find(pad) != std::string::npos);
  const std::string svg = slurp(figs + "/bias-task-clock.svg");
  REQUIRE(!svg.empty());
  CHECK(x_tick_labels(svg) == std::vector<std::string>{"0", "400", "800", "1200"});
  CHECK(count(svg, "<g class=\"point\"") == 4);
  // Every point's marker row is inside the ticks' range.
  const std::vector<double> rows = bar_rows(svg);
  REQUIRE(!rows.empty());
  const auto ticks = y_ticks(svg);
  REQUIRE(ticks.size() >= 2);
  const double top = std::min(ticks.front().px, ticks.back().px), bottom = std::max(ticks.front().px, ticks.back().px);
  for (double px : rows) {
    CHECK(px >= top - 0.01);
    CHECK(px <= bottom + 0.01);
  }
}
