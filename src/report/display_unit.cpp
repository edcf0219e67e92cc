#include "report/display_unit.h"

#include <algorithm>
#include <cmath>

namespace obscheck {

DisplayUnit display_unit(const std::string& unit, double magnitude) {
  if (unit == "ns") {
    if (magnitude >= 1e9) return {1e9, " s", "s"};
    if (magnitude >= 1e6) return {1e6, " ms", "ms"};
    if (magnitude >= 1e3) return {1e3, " µs", "µs"};
    return {1, " ns", "ns"};
  }
  if (unit == "KiB") return magnitude >= 1024 * 10 ? DisplayUnit{1024, " MiB", "MiB"} : DisplayUnit{1, " KiB", "KiB"};
  if (magnitude >= 1e10) return {1e9, " G", "billions"};
  if (magnitude >= 1e7) return {1e6, " M", "millions"};
  if (magnitude >= 1e4) return {1e3, " k", "thousands"};
  return {1, "", unit};
}

EffectAxis effect_axis(const std::vector<const Comparison*>& cs, const std::string& metric_unit) {
  EffectAxis axis;
  axis.scale = cs.front()->scale;
  if (axis.scale == Scale::ratio) return axis;
  double magnitude = 0;
  for (const Comparison* c : cs)
    for (double v : {c->effect, c->ci_lo, c->ci_hi, c->margin})
      if (c->scale == axis.scale && std::isfinite(v)) magnitude = std::max(magnitude, std::fabs(v));
  const DisplayUnit du = display_unit(metric_unit, magnitude);
  axis.factor = 1 / du.divisor;
  axis.unit = du.unit.empty() ? "" : du.unit;
  axis.axis_unit = du.name + " per run";
  return axis;
}

}  // namespace obscheck
