// report/: the units a figure or a text plot draws a metric's values in — short tick
// labels for raw values (ns as µs, ms or s; counts in thousands, millions or billions;
// KiB as MiB), and the y axis of an effect against the dose, which is percent for a
// ratio-scale metric and the metric's unit per run for a difference-scale one. Shared
// by the check's and the sweep's figures and the text plot.
#pragma once

#include <string>
#include <vector>

#include "analysis/findings.h"

namespace obscheck {

struct DisplayUnit {
  double divisor = 1;  // a value in the metric's unit / divisor = the value drawn
  std::string unit;    // appended to tick labels (" ms", " k", "")
  std::string name;    // for an axis title ("ms", "thousands", or the metric's unit)
};

// The unit for values of `unit` ("ns", "KiB", anything else is a count) whose largest
// absolute value is `magnitude`.
DisplayUnit display_unit(const std::string& unit, double magnitude);

// The y axis of one metric's effect against the dose. Its scale is the first
// comparison's (a metric's comparisons share one); a comparison on the other scale is
// not drawn on it. Ratio: effect × 100, unit "%". Difference (small counts and coarse
// clocks, d = x_level − x_reference per run): effect / divisor of the display unit
// chosen for the largest finite |effect|, |end| or margin; unit " ms" etc., axis_unit
// "ms per run". A per-run difference is thus never printed as if it were a fraction.
struct EffectAxis {
  Scale scale = Scale::ratio;
  double factor = 100;  // effect × factor = the value drawn
  std::string unit = "%";       // appended to tick labels
  std::string axis_unit = "%";  // for the axis title
};
// `cs` non-empty.
EffectAxis effect_axis(const std::vector<const Comparison*>& cs, const std::string& metric_unit);

}  // namespace obscheck
