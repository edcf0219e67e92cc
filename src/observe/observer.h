// observe/: which kind of observation a check doses (docs/design.md: observe/).
// The counter observer doses the counters themselves; every other observer programs
// the same counters at every level and doses something else: uprobes, hardware
// breakpoints, a sampling frequency, a profiler command, or a build variant.
#pragma once

#include <string_view>

namespace obscheck {

enum class ObserverKind { counters, probes, breakpoints, sampling, command, build };

// "counters" | "probes" | "breakpoints" | "sampling" | "command" | "build"
std::string_view to_string(ObserverKind k);

}  // namespace obscheck
