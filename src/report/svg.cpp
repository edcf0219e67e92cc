#include "report/svg.h"

#include <fmt/core.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <numbers>
#include <stdexcept>

#include "analysis/figures.h"

namespace obscheck::svg {
namespace {

// A system sans-serif stack: every browser and printer has one of these, and none has
// to be fetched (the report works offline).
constexpr const char* kFontFamily = "system-ui, -apple-system, 'Segoe UI', Roboto, 'DejaVu Sans', sans-serif";
constexpr double kFontSize = 12;
// SVG cannot measure text; an average glyph of a 12 px sans-serif is about 7 px wide,
// enough to lay out a legend without overlaps.
constexpr double kCharWidth = 7;
constexpr double kLineHeight = 14;

constexpr double kMarginLeft = 64;   // the least room for tick labels and the rotated y title
constexpr double kMarginRight = 16;
constexpr double kTitleRow = 28;
constexpr double kLegendRow = 22;
constexpr double kMarkerSize = 9;
constexpr double kCapWidth = 8;
// Series are dodged by at most this much, and by no more than 60% of a slot in total.
constexpr double kMaxDodge = 16;
constexpr double kDodgeShare = 0.6;
constexpr std::size_t kTargetTicks = 6;

// Distribution charts: a group needs about this much width to show its violin and
// points apart from the next; the violin's half width is 40% of the slot, at most 40 px.
constexpr double kMinGroupWidth = 44;
constexpr double kViolinShare = 0.4;
constexpr double kMaxViolinHalf = 40;
// Points spread over 60% of the violin's half width each side: the cloud stays inside it.
constexpr double kJitterShare = 0.6;
constexpr double kPointRadius = 2.5;
// Grid for the violin outline: 48 steps draw a smooth curve at report sizes.
constexpr std::size_t kViolinGrid = 48;
// IQR / 1.34 estimates sigma under normality (1.34 ≈ 2 Φ⁻¹(3/4)), Silverman 1986.

// Slot labels closer than this (px) read as one.
constexpr double kLabelGap = 6;
// Raw values behind interval points: small and hollow so the points and bars stay legible.
constexpr double kRawRadius = 2;
constexpr const char* kRawColour = "#9a9a9a";
// An estimate sits this far right of its group's violin.
constexpr double kEstimateGap = 12;

constexpr const char* kAxisColour = "#333333";
constexpr const char* kGridColour = "#e3e3e3";
constexpr const char* kBandColour = "#8c8c8c";

std::string attrs_text(const Attrs& attrs) {
  std::string out;
  for (const Attr& a : attrs) out += fmt::format(" {}=\"{}\"", a.name, escape(a.value));
  return out;
}

const std::string* find_attr(const Attrs& attrs, std::string_view name) {
  for (const Attr& a : attrs)
    if (a.name == name) return &a.value;
  return nullptr;
}

std::vector<std::string> split_lines(const std::string& s) {
  std::vector<std::string> out;
  std::size_t start = 0;
  for (;;) {
    const std::size_t nl = s.find('\n', start);
    out.push_back(s.substr(start, nl == std::string::npos ? std::string::npos : nl - start));
    if (nl == std::string::npos) return out;
    start = nl + 1;
  }
}

double text_width(std::string_view s) {
  std::size_t glyphs = 0;
  for (char c : s)
    if ((static_cast<unsigned char>(c) & 0xC0) != 0x80) ++glyphs;
  return static_cast<double>(glyphs) * kCharWidth;
}

// A linear map from a value range onto a pixel range (the pixel range may run downwards).
struct Scale {
  double d0 = 0, d1 = 1, r0 = 0, r1 = 1;
  double operator()(double v) const { return d1 == d0 ? r0 : r0 + (v - d0) / (d1 - d0) * (r1 - r0); }
};

struct Frame {
  double x0, x1, y0, y1;  // the plot area
};

void title_and_label(Writer& w, const std::string& title, double x) {
  if (!title.empty())
    w.text_element("text", {{"class", "chart-title"}, {"x", num(x)}, {"y", "18"}, {"font-size", "14"},
                            {"font-weight", "bold"}},
                   title);
}

// Horizontal grid lines, y tick labels and the y axis title.
void y_axis(Writer& w, const Frame& fr, const Ticks& t, const Scale& ys, const std::string& unit,
            const std::string& label) {
  w.open("g", {{"class", "axis y-axis"}});
  for (double v : t.values) {
    const std::string y = num(ys(v));
    w.element("line", {{"class", "grid"}, {"x1", num(fr.x0)}, {"x2", num(fr.x1)}, {"y1", y}, {"y2", y},
                       {"stroke", kGridColour}});
    w.text_element("text", {{"class", "tick-label"}, {"x", num(fr.x0 - 6)}, {"y", y}, {"dy", "0.35em"},
                            {"text-anchor", "end"}},
                   tick_label(v, t.step, unit));
  }
  w.element("line", {{"class", "axis-line"}, {"x1", num(fr.x0)}, {"x2", num(fr.x0)}, {"y1", num(fr.y0)},
                     {"y2", num(fr.y1)}, {"stroke", kAxisColour}});
  if (!label.empty()) {
    const double cy = (fr.y0 + fr.y1) / 2;
    w.text_element("text", {{"class", "axis-label"}, {"x", "14"}, {"y", num(cy)}, {"text-anchor", "middle"},
                            {"transform", fmt::format("rotate(-90 14 {})", num(cy))}},
                   label);
  }
  w.close();
}

// Every k-th slot label fits when k slots are at least as wide as the widest label
// plus a gap; 1 when they all fit.
std::size_t label_stride(const std::vector<std::string>& slots, double slot_w) {
  double widest = 0;
  for (const std::string& s : slots)
    for (const std::string& line : split_lines(s)) widest = std::max(widest, text_width(line));
  std::size_t k = 1;
  if (slot_w > 0)
    while (static_cast<double>(k) * slot_w < widest + kLabelGap && k < slots.size()) ++k;
  return k;
}

// The x axis line with one tick per slot centre and a label on every `stride`-th.
void x_axis(Writer& w, const Frame& fr, const std::vector<std::string>& slots, const std::string& label,
            double height, bool thin_labels = false) {
  w.open("g", {{"class", "axis x-axis"}});
  w.element("line", {{"class", "axis-line"}, {"x1", num(fr.x0)}, {"x2", num(fr.x1)}, {"y1", num(fr.y1)},
                     {"y2", num(fr.y1)}, {"stroke", kAxisColour}});
  const double slot_w = slots.empty() ? 0 : (fr.x1 - fr.x0) / static_cast<double>(slots.size());
  const std::size_t stride = thin_labels ? label_stride(slots, slot_w) : 1;
  for (std::size_t i = 0; i < slots.size(); ++i) {
    const std::string x = num(fr.x0 + (static_cast<double>(i) + 0.5) * slot_w);
    w.element("line", {{"class", "tick"}, {"x1", x}, {"x2", x}, {"y1", num(fr.y1)}, {"y2", num(fr.y1 + 4)},
                       {"stroke", kAxisColour}});
    if (i % stride != 0) continue;
    w.text_element("text", {{"class", "tick-label"}, {"x", x}, {"y", num(fr.y1 + 17)}, {"text-anchor", "middle"}},
                   slots[i]);
  }
  if (!label.empty())
    w.text_element("text", {{"class", "axis-label"}, {"x", num((fr.x0 + fr.x1) / 2)}, {"y", num(height - 8)},
                            {"text-anchor", "middle"}},
                   label);
  w.close();
}

// Room for the widest tick label, the gap to the axis and the rotated y title.
double left_margin(const Ticks& t, const std::string& unit) {
  double widest = 0;
  for (double v : t.values) widest = std::max(widest, text_width(tick_label(v, t.step, unit)));
  return std::max(kMarginLeft, 30 + widest);
}

void no_data(Writer& w, const Frame& fr) {
  w.text_element("text", {{"class", "no-data"}, {"x", num((fr.x0 + fr.x1) / 2)}, {"y", num((fr.y0 + fr.y1) / 2)},
                          {"text-anchor", "middle"}, {"fill", kGrey}},
                 "no data");
}

// The range a chart's y axis must show: every finite value given, widened to ticks.
struct Extent {
  double lo = std::numeric_limits<double>::infinity(), hi = -std::numeric_limits<double>::infinity();
  void take(double v) {
    if (!std::isfinite(v)) return;
    lo = std::min(lo, v);
    hi = std::max(hi, v);
  }
  bool empty() const { return lo > hi; }
};

// A legend entry for a reference line: a short stroke in its style, then its label.
// Returns the x after it.
double line_entry(Writer& w, const RefLine& l, double x, double y) {
  w.open("g", {{"class", "legend-entry"}});
  Attrs a{{"x1", num(x)}, {"x2", num(x + 18)}, {"y1", num(y)}, {"y2", num(y)}, {"stroke", l.colour},
          {"stroke-width", "2"}};
  if (l.dashed) a.push_back({"stroke-dasharray", "5 3"});
  w.element("line", a);
  w.text_element("text", {{"x", num(x + 23)}, {"y", num(y)}, {"dy", "0.35em"}}, l.label);
  w.close();
  return x + 23 + text_width(l.label) + 18;
}

void ref_lines(Writer& w, const std::vector<RefLine>& lines, const Frame& fr, const Scale& ys) {
  for (const RefLine& l : lines) {
    if (!std::isfinite(l.y)) continue;
    const std::string y = num(ys(l.y));
    Attrs a{{"class", "ref-line"}, {"x1", num(fr.x0)}, {"x2", num(fr.x1)}, {"y1", y}, {"y2", y},
            {"stroke", l.colour}, {"stroke-width", "1.5"}};
    if (l.dashed) a.push_back({"stroke-dasharray", "5 3"});
    a.insert(a.end(), l.attrs.begin(), l.attrs.end());
    w.element("line", a);
  }
}

void legend(Writer& w, const IntervalChart& c, double x, double y) {
  w.open("g", {{"class", "legend"}});
  for (const IntervalSeries& s : c.series) {
    w.open("g", {{"class", "legend-entry"}});
    marker(w, s.shape, x + kMarkerSize / 2, y, kMarkerSize, s.colour);
    w.text_element("text", {{"x", num(x + kMarkerSize + 5)}, {"y", num(y)}, {"dy", "0.35em"}}, s.name);
    w.close();
    x += kMarkerSize + 5 + text_width(s.name) + 18;
  }
  if (c.band && !c.band_label.empty()) {
    w.open("g", {{"class", "legend-entry"}});
    w.element("rect", {{"x", num(x)}, {"y", num(y - 5)}, {"width", "14"}, {"height", "10"}, {"fill", kBandColour},
                       {"fill-opacity", "0.25"}});
    w.text_element("text", {{"x", num(x + 19)}, {"y", num(y)}, {"dy", "0.35em"}}, c.band_label);
    w.close();
    x += 19 + text_width(c.band_label) + 18;
  }
  if (!c.raw.empty() && !c.raw_label.empty()) {
    w.open("g", {{"class", "legend-entry"}});
    w.element("circle", {{"cx", num(x + 4)}, {"cy", num(y)}, {"r", num(kRawRadius + 0.5)}, {"fill", "none"},
                         {"stroke", kRawColour}});
    w.text_element("text", {{"x", num(x + 12)}, {"y", num(y)}, {"dy", "0.35em"}}, c.raw_label);
    w.close();
    x += 12 + text_width(c.raw_label) + 18;
  }
  for (const RefLine& l : c.lines)
    if (!l.label.empty() && std::isfinite(l.y)) x = line_entry(w, l, x, y);
  w.close();
}

// Raw values jittered within their slot: over the dodge width of the series, so they
// sit behind the points they summarise.
void raw_values(Writer& w, const IntervalChart& c, const Frame& fr, const Scale& ys) {
  if (c.raw.empty()) return;
  const double slot_w = (fr.x1 - fr.x0) / static_cast<double>(c.slots.size());
  const double spread = std::min(kMaxDodge, slot_w * kDodgeShare / 2);
  const std::vector<double> jit = point_offsets(c.raw.size(), c.raw_seed);
  w.open("g", {{"class", "raw-values"}});
  for (std::size_t i = 0; i < c.raw.size(); ++i) {
    const SlotValue& v = c.raw[i];
    if (v.slot >= c.slots.size() || !std::isfinite(v.y)) continue;
    w.element("circle", {{"class", "raw-point"}, {"cx", num(fr.x0 + (static_cast<double>(v.slot) + 0.5) * slot_w +
                                                             jit[i] * spread)},
                         {"cy", num(ys(v.y))}, {"r", num(kRawRadius)}, {"fill", "none"}, {"stroke", kRawColour},
                         {"stroke-width", "1"}});
  }
  w.close();
}

void series_points(Writer& w, const IntervalChart& c, std::size_t s, const Frame& fr, const Scale& ys) {
  const std::size_t n_series = std::max<std::size_t>(c.series.size(), 1);
  const double slot_w = (fr.x1 - fr.x0) / static_cast<double>(c.slots.size());
  const double dodge = std::min(kMaxDodge, slot_w * kDodgeShare / static_cast<double>(n_series));
  const double offset = (static_cast<double>(s) - static_cast<double>(n_series - 1) / 2) * dodge;
  const IntervalSeries& series = c.series[s];

  std::vector<const IntervalPoint*> pts;
  for (const IntervalPoint& p : c.points)
    if (p.series == s && p.slot < c.slots.size() && std::isfinite(p.y)) pts.push_back(&p);
  std::stable_sort(pts.begin(), pts.end(), [](auto* a, auto* b) { return a->slot < b->slot; });
  auto x_of = [&](const IntervalPoint& p) {
    return fr.x0 + (static_cast<double>(p.slot) + 0.5) * slot_w + offset;
  };

  Attrs group{{"class", "series"}};
  group.insert(group.end(), series.attrs.begin(), series.attrs.end());
  w.open("g", group);
  if (c.connect && pts.size() >= 2) {
    std::string points;
    for (const IntervalPoint* p : pts)
      points += fmt::format("{}{},{}", points.empty() ? "" : " ", num(x_of(*p)), num(ys(p->y)));
    w.element("polyline", {{"class", "series-line"}, {"points", points}, {"fill", "none"}, {"stroke", series.colour},
                           {"stroke-width", "1.5"}, {"stroke-opacity", "0.7"}});
  }
  for (const IntervalPoint* p : pts) {
    const double x = x_of(*p);
    w.open("g", {{"class", "point"}, {"data-slot", std::to_string(p->slot)}});
    if (!p->tooltip.empty()) w.text_element("title", {}, p->tooltip);
    if (std::isfinite(p->lo) && std::isfinite(p->hi)) {
      const std::string lo = num(ys(p->lo)), hi = num(ys(p->hi));
      w.element("line", {{"class", "ci-bar"}, {"x1", num(x)}, {"x2", num(x)}, {"y1", lo}, {"y2", hi},
                         {"stroke", series.colour}, {"stroke-width", "1.5"}});
      for (const std::string& y : {lo, hi})
        w.element("line", {{"class", "ci-cap"}, {"x1", num(x - kCapWidth / 2)}, {"x2", num(x + kCapWidth / 2)},
                           {"y1", y}, {"y2", y}, {"stroke", series.colour}, {"stroke-width", "1.5"}});
    }
    marker(w, series.shape, x, ys(p->y), kMarkerSize, series.colour);
    w.close();
  }
  w.close();
}

std::string short_number(double v, const std::string& unit) {
  return fmt::format("{:.4g}{}{}", v + 0.0, unit.empty() ? "" : " ", unit);
}

// The range of a distribution chart's values and estimates, its reference lines left out.
Extent distribution_extent(const DistributionChart& c) {
  Extent e;
  for (const DistributionGroup& g : c.groups) {
    for (double v : g.values) e.take(v);
    if (!g.estimate) continue;
    e.take(g.estimate->y);
    e.take(g.estimate->lo);
    e.take(g.estimate->hi);
  }
  return e;
}

// The distribution chart's legend row: the estimate's marker, then each labelled reference line.
void distribution_legend(Writer& w, const DistributionChart& c, bool estimates, bool has_values, double x,
                         double y) {
  w.open("g", {{"class", "legend"}});
  if (estimates && !c.estimate_label.empty()) {
    w.open("g", {{"class", "legend-entry"}});
    marker(w, Marker::diamond, x + kMarkerSize / 2, y, kMarkerSize, "#222222");
    w.text_element("text", {{"x", num(x + kMarkerSize + 5)}, {"y", num(y)}, {"dy", "0.35em"}}, c.estimate_label);
    w.close();
    x += kMarkerSize + 5 + text_width(c.estimate_label) + 18;
  }
  for (const RefLine& l : c.lines)
    if (has_values && !l.label.empty() && std::isfinite(l.y)) x = line_entry(w, l, x, y);
  w.close();
}

// A violin outline centred on `cx`: the density to the right, mirrored back on the left.
void violin(Writer& w, const GroupShape& shape, double cx, double half, const Scale& ys, const std::string& colour) {
  if (shape.density.empty()) return;
  std::string d;
  for (std::size_t k = 0; k < shape.grid.size(); ++k)
    d += fmt::format("{}{},{}", k == 0 ? "M" : "L", num(cx + shape.density[k] * half), num(ys(shape.grid[k])));
  for (std::size_t k = shape.grid.size(); k-- > 0;)
    d += fmt::format("L{},{}", num(cx - shape.density[k] * half), num(ys(shape.grid[k])));
  w.element("path", {{"class", "violin"}, {"d", d + "Z"}, {"fill", colour}, {"fill-opacity", "0.15"},
                     {"stroke", colour}, {"stroke-opacity", "0.6"}});
}

// A group's estimate at `ex`: its tooltip, its interval bar with caps, and a diamond marker.
void group_estimate(Writer& w, const GroupEstimate& est, double ex, const Scale& ys) {
  w.open("g", {{"class", "estimate"}});
  if (!est.tooltip.empty()) w.text_element("title", {}, est.tooltip);
  if (std::isfinite(est.lo) && std::isfinite(est.hi)) {
    const std::string lo = num(ys(est.lo)), hi = num(ys(est.hi));
    w.element("line", {{"class", "ci-bar"}, {"x1", num(ex)}, {"x2", num(ex)}, {"y1", lo}, {"y2", hi},
                       {"stroke", "#222222"}, {"stroke-width", "1.5"}});
    for (const std::string& y : {lo, hi})
      w.element("line", {{"class", "ci-cap"}, {"x1", num(ex - kCapWidth / 2)}, {"x2", num(ex + kCapWidth / 2)},
                         {"y1", y}, {"y2", y}, {"stroke", "#222222"}, {"stroke-width", "1.5"}});
  }
  marker(w, Marker::diamond, ex, ys(est.y), kMarkerSize, "#222222");
  w.close();
}

// Group `gi` in its slot: a tooltip, the violin, the jittered points, the median and any estimate.
void distribution_group(Writer& w, const DistributionChart& c, std::size_t gi, const Frame& fr, const Scale& ys,
                        double slot_w, double half) {
  const DistributionGroup& g = c.groups[gi];
  std::vector<double> v;
  for (double x : g.values)
    if (std::isfinite(x)) v.push_back(x);
  const double cx = fr.x0 + (static_cast<double>(gi) + 0.5) * slot_w;
  Attrs group{{"class", "group"}};
  group.insert(group.end(), g.attrs.begin(), g.attrs.end());
  w.open("g", group);
  if (v.empty()) {
    w.text_element("title", {}, g.label + ": no values");
    w.close();
    return;
  }
  std::uint64_t state = c.seed + gi;
  const GroupShape shape = group_shape(v, c.violin, kMinViolinPoints, kViolinGrid, next_seed(state));
  const double med = shape.median;
  w.text_element("title", {}, fmt::format("{}: n = {}, median {}", g.label, v.size(), short_number(med, c.unit)));
  violin(w, shape, cx, half, ys, g.colour);
  const std::vector<double>& jit = shape.offsets;
  for (std::size_t i = 0; i < v.size(); ++i)
    w.element("circle", {{"class", "run-point"}, {"cx", num(cx + jit[i] * half * kJitterShare)},
                         {"cy", num(ys(v[i]))}, {"r", num(kPointRadius)}, {"fill", g.colour},
                         {"fill-opacity", "0.6"}});
  const std::string my = num(ys(med));
  w.element("line", {{"class", "median"}, {"x1", num(cx - half * 0.7)}, {"x2", num(cx + half * 0.7)}, {"y1", my},
                     {"y2", my}, {"stroke", "#222222"}, {"stroke-width", "2"}});
  if (g.estimate && std::isfinite(g.estimate->y))
    group_estimate(w, *g.estimate, cx + std::min(half + kEstimateGap, slot_w / 2 - kCapWidth), ys);
  w.close();
}

}  // namespace

std::string escape(std::string_view text) {
  std::string out;
  out.reserve(text.size());
  for (char c : text) {
    switch (c) {
      case '&': out += "&amp;"; break;
      case '<': out += "&lt;"; break;
      case '>': out += "&gt;"; break;
      case '"': out += "&quot;"; break;
      case '\'': out += "&#39;"; break;
      default:
        if (static_cast<unsigned char>(c) < 0x20 && c != '\t' && c != '\n' && c != '\r') break;
        out += c;
    }
  }
  return out;
}

std::string num(double v) {
  if (!std::isfinite(v)) return "0";
  std::string s = fmt::format("{:.2f}", v);
  s.erase(s.find_last_not_of('0') + 1);
  if (s.back() == '.') s.pop_back();
  if (s == "-0") s = "0";
  return s;
}

Writer::Writer(double width, double height, const Attrs& root) {
  out_ = fmt::format(
      "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"{0}\" height=\"{1}\" viewBox=\"0 0 {0} {1}\" role=\"img\" "
      "font-family=\"{2}\" font-size=\"{3}\"{4}>\n",
      num(width), num(height), escape(kFontFamily), num(kFontSize), attrs_text(root));
  open_.push_back("svg");
}

void Writer::open(std::string_view tag, const Attrs& attrs) {
  out_ += fmt::format("<{}{}>\n", tag, attrs_text(attrs));
  open_.emplace_back(tag);
}

void Writer::close() {
  if (open_.empty()) return;
  out_ += fmt::format("</{}>\n", open_.back());
  open_.pop_back();
}

void Writer::element(std::string_view tag, const Attrs& attrs) { out_ += fmt::format("<{}{}/>\n", tag, attrs_text(attrs)); }

void Writer::text_element(std::string_view tag, const Attrs& attrs, std::string_view text) {
  const std::string s(text);
  if (tag != "text" || s.find('\n') == std::string::npos) {
    out_ += fmt::format("<{0}{1}>{2}</{0}>\n", tag, attrs_text(attrs), escape(s));
    return;
  }
  const std::string* x = find_attr(attrs, "x");
  std::string body;
  bool first = true;
  for (const std::string& line : split_lines(s)) {
    body += fmt::format("<tspan x=\"{}\" dy=\"{}\">{}</tspan>", x ? escape(*x) : "0", first ? "0" : "1.2em",
                        escape(line));
    first = false;
  }
  out_ += fmt::format("<{0}{1}>{2}</{0}>\n", tag, attrs_text(attrs), body);
}

std::string Writer::finish() {
  while (!open_.empty()) close();
  return std::move(out_);
}

Ticks nice_ticks(double lo, double hi, std::size_t target) {
  if (!std::isfinite(lo) || !std::isfinite(hi)) lo = 0, hi = 1;
  if (lo > hi) std::swap(lo, hi);
  if (lo == hi) {
    const double pad = std::max(1.0, std::abs(lo) / 10);
    lo -= pad;
    hi += pad;
  }
  target = std::max<std::size_t>(target, 2);
  // Heckbert's nicenum: the nice number near x, rounded (for the step) or taken as
  // the ceiling (for the range).
  auto nicenum = [](double x, bool round) {
    const double e = std::floor(std::log10(x));
    const double f = x / std::pow(10.0, e);
    double nf;
    if (round) nf = f < 1.5 ? 1 : f < 3 ? 2 : f < 7 ? 5 : 10;
    else nf = f <= 1 ? 1 : f <= 2 ? 2 : f <= 5 ? 5 : 10;
    return nf * std::pow(10.0, e);
  };
  const double range = nicenum(hi - lo, false);
  Ticks t;
  t.step = nicenum(range / static_cast<double>(target - 1), true);
  t.lo = std::floor(lo / t.step) * t.step;
  t.hi = std::ceil(hi / t.step) * t.step;
  const auto n = static_cast<std::size_t>(std::llround((t.hi - t.lo) / t.step));
  for (std::size_t i = 0; i <= n; ++i) {
    // lo + i·step, snapped to the step's decimals so 0.1 + 0.2 prints as 0.3.
    const double v = t.lo + static_cast<double>(i) * t.step;
    const double snap = std::pow(10.0, std::max(0.0, -std::floor(std::log10(t.step))) + 1);
    t.values.push_back(std::round(v * snap) / snap + 0.0);
  }
  t.lo = t.values.front();
  t.hi = t.values.back();
  return t;
}

std::string tick_label(double v, double step, std::string_view unit) {
  const int decimals =
      step > 0 && std::isfinite(step) ? std::max(0, static_cast<int>(-std::floor(std::log10(step) + 1e-9))) : 0;
  // Steps like 0.25 or 2.5 need one decimal more than their power of ten.
  const double scaled = step * std::pow(10.0, decimals);
  const int extra = std::abs(scaled - std::round(scaled)) > 1e-9 ? 1 : 0;
  std::string s = fmt::format("{:.{}f}", v, decimals + extra);
  if (s.find_first_not_of("-0.") == std::string::npos) s = std::string(s.begin() + (s[0] == '-' ? 1 : 0), s.end());
  return s + std::string(unit);
}

void marker(Writer& w, Marker shape, double x, double y, double size, const std::string& colour, const Attrs& extra) {
  const double r = size / 2;
  Attrs a{{"class", "marker"}};
  switch (shape) {
    case Marker::circle:
      a.insert(a.end(), {{"cx", num(x)}, {"cy", num(y)}, {"r", num(r)}});
      break;
    case Marker::square:
      // A square of the same area reads as the same weight as the circle.
      a.insert(a.end(), {{"x", num(x - r * 0.9)}, {"y", num(y - r * 0.9)}, {"width", num(size * 0.9)},
                         {"height", num(size * 0.9)}});
      break;
    case Marker::triangle:
      a.push_back({"d", fmt::format("M{},{}L{},{}L{},{}Z", num(x), num(y - r * 1.15), num(x + r * 1.1),
                                    num(y + r * 0.85), num(x - r * 1.1), num(y + r * 0.85))});
      break;
    case Marker::diamond:
      a.push_back({"d", fmt::format("M{},{}L{},{}L{},{}L{},{}Z", num(x), num(y - r * 1.2), num(x + r * 1.2), num(y),
                                    num(x), num(y + r * 1.2), num(x - r * 1.2), num(y))});
      break;
  }
  a.insert(a.end(), {{"fill", colour}, {"stroke", "#ffffff"}, {"stroke-width", "0.8"}});
  a.insert(a.end(), extra.begin(), extra.end());
  const char* tag = shape == Marker::circle ? "circle" : shape == Marker::square ? "rect" : "path";
  w.element(tag, a);
}

std::string render(const IntervalChart& c) {
  Writer w(c.width, c.height, c.root);
  if (!c.title.empty()) w.text_element("title", {}, c.title);
  Extent e;
  if (c.zero_line) e.take(0);
  if (c.band) {
    e.take(c.band->first);
    e.take(c.band->second);
  }
  for (const IntervalPoint& p : c.points) {
    if (p.slot >= c.slots.size() || !std::isfinite(p.y)) continue;
    e.take(p.y);
    e.take(p.lo);
    e.take(p.hi);
  }
  for (const SlotValue& v : c.raw)
    if (v.slot < c.slots.size()) e.take(v.y);
  for (const RefLine& l : c.lines) e.take(l.y);
  const Ticks t = e.empty() ? nice_ticks(0, 1, kTargetTicks) : nice_ticks(e.lo, e.hi, kTargetTicks);
  const double left = left_margin(t, c.unit);
  const double top = kTitleRow + kLegendRow + 8;
  const double bottom = 24 + (c.x_label.empty() ? 0 : kLineHeight + 6);
  const Frame fr{left, c.width - kMarginRight, top, c.height - bottom};
  title_and_label(w, c.title, left);
  legend(w, c, left, kTitleRow + kLegendRow / 2);
  const Scale ys{t.lo, t.hi, fr.y1, fr.y0};

  w.open("g", {{"class", "plot-area"}});
  if (c.band) {
    const double y_hi = ys(std::max(c.band->first, c.band->second));
    const double y_lo = ys(std::min(c.band->first, c.band->second));
    w.element("rect", {{"class", "band"}, {"x", num(fr.x0)}, {"y", num(y_hi)}, {"width", num(fr.x1 - fr.x0)},
                       {"height", num(y_lo - y_hi)}, {"fill", kBandColour}, {"fill-opacity", "0.25"}});
  }
  y_axis(w, fr, t, ys, c.unit, c.y_label);
  if (c.zero_line)
    w.element("line", {{"class", "zero-line"}, {"x1", num(fr.x0)}, {"x2", num(fr.x1)}, {"y1", num(ys(0))},
                       {"y2", num(ys(0))}, {"stroke", kAxisColour}, {"stroke-width", "1"}});
  ref_lines(w, c.lines, fr, ys);
  x_axis(w, fr, c.slots, c.x_label, c.height, true);
  if (c.slots.empty()) no_data(w, fr);
  else {
    raw_values(w, c, fr, ys);
    for (std::size_t s = 0; s < c.series.size(); ++s) series_points(w, c, s, fr, ys);
  }
  w.close();
  return w.finish();
}

std::string render(const DistributionChart& c) {
  std::size_t label_lines = 1;
  for (const DistributionGroup& g : c.groups) label_lines = std::max(label_lines, split_lines(g.label).size());
  const double width =
      std::max(c.width, 2 * kMarginLeft + kMarginRight + kMinGroupWidth * static_cast<double>(c.groups.size()));
  Writer w(width, c.height, c.root);
  if (!c.title.empty()) w.text_element("title", {}, c.title);
  Extent e = distribution_extent(c);
  const bool estimates = std::any_of(c.groups.begin(), c.groups.end(),
                                     [](const DistributionGroup& g) { return g.estimate.has_value(); });
  // Lines alone do not make a chart with data, but they are in its range when it has some.
  const bool has_values = !e.empty();
  if (has_values)
    for (const RefLine& l : c.lines) e.take(l.y);
  bool legend_row = estimates;
  for (const RefLine& l : c.lines) legend_row = legend_row || (has_values && !l.label.empty() && std::isfinite(l.y));
  const Ticks t = e.empty() ? nice_ticks(0, 1, kTargetTicks) : nice_ticks(e.lo, e.hi, kTargetTicks);
  const double left = left_margin(t, c.unit);
  const Frame fr{left, width - kMarginRight, kTitleRow + (legend_row ? kLegendRow : 0) + 8,
                 c.height - (12 + kLineHeight * static_cast<double>(label_lines))};
  title_and_label(w, c.title, left);
  if (legend_row) distribution_legend(w, c, estimates, has_values, left, kTitleRow + kLegendRow / 2);
  const Scale ys{t.lo, t.hi, fr.y1, fr.y0};
  std::vector<std::string> labels;
  for (const DistributionGroup& g : c.groups) labels.push_back(g.label);

  w.open("g", {{"class", "plot-area"}});
  y_axis(w, fr, t, ys, c.unit, c.y_label);
  if (has_values) ref_lines(w, c.lines, fr, ys);
  x_axis(w, fr, labels, "", c.height);
  if (e.empty()) no_data(w, fr);
  const double slot_w = c.groups.empty() ? 0 : (fr.x1 - fr.x0) / static_cast<double>(c.groups.size());
  const double half = std::min(slot_w * kViolinShare, kMaxViolinHalf);
  for (std::size_t gi = 0; gi < c.groups.size(); ++gi) distribution_group(w, c, gi, fr, ys, slot_w, half);
  w.close();
  return w.finish();
}

}  // namespace obscheck::svg
