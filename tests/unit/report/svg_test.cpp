// The SVG writer: exact small outputs, nice ticks, escaping, deterministic jitter,
// Silverman's bandwidth and the KDE against hand calculations.
#include <catch2/catch.hpp>

#include <algorithm>
#include <cmath>
#include <string>
#include <vector>

#include "report/svg.h"
#include "../occurrences.h"

using obscheck::test::count;

using namespace obscheck;

TEST_CASE("svg escape turns markup characters into entities and drops control characters") {
  CHECK(svg::escape("a<b & \"c\" 'd'>") == "a&lt;b &amp; &quot;c&quot; &#39;d&#39;&gt;");
  CHECK(svg::escape(std::string("x\x01y\tz\n", 6)) == "xy\tz\n");
  CHECK(svg::escape("±ε µs") == "±ε µs");  // UTF-8 passes through
  CHECK(svg::escape("") == "");
}

TEST_CASE("svg num prints at most two decimals without trailing zeros") {
  CHECK(svg::num(12.5) == "12.5");
  CHECK(svg::num(3) == "3");
  CHECK(svg::num(1.0 / 3) == "0.33");
  CHECK(svg::num(-0.001) == "0");
  CHECK(svg::num(-2.25) == "-2.25");
  CHECK(svg::num(100) == "100");
  CHECK(svg::num(std::nan("")) == "0");
}

TEST_CASE("svg writer output is exact, escaped, and closes what is open") {
  svg::Writer w(10, 20, {{"class", "a&b"}});
  w.open("g", {{"data-x", "<1>"}});
  w.element("line", {{"x1", "0"}, {"y1", "1"}});
  w.text_element("text", {{"x", "4"}}, "a<b");
  const std::string out = w.finish();
  const std::string head =
      "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"10\" height=\"20\" viewBox=\"0 0 10 20\" role=\"img\" "
      "font-family=\"system-ui, -apple-system, &#39;Segoe UI&#39;, Roboto, &#39;DejaVu Sans&#39;, sans-serif\" "
      "font-size=\"12\" class=\"a&amp;b\">\n";
  CHECK(out == head +
                   "<g data-x=\"&lt;1&gt;\">\n"
                   "<line x1=\"0\" y1=\"1\"/>\n"
                   "<text x=\"4\">a&lt;b</text>\n"
                   "</g>\n"
                   "</svg>\n");
}

TEST_CASE("svg text with line breaks becomes one tspan per line") {
  svg::Writer w(1, 1, {});
  w.text_element("text", {{"x", "7"}, {"y", "3"}}, "dose 1\nheld");
  const std::string out = w.finish();
  CHECK(out.find("<text x=\"7\" y=\"3\"><tspan x=\"7\" dy=\"0\">dose 1</tspan><tspan x=\"7\" dy=\"1.2em\">held</tspan>"
                 "</text>\n") != std::string::npos);
}

TEST_CASE("svg nice ticks follow Heckbert's 1-2-5 steps and cover the range") {
  // range 100 -> nice 100; 100 / 4 = 25 rounds to 20.
  const svg::Ticks a = svg::nice_ticks(0, 100, 5);
  CHECK(a.step == 20);
  CHECK(a.values == std::vector<double>{0, 20, 40, 60, 80, 100});
  // range 8.3 -> nice 10; 10 / 4 = 2.5 rounds to 2; floor(-3.2/2) = -2, ceil(5.1/2) = 3.
  const svg::Ticks b = svg::nice_ticks(-3.2, 5.1, 5);
  CHECK(b.step == 2);
  CHECK(b.values == std::vector<double>{-4, -2, 0, 2, 4, 6});
  // range 0.074 -> nice 0.1; 0.1 / 5 = 0.02; the values print as their decimals.
  const svg::Ticks c = svg::nice_ticks(0.013, 0.087, 6);
  CHECK(c.step == Approx(0.02));
  REQUIRE(c.values.size() == 6);
  CHECK(c.values[3] == 0.06);
  CHECK(svg::tick_label(c.values[3], c.step, "%") == "0.06%");
  // lo == hi is widened by 1 each side: range 2, 2 / 5 = 0.4 rounds to 0.5.
  const svg::Ticks d = svg::nice_ticks(5, 5, 6);
  CHECK(d.values == std::vector<double>{4, 4.5, 5, 5.5, 6});
  // reversed bounds are swapped
  CHECK(svg::nice_ticks(100, 0, 5).values == a.values);
}

