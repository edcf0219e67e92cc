// stats/: ln Γ(x) for the sequences' closed forms (sequential.cpp, magnitude.cpp).
#pragma once

#include <math.h>

namespace obscheck::stats {

// lgamma_r, not std::lgamma: glibc's lgamma writes the global signgam, a data race
// when comparisons are analysed on several threads. x > 0.
inline double log_gamma(double x) {
  int sign = 0;
  return ::lgamma_r(x, &sign);
}

}  // namespace obscheck::stats
