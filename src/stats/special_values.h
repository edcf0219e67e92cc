// stats/: the IEEE special values the statistics name, defined once for the module and
// those downstream of it (a module is compiled as a few unity translation units, see
// CMakeLists.txt, where two files' private copies of one constant would collide).
#pragma once

#include <limits>

namespace obscheck::stats {

inline constexpr double kInf = std::numeric_limits<double>::infinity();
// A value that does not exist (an effect without pairs); JSON writes it as null.
inline constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();

}  // namespace obscheck::stats
