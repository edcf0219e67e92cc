#include "analysis/scaled_counter.h"

#include <fmt/core.h>

#include <algorithm>
#include <vector>

#include "stats/descriptive.h"

namespace obscheck {

ScaledCounter scaled_counter(const std::string& counter, std::span<const double> running, bool allowed) {
  ScaledCounter s;
  s.counter = counter;
  s.allowed = allowed;
  s.runs = running.size();
  std::vector<double> fractions;
  for (double f : running) {
    const double clipped = std::min(f, 1.0);
    fractions.push_back(clipped);
    if (clipped < 1) {
      ++s.scaled_runs;
      s.running_min = std::min(s.running_min, clipped);
    }
  }
  if (!fractions.empty()) s.running_median = stats::median(fractions);
  return s;
}

std::string scaled_counter_text(const ScaledCounter& s) {
  if (!s.scaled()) return "";
  return fmt::format("{} multiplexed in {} of {} run{} (running fraction min {:.2f}, median {:.2f})", s.counter,
                     s.scaled_runs, s.runs, s.runs == 1 ? "" : "s", s.running_min, s.running_median);
}

std::string scaled_counter_why(const ScaledCounter& s) {
  if (!s.scaled()) return "";
  if (s.allowed)
    return fmt::format("{}; its values are estimates, compared as asked (--allow-multiplex)", scaled_counter_text(s));
  return fmt::format("{}; its values are estimates scaled up from part of each run, not counts (fewer counters, "
                     "or --allow-multiplex to compare the estimates)",
                     scaled_counter_text(s));
}

std::string scaled_counter_verdict(const ScaledCounter& s) {
  if (!s.scaled()) return "";
  return (s.allowed ? "scaled: " : "incomparable: ") + scaled_counter_why(s);
}

}  // namespace obscheck
