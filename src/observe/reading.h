// observe/: the values a counter yields for one run.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace obscheck {

// One counter's value for one run. `value` is what to analyse: `raw` scaled by
// time_enabled / time_running when the counter was multiplexed (running < enabled),
// else `raw` itself. A counter that never ran (running == 0) has value NaN and
// `multiplexed` true: there is nothing to scale.
struct Reading {
  std::string name;
  std::uint64_t raw = 0;
  std::uint64_t time_enabled = 0;
  std::uint64_t time_running = 0;
  double value = 0;
  bool multiplexed = false;
  double scale = 1.0;  // time_enabled / time_running (1 when exact, 0 when it never ran)
};

}  // namespace obscheck
