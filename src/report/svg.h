// report/: a small SVG writer and the two charts the reports draw — points with
// interval bars over categorical slots (effect against dose, the paper's Figures 2, 3
// and 12; effect per context, Figures 6–9) and distributions of raw values per group
// (strip plot with deterministic jitter over a violin from a Gaussian KDE; Figure 13).
//
// Why written here rather than taken from a library: no maintained C++ SVG plotting
// library is packaged in Debian (the C++ options — matplot++, sciplot — drive gnuplot
// or are not packaged; the packaged plotting stacks are Python, R or gnuplot, each a
// runtime dependency and a subprocess for a report that must be a pure function of
// its input), and a self-contained HTML report has to embed the finished SVG text
// anyway. The charts need only axes, nice ticks, lines, markers and text, which is a
// few hundred lines when written against SVG 1.1 directly.
//
// Every output is deterministic: the same chart gives the same bytes (coordinates are
// printed with at most two decimals, jitter is drawn from a seeded generator). Styling
// is carried by presentation attributes, not by a stylesheet, so a chart written to its
// own .svg file looks the same as inline in the HTML report. Elements carry stable
// class names (listed per chart below) so tests and stylesheets can find them.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace obscheck::svg {

// Text for XML character data and attribute values: & < > " ' become entities; C0
// control characters other than tab, line feed and carriage return (which XML 1.0
// forbids) are dropped. Other bytes, UTF-8 included, pass through unchanged.
std::string escape(std::string_view text);

// A coordinate or length: fixed two decimals (fmt's correctly rounded "{:.2f}") with
// trailing zeros and a trailing '.' removed, "-0" printed as "0"; 12.5 -> "12.5",
// 3 -> "3", 1/3 -> "0.33", -0.001 -> "0". Non-finite -> "0".
std::string num(double v);

struct Attr {
  std::string name, value;  // value is escaped when written
};
using Attrs = std::vector<Attr>;

// Builds one <svg> document element. Elements are written in call order; open() pushes
// a container that close() (or finish()) ends.
class Writer {
 public:
  // <svg xmlns="http://www.w3.org/2000/svg" width height viewBox="0 0 w h" role="img"
  // font-family=... font-size="12" ...root>.
  Writer(double width, double height, const Attrs& root);
  void open(std::string_view tag, const Attrs& attrs);
  void close();
  void element(std::string_view tag, const Attrs& attrs);  // self-closing
  // <tag attrs>escaped text</tag>; for <text> a '\n' in `text` starts a new <tspan> line.
  void text_element(std::string_view tag, const Attrs& attrs, std::string_view text);
  // Closes whatever is open and returns the document (ends with "</svg>\n").
  std::string finish();

 private:
  std::string out_;
  std::vector<std::string> open_;
};

// Axis ticks at "nice numbers" (Heckbert, "Nice numbers for graph labels", Graphics
// Gems, 1990): the step is 1, 2 or 5 times a power of ten, chosen so about `target`
// ticks span [lo, hi]; the returned range is widened outward to whole steps, so the
// first tick <= lo and the last >= hi. lo > hi is swapped; lo == hi is widened to
// [lo - 1, lo + 1] (or ±|lo|/10 when that is larger); target < 2 is taken as 2.
// Non-finite input gives the ticks of [0, 1].
struct Ticks {
  double lo = 0, hi = 1, step = 1;
  std::vector<double> values;  // lo, lo + step, ..., hi
};
Ticks nice_ticks(double lo, double hi, std::size_t target);

// A tick's text with as many decimals as the step needs (step 0.25 -> 2, step 20 -> 0),
// "-0" printed as "0", `unit` appended ("%" -> "-2%").
std::string tick_label(double v, double step, std::string_view unit);

// Marker shapes, so series stay distinct without colour (colour-blind safe together
// with the Okabe–Ito colours below).
enum class Marker { circle, square, triangle, diamond };

// Okabe & Ito (2008), "Color Universal Design": distinguishable under the common
// colour-vision deficiencies.
inline constexpr const char* kBlue = "#0072B2";
inline constexpr const char* kVermillion = "#D55E00";
inline constexpr const char* kGreen = "#009E73";
inline constexpr const char* kOrange = "#E69F00";
inline constexpr const char* kPurple = "#CC79A7";
inline constexpr const char* kSky = "#56B4E9";
inline constexpr const char* kGrey = "#666666";

// A marker of `size` (its bounding box side) centred on (x, y), class "marker".
void marker(Writer& w, Marker shape, double x, double y, double size, const std::string& colour,
            const Attrs& extra = {});

// A horizontal reference line across the plot area — a median, the ratio 1, an overall
// estimate — listed in the legend with its label ("" keeps it out of the legend).
// Drawn as <line class="ref-line" ...attrs>; a non-finite y is not drawn. The y range
// of the chart always covers it.
struct RefLine {
  double y = 0;
  std::string label;
  std::string colour = kGrey;
  bool dashed = false;
  Attrs attrs;  // e.g. data-ref="median"
};

