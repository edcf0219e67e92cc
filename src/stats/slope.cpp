#include "stats/slope.h"

#include <cmath>
#include <stdexcept>
#include <string>


#include "stats/descriptive.h"
#include "stats/distributions.h"
#include "stats/validate.h"

namespace obscheck::stats {

SlopeFit fit_slope(std::span<const double> repetitions, std::span<const double> durations,
                   double level) {
  require_sample(repetitions, 2, "fit_slope", "repetitions");
  require_sample(durations, 2, "fit_slope", "durations");
  require_level(level, "fit_slope");
  if (repetitions.size() != durations.size()) {
    throw std::invalid_argument("fit_slope: " + std::to_string(repetitions.size()) +
                                " repetition counts but " + std::to_string(durations.size()) +
                                " durations; they must pair up");
  }
  const std::size_t n = repetitions.size();
  const double mx = mean(repetitions), my = mean(durations);
  double sxx = 0.0, sxy = 0.0, syy = 0.0;
  for (std::size_t i = 0; i < n; ++i) {
    const double dx = repetitions[i] - mx, dy = durations[i] - my;
    sxx += dx * dx;
    sxy += dx * dy;
    syy += dy * dy;
  }
  if (sxx == 0.0) {
    throw std::invalid_argument("fit_slope: every repetition count is the same; the slope needs at least two different counts");
  }
  SlopeFit fit{};
  fit.n = n;
  fit.slope = sxy / sxx;
  fit.intercept = my - fit.slope * mx;
  double rss = 0.0;  // from the residuals, not syy - slope sxy, to avoid cancellation
  for (std::size_t i = 0; i < n; ++i) {
    const double r = durations[i] - fit.intercept - fit.slope * repetitions[i];
    rss += r * r;
  }
  fit.r_squared = syy > 0.0 ? 1.0 - rss / syy : 1.0;
  if (n >= 3) {
    const double df = static_cast<double>(n - 2);
    const double se = std::sqrt(rss / df / sxx);
    const double q = boost::math::quantile(StudentsT(df), (1.0 + level) / 2.0);
    fit.se = se;
    fit.df = df;
    fit.ci = Interval{fit.slope - q * se, fit.slope + q * se};
  }
  return fit;
}

}  // namespace obscheck::stats
