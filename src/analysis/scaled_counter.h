// analysis/: a counter the kernel multiplexed in the runs of a sweep (bias, compare).
// Pure: running fractions in, the facts and their words out.
//
// When more counters are asked for than the PMU has, the kernel rotates them: each
// counts for part of the run (time_running < time_enabled) and its value is the raw
// count scaled by time_enabled / time_running, an estimate, not a measurement
// (observe/reading.h). A bias or a comparison drawn from estimates may be the
// rotation's, not the program's, so such a metric is "incomparable" unless the user
// asks for the scaled values to be compared (--allow-multiplex; then labelled scaled).
#pragma once

#include <cstddef>
#include <span>
#include <string>

namespace obscheck {

struct ScaledCounter {
  std::string counter;          // the metric's name, as the report names it
  std::size_t runs = 0;         // runs looked at (those with a value)
  std::size_t scaled_runs = 0;  // of them, counted for part of the run only (running fraction < 1)
  double running_min = 1;       // the least time_running / time_enabled among them (1: none scaled)
  double running_median = 1;    // the median over every run looked at
  bool allowed = false;         // --allow-multiplex: the scaled values are compared, labelled scaled

  bool scaled() const { return scaled_runs > 0; }
  // Scaled and not allowed: the metric has no verdict.
  bool incomparable() const { return scaled() && !allowed; }
};

// The facts of `counter` from the running fraction of each of its runs that gave a
// value (1 exact, below 1 multiplexed; a fraction above 1 is taken as 1).
ScaledCounter scaled_counter(const std::string& counter, std::span<const double> running, bool allowed);

// "cycles multiplexed in 6 of 6 runs (running fraction min 0.50, median 0.50)"; "" when
// not scaled.
std::string scaled_counter_text(const ScaledCounter& s);

// Why a scaled metric's values are not counts, or that they were compared anyway, in
// one line after scaled_counter_text; "" when not scaled.
std::string scaled_counter_why(const ScaledCounter& s);

// Why an incomparable metric has no verdict, or how a scaled one was compared, in one
// line starting "incomparable: " or "scaled: "; "" when not scaled.
std::string scaled_counter_verdict(const ScaledCounter& s);

}  // namespace obscheck
