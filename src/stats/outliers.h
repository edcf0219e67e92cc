// Outlier labelling by Tukey's fences (Tukey 1977, "Exploratory Data Analysis"):
// values beyond Q1 - 1.5 IQR or Q3 + 1.5 IQR are "mild" outliers, beyond 3 IQR
// "severe". Quartiles use definition 7 (see descriptive.h). Outliers are labelled,
// never removed: the caller decides what to do and reports both.
#pragma once

#include <cstddef>
#include <span>
#include <vector>

namespace obscheck::stats {

// Fence multipliers from Tukey (1977): 1.5 IQR "outside", 3 IQR "far out".
inline constexpr double kTukeyMild = 1.5;
inline constexpr double kTukeySevere = 3.0;

enum class OutlierLabel { none, mild_low, mild_high, severe_low, severe_high };

struct TukeyFences {
  double severe_low;   // Q1 - 3 IQR
  double mild_low;     // Q1 - 1.5 IQR
  double mild_high;    // Q3 + 1.5 IQR
  double severe_high;  // Q3 + 3 IQR
};

struct OutlierReport {
  TukeyFences fences;
  std::vector<OutlierLabel> labels;  // one per input value, same order
  std::size_t mild_low = 0, mild_high = 0, severe_low = 0, severe_high = 0;
  std::size_t total() const { return mild_low + mild_high + severe_low + severe_high; }
};

// n >= 1. A value exactly on a fence is not an outlier (the fences are inclusive).
// All values equal -> IQR 0, every fence equals the value, no outliers.
TukeyFences tukey_fences(std::span<const double> x);

// Labels every value; severe takes precedence over mild. n >= 1.
OutlierReport label_outliers(std::span<const double> x);

const char* to_string(OutlierLabel label);

}  // namespace obscheck::stats
