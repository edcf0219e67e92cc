#include "stats/magnitude.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <stdexcept>
#include <vector>

#include "stats/log_gamma.h"
#include "stats/special_values.h"
#include "stats/validate.h"

namespace obscheck::stats {
namespace {

// ln C(n, k) for one n and many k: ln Γ(n + 1) taken once (the same value, and the same
// arithmetic, as computing it for every k).
class LogChoose {
 public:
  explicit LogChoose(std::size_t n) : nn_(static_cast<double>(n)), lg_n1_(log_gamma(nn_ + 1)) {}
  double operator()(std::size_t k) const {
    const double kk = static_cast<double>(k);
    return lg_n1_ - log_gamma(kk + 1) - log_gamma(nn_ - kk + 1);
  }

 private:
  double nn_, lg_n1_;
};

// Below this, exp(x) is 0 in doubles (the least subnormal is exp(-744.4)): the test
// skips glibc's underflow path, which sets errno at a cost of its own.
constexpr double kExpIsZeroBelow = -746;

double log_add(double a, double b) {
  if (a == -kInf) return b;
  if (b == -kInf) return a;
  const double hi = std::max(a, b), lo = std::min(a, b);
  return hi + std::log1p(std::exp(lo - hi));
}

// ln P(Bin(n, 1/2) <= k).
double log_binom_half_cdf(std::size_t n, std::size_t k) {
  const LogChoose log_choose(n);
  double acc = -kInf;
  for (std::size_t i = 0; i <= k && i <= n; ++i) acc = log_add(acc, log_choose(i));
  return acc - static_cast<double>(n) * std::log(2.0);
}

// The degrees of freedom BF uses at n: nu, or n - 1 when nu is not above it.
double df_of(std::size_t n, double nu) { return std::max(nu, static_cast<double>(n) - 1); }

// The supremum of ln BF(n, t; nu) over t: (nu / 2) ln(1 + n g).
double max_log_bf(std::size_t n, double g, double nu = 0) {
  if (n < 2) return 0;
  const double nn = static_cast<double>(n);
  return df_of(n, nu) / 2 * std::log1p(nn * g);
}

}  // namespace

double safe_t_log_bf(std::size_t n, double t, double g, double nu_in) {
  if (n < 2) return 0;
  const double nn = static_cast<double>(n), nu = df_of(n, nu_in), t2 = t * t;
  return -0.5 * std::log1p(nn * g) + (nu + 1) / 2 * (std::log1p(t2 / nu) - std::log1p(t2 / (nu * (1 + nn * g))));
}

double safe_t_critical(std::size_t n, double alpha, double g, double nu) {
  const double threshold = std::log(1 / alpha);
  if (n < 2 || max_log_bf(n, g, nu) <= threshold) return kInf;
  if (safe_t_log_bf(n, 0, g, nu) >= threshold) return 0;
  double lo = 0, hi = 1;
  while (safe_t_log_bf(n, hi, g, nu) < threshold) {
    lo = hi;
    hi *= 2;
    if (hi > 1e150) return kInf;  // the maximum is only approached: as good as unreachable
  }
  for (int i = 0; i < 200 && hi - lo > 1e-12 * hi; ++i) {
    const double mid = (lo + hi) / 2;
    if (safe_t_log_bf(n, mid, g, nu) < threshold) lo = mid;
    else hi = mid;
  }
  return hi;
}

std::size_t magnitude_blocks_to_decide(double alpha, double g) {
  require_alpha(alpha, "magnitude_blocks_to_decide");
  const double threshold = std::log(1 / alpha);
  std::size_t n = 2;
  while (max_log_bf(n, g) <= threshold) ++n;
  return n;
}

MeanSequence mean_sequence(std::span<const double> d, double alpha, double scale_floor, double null, double g,
                           double floor_df) {
  require_alpha(alpha, "mean_sequence");
  require_finite(d, "mean_sequence");
  if (!(scale_floor >= 0) || !std::isfinite(scale_floor))
    throw std::invalid_argument("mean_sequence: scale floor negative or not finite");
  if (!(floor_df >= 0) || !std::isfinite(floor_df))
    throw std::invalid_argument("mean_sequence: floor's degrees of freedom negative or not finite");
  MeanSequence out;
  out.n = d.size();
  out.lo = -kInf;
  out.hi = kInf;
  if (out.n == 0) {
    out.mean = std::numeric_limits<double>::quiet_NaN();
    return out;
  }
  double sum = 0;
  for (double v : d) sum += v;
  out.mean = sum / static_cast<double>(out.n);
  if (out.n < 2) return out;
  // Equal values have no spread, whatever rounding the mean picked up.
  const bool equal = std::all_of(d.begin(), d.end(), [&](double v) { return v == d.front(); });
  double ss = 0;
  for (double v : d) ss += (v - out.mean) * (v - out.mean);
  const double own = equal ? 0.0 : std::sqrt(ss / static_cast<double>(out.n - 1));
  out.scale = std::max(own, scale_floor);
  // The floor's degrees of freedom whatever scale is used: the pooled spread is the
  // estimate of the one noise its comparisons share, and a larger scale only lowers t.
  out.df = scale_floor > 0 ? df_of(out.n, floor_df) : static_cast<double>(out.n - 1);
  if (!(out.scale > 0)) return out;
  const double se = out.scale / std::sqrt(static_cast<double>(out.n));
  out.p_value = std::min(1.0, std::exp(-safe_t_log_bf(out.n, (out.mean - null) / se, g, out.df)));
  const double c = safe_t_critical(out.n, alpha, g, out.df);
  if (std::isfinite(c)) {
    out.lo = out.mean - c * se;
    out.hi = out.mean + c * se;
  }
  return out;
}

std::size_t range_first_blocks(double miscoverage) {
  if (!(miscoverage > 0 && miscoverage <= 1)) throw std::invalid_argument("range_first_blocks: outside (0, 1]");
  std::size_t n0 = 1;
  while (std::ldexp(1.0, 1 - static_cast<int>(n0)) > miscoverage) ++n0;
  return n0;
}

double sign_test_p(std::size_t above, std::size_t below) {
  const std::size_t t = above + below;
  if (t == 0) return 1;
  return std::min(1.0, 2 * std::exp(log_binom_half_cdf(t, std::min(above, below))));
}

MedianRank exact_median_rank(std::size_t n, double alpha) {
  require_alpha(alpha, "exact_median_rank");
  MedianRank out;
  // Coverage of [d_(k), d_(n+1-k)] is 1 - 2 P(Bin(n, 1/2) <= k - 1); it falls as k rises.
  const LogChoose log_choose(n);
  const double log_2n = static_cast<double>(n) * std::log(2.0);
  double log_cdf = -kInf;  // ln P(Bin <= k - 1)
  for (std::size_t k = 1; 2 * k <= n + 1; ++k) {
    log_cdf = log_add(log_cdf, log_choose(k - 1) - log_2n);
    const double coverage = 1 - 2 * (log_cdf < kExpIsZeroBelow ? 0.0 : std::exp(log_cdf));
    if (coverage < 1 - alpha) break;
    out.k = k;
    out.coverage = coverage;
  }
  return out;
}

OrderInterval exact_median_interval(std::span<const double> d, const MedianRank& rank) {
  require_finite(d, "exact_median_interval");
  const std::size_t n = d.size();
  if (2 * rank.k > n + 1) throw std::invalid_argument("exact_median_interval: the rank is beyond the values' middle");
  OrderInterval out{-kInf, kInf, rank.k, rank.coverage};
  if (out.k == 0) return out;
  // The two order statistics by selection (the values a full sort would put there).
  std::vector<double> s(d.begin(), d.end());
  std::nth_element(s.begin(), s.begin() + static_cast<std::ptrdiff_t>(n - out.k), s.end());
  out.hi = s[n - out.k];
  std::nth_element(s.begin(), s.begin() + static_cast<std::ptrdiff_t>(out.k - 1),
                   s.begin() + static_cast<std::ptrdiff_t>(n - out.k));
  out.lo = s[out.k - 1];
  return out;
}

OrderInterval exact_median_interval(std::span<const double> d, double alpha) {
  require_alpha(alpha, "exact_median_interval");
  require_finite(d, "exact_median_interval");
  return exact_median_interval(d, exact_median_rank(d.size(), alpha));
}

}  // namespace obscheck::stats
