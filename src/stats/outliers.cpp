#include "stats/outliers.h"

#include "stats/descriptive.h"
#include "stats/validate.h"

namespace obscheck::stats {

TukeyFences tukey_fences(std::span<const double> x) {
  require_sample(x, 1, "tukey_fences");
  const auto v = sorted_copy(x, "tukey_fences");
  const double q1 = quantile_sorted(v, 0.25);
  const double q3 = quantile_sorted(v, 0.75);
  const double r = q3 - q1;
  return {q1 - kTukeySevere * r, q1 - kTukeyMild * r, q3 + kTukeyMild * r,
          q3 + kTukeySevere * r};
}

OutlierReport label_outliers(std::span<const double> x) {
  OutlierReport rep{tukey_fences(x), {}};
  rep.labels.reserve(x.size());
  for (double v : x) {
    OutlierLabel l = OutlierLabel::none;
    if (v < rep.fences.severe_low) {
      l = OutlierLabel::severe_low;
      ++rep.severe_low;
    } else if (v < rep.fences.mild_low) {
      l = OutlierLabel::mild_low;
      ++rep.mild_low;
    } else if (v > rep.fences.severe_high) {
      l = OutlierLabel::severe_high;
      ++rep.severe_high;
    } else if (v > rep.fences.mild_high) {
      l = OutlierLabel::mild_high;
      ++rep.mild_high;
    }
    rep.labels.push_back(l);
  }
  return rep;
}

const char* to_string(OutlierLabel label) {
  switch (label) {
    case OutlierLabel::none: return "none";
    case OutlierLabel::mild_low: return "mild low";
    case OutlierLabel::mild_high: return "mild high";
    case OutlierLabel::severe_low: return "severe low";
    case OutlierLabel::severe_high: return "severe high";
  }
  return "none";
}

}  // namespace obscheck::stats
