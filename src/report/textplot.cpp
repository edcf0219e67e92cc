#include "report/textplot.h"

#include <fmt/core.h>

#include <algorithm>
#include <cmath>

namespace obscheck {
namespace {

// Fewer rows cannot show a point above and below zero at once.
constexpr std::size_t kMinRows = 3;

struct TextScale {
  double top = 1, bottom = -1;
  std::size_t rows = kMinRows;
  std::size_t row(double v) const {
    const double r = std::round((top - v) / (top - bottom) * static_cast<double>(rows - 1));
    return static_cast<std::size_t>(std::clamp(r, 0.0, static_cast<double>(rows - 1)));
  }
};

TextScale scale_for(const TextPlot& plot) {
  TextScale s;
  s.rows = std::max(plot.rows, kMinRows);
  double top = 0, bottom = 0;
  auto take = [&](double v) {
    if (!std::isfinite(v)) return;
    top = std::max(top, v);
    bottom = std::min(bottom, v);
  };
  for (const PlotPoint& p : plot.points) {
    take(p.y);
    if (std::isfinite(p.y)) {
      take(p.lo);
      take(p.hi);
    }
  }
  for (double g : plot.guides) take(g);
  if (top > bottom) {
    s.top = top;
    s.bottom = bottom;
  }
  return s;
}

std::string axis_label(double v, double span, const std::string& unit) {
  const int decimals = span < 2 ? 2 : span < 20 ? 1 : 0;
  if (v == 0) return fmt::format("{:.{}f}{}", 0.0, decimals, unit);
  return fmt::format("{:+.{}f}{}", v, decimals, unit);
}

void rtrim(std::string& s) {
  while (!s.empty() && s.back() == ' ') s.pop_back();
}

}  // namespace

std::string render_plot(const TextPlot& plot, const std::string& indent) {
  if (plot.slots.empty()) return "";
  const TextScale sc = scale_for(plot);
  const std::size_t nseries = std::max<std::size_t>(plot.series.size(), 1);
  const std::size_t slot_width = 2 * nseries + 2;
  const std::size_t width = slot_width * plot.slots.size();
  std::vector<std::string> grid(sc.rows, std::string(width, ' '));

  // Layers, lowest first: guides, zero, bars, markers.
  for (double g : plot.guides)
    if (std::isfinite(g)) grid[sc.row(g)].replace(0, width, width, '.');
  grid[sc.row(0)].replace(0, width, width, '-');
  auto column = [&](const PlotPoint& p) { return p.slot * slot_width + 1 + 2 * std::min(p.series, nseries - 1); };
  for (const PlotPoint& p : plot.points) {
    if (p.slot >= plot.slots.size() || !std::isfinite(p.y) || !std::isfinite(p.lo) || !std::isfinite(p.hi)) continue;
    const std::size_t from = sc.row(std::max(p.lo, p.hi)), to = sc.row(std::min(p.lo, p.hi));
    for (std::size_t r = from; r <= to; ++r) grid[r][column(p)] = '|';
  }
  for (const PlotPoint& p : plot.points) {
    if (p.slot >= plot.slots.size() || !std::isfinite(p.y)) continue;
    grid[sc.row(p.y)][column(p)] = p.series < plot.series.size() ? plot.series[p.series].marker : '*';
  }

  // Labelled rows: zero first, then guides, then the extremes (first label of a row wins).
  const double span = sc.top - sc.bottom;
  std::vector<std::string> labels(sc.rows);
  auto label = [&](double v) {
    std::string& l = labels[sc.row(v)];
    if (l.empty()) l = axis_label(v, span, plot.unit);
  };
  label(0);
  for (double g : plot.guides)
    if (std::isfinite(g)) label(g);
  label(sc.top);
  label(sc.bottom);
  std::size_t label_width = 0;
  for (const auto& l : labels) label_width = std::max(label_width, l.size());

  std::string out;
  for (std::size_t r = 0; r < sc.rows; ++r) {
    std::string line = fmt::format("{}{:>{}} |{}", indent, labels[r], label_width, grid[r]);
    rtrim(line);
    out += line + "\n";
  }
  out += fmt::format("{}{:>{}} +{}\n", indent, "", label_width, std::string(width, '-'));
  std::string ticks(width, ' ');
  for (std::size_t i = 0; i < plot.slots.size(); ++i) {
    const std::size_t at = i * slot_width + nseries;  // the slot's centre column
    const std::string& t = plot.slots[i];
    if (at + t.size() > ticks.size()) ticks.resize(at + t.size(), ' ');
    ticks.replace(at, t.size(), t);
  }
  std::string line = fmt::format("{}{:>{}}  {}", indent, "", label_width, ticks);
  rtrim(line);
  out += line + "\n";
  return out;
}

}  // namespace obscheck