TEST_CASE("svg tick labels carry the decimals of the step") {
  CHECK(svg::tick_label(40, 20, "") == "40");
  CHECK(svg::tick_label(0.5, 0.25, "%") == "0.50%");
  CHECK(svg::tick_label(7.5, 2.5, " ms") == "7.5 ms");
  CHECK(svg::tick_label(-0.0001, 1, "%") == "0%");
  CHECK(svg::tick_label(-4, 2, "%") == "-4%");
}

TEST_CASE("svg interval chart draws one bar per finite interval, series grouped, band and zero line") {
  svg::IntervalChart c;
  c.root = {{"class", "plot effect-curve"}, {"data-metric", "m"}};
  c.slots = {"1", "2", "3"};
  c.series = {{"natural", svg::kVermillion, svg::Marker::circle, {{"data-layout", "natural"}}},
              {"held", svg::kBlue, svg::Marker::square, {{"data-layout", "held"}}}};
  c.points = {{0, 0, 0, std::nan(""), std::nan(""), "ref"},
              {1, 0, 2, 1, 3, ""},
              {2, 0, 4, 3, 5, ""},
              {1, 1, 0.1, -0.5, 0.7, ""},
              {2, 1, std::nan(""), 0, 1, ""}};  // not drawn
  c.band = std::make_pair(-1.0, 1.0);
  c.band_label = "±ε";
  const std::string out = svg::render(c);
  CHECK(out.rfind("<svg ", 0) == 0);
  CHECK(count(out, "class=\"ci-bar\"") == 3);
  CHECK(count(out, "class=\"ci-cap\"") == 6);
  CHECK(count(out, "class=\"series\"") == 2);
  CHECK(count(out, "data-layout=\"natural\"") == 1);
  CHECK(count(out, "data-layout=\"held\"") == 1);
  CHECK(count(out, "class=\"point\"") == 4);
  CHECK(count(out, "class=\"series-line\"") == 1);  // held has one drawn point only
  CHECK(count(out, "class=\"band\"") == 1);
  CHECK(count(out, "class=\"zero-line\"") == 1);
  CHECK(count(out, "<circle class=\"marker\"") == 3 + 1);  // natural's points + its legend marker
  CHECK(count(out, "<rect class=\"marker\"") == 1 + 1);
  CHECK(out.find("<title>ref</title>") != std::string::npos);
  CHECK(out == svg::render(c));
  // y covers -1 (band) to 5 (a CI's top): range 6 -> nice 10, 10 / 5 = 2: ticks -2, 0, ..., 6.
  CHECK(out.find(">6</text>") != std::string::npos);
  CHECK(out.find(">-2</text>") != std::string::npos);
  CHECK(out.find(">-1</text>") == std::string::npos);
}

TEST_CASE("svg interval chart without slots says no data") {
  svg::IntervalChart c;
  const std::string out = svg::render(c);
  CHECK(out.find(">no data</text>") != std::string::npos);
  CHECK(count(out, "class=\"ci-bar\"") == 0);
}

TEST_CASE("svg distribution chart: one point per finite value, violin only with spread and enough points") {
  svg::DistributionChart c;
  c.root = {{"class", "plot runs-strip"}};
  c.seed = 3;
  c.groups = {{"a", {1, 2, 3, 4, 5, 6}, svg::kBlue, {{"data-config", "a"}}},
              {"b\nsecond line", {2, 2, 2, 2, 2, std::nan("")}, svg::kGreen, {{"data-config", "b"}}},
              {"c", {1, 9}, svg::kGrey, {{"data-config", "c"}}}};
  const std::string out = svg::render(c);
  CHECK(count(out, "class=\"run-point\"") == 6 + 5 + 2);
  CHECK(count(out, "class=\"violin\"") == 1);  // b has no spread, c too few points
  CHECK(count(out, "class=\"median\"") == 3);
  CHECK(count(out, "class=\"group\"") == 3);
  CHECK(out.find("<title>a: n = 6, median 3.5</title>") != std::string::npos);
  CHECK(out.find("<title>b\nsecond line: n = 5, median 2</title>") != std::string::npos);
  CHECK(out == svg::render(c));  // deterministic jitter
  c.seed = 4;
  CHECK(out != svg::render(c));
}