// ---- points with interval bars over categorical slots --------------------------------

// One raw value behind a slot's point (every run of a context, say).
struct SlotValue {
  std::size_t slot = 0;
  double y = 0;  // non-finite: not drawn
};

struct IntervalSeries {
  std::string name;  // legend text
  std::string colour = kBlue;
  Marker shape = Marker::circle;
  Attrs attrs;       // on the series' <g class="series">, e.g. data-layout="held"
};

struct IntervalPoint {
  std::size_t slot = 0, series = 0;
  double y = 0;          // non-finite: not drawn
  double lo = 0, hi = 0;  // the interval; non-finite: no bar
  std::string tooltip;   // a <title> child (shown on hover), may be empty
};

struct IntervalChart {
  Attrs root;             // on <svg>, e.g. class="plot effect-curve" data-metric="..."
  std::string title;
  std::string x_label, y_label;
  std::string unit;       // appended to y tick labels, e.g. "%"
  std::vector<std::string> slots;  // x tick labels, left to right
  std::vector<IntervalSeries> series;
  std::vector<IntervalPoint> points;
  std::optional<std::pair<double, double>> band;  // shaded horizontal band (e.g. ±ε)
  std::string band_label;                         // its legend text
  bool zero_line = true;  // a line at y = 0 (and 0 inside the y range)
  bool connect = true;    // a polyline through each series' points in slot order
  double width = 640, height = 360;
  std::vector<RefLine> lines;   // horizontal reference lines
  std::vector<SlotValue> raw;   // raw values, drawn behind the series
  std::string raw_label;        // their legend text ("" = not in the legend)
  std::uint64_t raw_seed = 0;   // their sideways jitter
};

// Structure (classes): <svg ...root> <title>; <g class="legend"> entries;
// <g class="plot-area"> with <rect class="band">, <g class="axis y-axis"> (grid lines
// class "grid", tick labels class "tick-label"), <line class="zero-line">,
// <g class="axis x-axis"> (class "tick", "tick-label"), axis titles class "axis-label";
// per series <g class="series" ...attrs> holding <polyline class="series-line"> and per
// point <g class="point" data-slot="i"> with <line class="ci-bar">, two
// <line class="ci-cap">, the marker and its <title>. Series are dodged side by side
// within a slot so their bars never overlap. The y range covers every finite y, lo, hi,
// the band and zero. No slots: a chart with axes and the text "no data".
// Reference lines (class "ref-line", after the zero line) and raw values (one hollow
// <circle class="raw-point"> each, jittered sideways within the slot, never vertically,
// in <g class="raw-values"> before the series) are in the y range too and add legend
// entries after the band's. When the slot labels would run into each other (SVG cannot
// measure text, so a glyph is taken as 7 px), only every k-th label is written, k the
// smallest that leaves room, counting from the first; every slot keeps its tick.
std::string render(const IntervalChart& chart);

// ---- distributions of raw values per group --------------------------------------------

// A group's overall estimate with its interval (e.g. the ratio over all contexts and
// its confidence interval), drawn beside the group's points.
struct GroupEstimate {
  double y = 0;
  double lo = 0, hi = 0;  // non-finite: no bar
  std::string tooltip;    // its <title>
};

struct DistributionGroup {
  std::string label;          // x label; '\n' splits it over lines
  std::vector<double> values;  // non-finite values are skipped
  std::string colour = kBlue;
  Attrs attrs;                // on the group's <g class="group">, e.g. data-config="..."
  std::optional<GroupEstimate> estimate;
};

// Below this many points a KDE outline says more about the bandwidth than the data.
inline constexpr std::size_t kMinViolinPoints = 5;

struct DistributionChart {
  Attrs root;
  std::string title, y_label, unit;
  std::vector<DistributionGroup> groups;
  bool violin = true;        // a KDE outline behind the points (n >= kMinViolinPoints, spread > 0)
  std::uint64_t seed = 0;    // the jitter's seed
  double width = 640, height = 360;  // width grows to give each group at least 44 px
  std::vector<RefLine> lines;        // horizontal reference lines
  std::string estimate_label;        // legend text of the groups' estimates
};

// Structure: <svg ...root> <title>; axes as in IntervalChart; per group
// <g class="group" ...attrs> with <path class="violin"> (when drawn), one
// <circle class="run-point"> per finite value (jittered horizontally, never
// vertically), <line class="median"> and a <title> with n and the median.
// A group with an estimate adds <g class="estimate"> right of its points: a diamond
// marker, <line class="ci-bar"> and two <line class="ci-cap">, with its <title>.
// Reference lines are drawn as in IntervalChart. With reference lines or estimates the
// chart has a legend row (<g class="legend">) under the title; without, none, and the
// output is as before these existed. The y range covers values, estimates and lines.
std::string render(const DistributionChart& chart);

}  // namespace obscheck::svg
