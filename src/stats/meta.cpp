#include "stats/meta.h"

#include <boost/math/distributions/chi_squared.hpp>

#include <algorithm>
#include <cmath>
#include <stdexcept>
#include <vector>

#include "stats/distributions.h"

namespace obscheck::stats {

RandomEffects random_effects(std::span<const double> y, std::span<const double> se, double level) {
  if (y.empty() || y.size() != se.size()) throw std::invalid_argument("random_effects: y and se differ in length or are empty");
  if (!(level > 0 && level < 1)) throw std::invalid_argument("random_effects: level outside (0, 1)");
  for (std::size_t i = 0; i < y.size(); ++i)
    if (!std::isfinite(y[i]) || !std::isfinite(se[i]) || !(se[i] > 0))
      throw std::invalid_argument("random_effects: an estimate or standard error is not finite and positive");
  RandomEffects r;
  r.k = y.size();
  const double z = boost::math::quantile(Normal(), 0.5 + level / 2);
  if (r.k == 1) {
    r.mean = y[0];
    r.se = se[0];
    r.lo = y[0] - z * se[0];
    r.hi = y[0] + z * se[0];
    return r;
  }
  double s1 = 0, s2 = 0, sy = 0;
  for (std::size_t i = 0; i < r.k; ++i) {
    const double w = 1 / (se[i] * se[i]);
    s1 += w;
    s2 += w * w;
    sy += w * y[i];
  }
  const double fixed = sy / s1;
  for (std::size_t i = 0; i < r.k; ++i) r.q += (y[i] - fixed) * (y[i] - fixed) / (se[i] * se[i]);
  const double df = static_cast<double>(r.k - 1);
  r.tau2 = std::max(0.0, (r.q - df) / (s1 - s2 / s1));
  r.i2 = r.q > df ? (r.q - df) / r.q : 0.0;
  r.p_heterogeneity = r.q > 0 ? boost::math::cdf(boost::math::complement(
                                    boost::math::chi_squared_distribution<double, DoublePolicy>(df), r.q))
                              : 1.0;
  double w_sum = 0, wy = 0;
  std::vector<double> w(r.k);
  for (std::size_t i = 0; i < r.k; ++i) {
    w[i] = 1 / (se[i] * se[i] + r.tau2);
    w_sum += w[i];
    wy += w[i] * y[i];
  }
  r.mean = wy / w_sum;
  double spread = 0;
  for (std::size_t i = 0; i < r.k; ++i) spread += w[i] * (y[i] - r.mean) * (y[i] - r.mean);
  // Hartung-Knapp: the weighted spread about mu, on k - 1 degrees of freedom. With
  // hosts that agree better than their errors say it can fall below the plain
  // variance 1 / sum w; it is kept at least that (Röver, Knapp & Friede,
  // "Hartung-Knapp-Sidik-Jonkman approach and its modification for random-effects
  // meta-analysis with few studies", 2015), so agreement never narrows the interval
  // below what the hosts' own errors allow.
  const double hk = std::max(spread / (df * w_sum), 1 / w_sum);
  r.se = std::sqrt(hk);
  const double t = boost::math::quantile(StudentsT(df), 0.5 + level / 2);
  r.lo = r.mean - t * r.se;
  r.hi = r.mean + t * r.se;
  return r;
}

}  // namespace obscheck::stats
