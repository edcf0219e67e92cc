// Input checks shared by the stats/ functions. stats/ stays standalone (it does not
// use util/), so bad input is reported as std::invalid_argument whose message names
// the function, the argument and the offending position.
#pragma once

#include <cmath>
#include <cstddef>
#include <span>
#include <stdexcept>
#include <string>

namespace obscheck::stats {

// Throws std::invalid_argument("<where>: <what>[i] = nan is not finite; ...") on the
// first NaN or infinity.
inline void require_finite(std::span<const double> x, const char* where, const char* what = "x") {
  for (std::size_t i = 0; i < x.size(); ++i) {
    if (!std::isfinite(x[i])) {
      throw std::invalid_argument(std::string(where) + ": " + what + "[" + std::to_string(i) +
                                  "] = " + std::to_string(x[i]) +
                                  " is not finite; statistics need finite samples "
                                  "(remove failed runs before analysis)");
    }
  }
}

// Throws std::invalid_argument when x has fewer than `minimum` elements.
inline void require_size(std::span<const double> x, std::size_t minimum, const char* where,
                         const char* what = "x") {
  if (x.size() < minimum) {
    throw std::invalid_argument(std::string(where) + ": " + what + " has " +
                                std::to_string(x.size()) + " values, needs at least " +
                                std::to_string(minimum));
  }
}

// Both checks at once: the usual preamble of a stats function.
inline void require_sample(std::span<const double> x, std::size_t minimum, const char* where,
                           const char* what = "x") {
  require_size(x, minimum, where, what);
  require_finite(x, where, what);
}

inline void require_level(double level, const char* where) {
  if (!(level > 0.0 && level < 1.0)) {
    throw std::invalid_argument(std::string(where) + ": confidence level " +
                                std::to_string(level) + " must lie strictly between 0 and 1");
  }
}

inline void require_alpha(double alpha, const char* where) {
  if (!(alpha > 0.0 && alpha < 1.0)) {
    throw std::invalid_argument(std::string(where) + ": alpha " + std::to_string(alpha) +
                                " must lie strictly between 0 and 1");
  }
}

}  // namespace obscheck::stats
