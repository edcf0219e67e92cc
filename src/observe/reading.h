// observe/: the values a counter yields for one run.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace obscheck {

// One counter's value for one run. `value` is what to analyse: `raw` scaled by
// time_enabled / time_running when the counter was multiplexed (running < enabled),
// else `raw` itself. A counter that never ran (running == 0) has value NaN and
// `multiplexed` true: there is nothing to scale. A reading the PMU cannot have
// produced for a counter that ran (see `fault`) has value NaN: never a number to analyse.
struct Reading {
  std::string name;
  std::uint64_t raw = 0;
  std::uint64_t time_enabled = 0;
  std::uint64_t time_running = 0;
  double value = 0;
  bool multiplexed = false;
  double scale = 1.0;  // time_enabled / time_running (1 when exact, 0 when it never ran)
  // Empty, or why the count is not a value: it never ran (time_running 0), it reads
  // negative as a signed 64-bit count (a wrapped or broken counter), or it reads zero
  // although it ran and counts on every run (cycles, instructions, the clocks).
  std::string fault;
  // time_running / time_enabled: 1 exact, < 1 multiplexed (or stopped early), 0 never ran.
  double running_fraction() const {
    return time_enabled == 0 ? 0.0 : static_cast<double>(time_running) / static_cast<double>(time_enabled);
  }
};

}  // namespace obscheck
