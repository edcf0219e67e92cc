// report/: a small deterministic text plot — points with vertical interval bars over a
// few categorical x slots (dose levels), several series dodged side by side within a
// slot so their bars never overlap. Used by the check report for effect vs dose.
#pragma once

#include <cstddef>
#include <string>
#include <vector>

namespace obscheck {

struct PlotSeries {
  char marker = '*';  // drawn at the point's value
  std::string name;   // for the legend the caller writes
};

struct PlotPoint {
  std::size_t slot = 0;    // x position, into TextPlot::slots
  std::size_t series = 0;  // into TextPlot::series
  double y = 0;            // value; a non-finite y draws nothing
  double lo = 0, hi = 0;   // interval drawn with '|'; non-finite: no bar
};

struct TextPlot {
  std::vector<std::string> slots;  // x tick labels, left to right
  std::vector<PlotSeries> series;
  std::vector<PlotPoint> points;
  std::vector<double> guides;  // horizontal dotted lines ('.'), e.g. ±margin
  std::size_t rows = 12;       // plot height in lines (at least 3)
  std::string unit = "%";      // appended to the y-axis labels
};

// Lines, each starting with `indent`:
//   a y-axis label column ("+4.0%") on the top row, the bottom row, the zero row and
//   each guide's row; then '|' and the plot area: '-' along zero, '.' along guides,
//   '|' bars, markers on top (a later point wins a shared cell);
//   an x axis "+-----" and the slot labels under each slot's centre.
// The y range spans every finite y/lo/hi, every guide and zero, so zero is always
// drawn. Each slot is 2 * series + 2 columns wide: series s sits at column 1 + 2s.
// No trailing spaces. Empty `slots` gives "".
std::string render_plot(const TextPlot& plot, const std::string& indent);

}  // namespace obscheck