TEST_CASE("svg interval chart: reference lines and raw values are drawn, in the legend and in the y range") {
  svg::IntervalChart c;
  c.slots = {"a", "b"};
  c.series = {{"mean", svg::kBlue, svg::Marker::circle, {}}};
  c.points = {{0, 0, 10, 9, 11, ""}, {1, 0, 12, 11, 13, ""}};
  c.zero_line = false;
  c.raw = {{0, 9.5}, {0, 10.5}, {1, 12}, {1, 30}, {2, 99} /* no such slot */, {1, std::nan("")}};
  c.raw_label = "every run";
  c.lines = {{11, "median", svg::kVermillion, true, {{"data-ref", "median"}}}, {std::nan(""), "gone", svg::kGrey, false, {}}};
  const std::string out = svg::render(c);
  CHECK(count(out, "class=\"raw-point\"") == 4);
  CHECK(count(out, "class=\"ref-line\"") == 1);
  CHECK(count(out, "data-ref=\"median\"") == 1);
  CHECK(count(out, "stroke-dasharray=\"5 3\"") == 2);  // the line and its legend swatch
  CHECK(out.find(">every run</text>") != std::string::npos);
  CHECK(out.find(">median</text>") != std::string::npos);
  CHECK(out.find(">gone</text>") == std::string::npos);
  CHECK(count(out, "class=\"zero-line\"") == 0);
  // y covers 9 .. 30 (a raw value): range 21 -> nice 50, 50 / 5 = 10: ticks 0 .. 30.
  CHECK(out.find(">30</text>") != std::string::npos);
  CHECK(out.find(">40</text>") == std::string::npos);
  CHECK(out == svg::render(c));
}

TEST_CASE("svg interval chart writes every k-th slot label when they would collide, and keeps every tick") {
  svg::IntervalChart c;
  c.width = 640;
  for (int i = 0; i < 22; ++i) c.slots.push_back(std::to_string(10000 + i));  // 5 glyphs = 35 px each
  const std::string out = svg::render(c);
  // Plot width 640 - 64 - 16 = 560, 22 slots of 25.45 px: a 35 px label plus the 6 px gap
  // needs 2 slots, so labels 0, 2, ..., 20 are written.
  CHECK(count(out, "class=\"tick\"") == 22);
  CHECK(out.find(">10000</text>") != std::string::npos);
  CHECK(out.find(">10001</text>") == std::string::npos);
  CHECK(out.find(">10020</text>") != std::string::npos);
  CHECK(out.find(">10021</text>") == std::string::npos);
  svg::IntervalChart few;
  few.slots = {"10000", "10001", "10002"};
  const std::string all = svg::render(few);
  CHECK(all.find(">10001</text>") != std::string::npos);
}

TEST_CASE("svg distribution chart: estimates beside the groups, reference lines, and a legend only then") {
  svg::DistributionChart c;
  c.groups = {{"a", {1.0, 1.1, 1.2, 1.05, 1.15}, svg::kBlue, {{"data-comparison", "main"}}, std::nullopt},
              {"b", {0.99, 1.0, 1.01}, svg::kGrey, {}, std::nullopt}};
  const std::string plain = svg::render(c);
  CHECK(count(plain, "class=\"legend\"") == 0);
  c.groups[0].estimate = svg::GroupEstimate{1.1, 1.05, 1.15, "ratio 1.1"};
  c.groups[1].estimate = svg::GroupEstimate{1.0, std::nan(""), std::nan(""), ""};
  c.lines = {{1.0, "1 = no difference", "#333333", true, {{"data-ref", "one"}}}};
  c.estimate_label = "overall, 95% CI";
  const std::string out = svg::render(c);
  CHECK(count(out, "class=\"legend\"") == 1);
  CHECK(count(out, "class=\"estimate\"") == 2);
  CHECK(count(out, "class=\"ci-bar\"") == 1);  // b's estimate has no interval
  CHECK(count(out, "class=\"ci-cap\"") == 2);
  CHECK(count(out, "class=\"ref-line\"") == 1);
  CHECK(count(out, "data-ref=\"one\"") == 1);
  CHECK(out.find("<title>ratio 1.1</title>") != std::string::npos);
  CHECK(out.find(">overall, 95% CI</text>") != std::string::npos);
  CHECK(count(out, "class=\"run-point\"") == 8);
  // Lines alone draw nothing in a chart without values.
  svg::DistributionChart empty;
  empty.lines = c.lines;
  const std::string none = svg::render(empty);
  CHECK(count(none, "class=\"ref-line\"") == 0);
}
