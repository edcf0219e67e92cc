#include "stats/sequential.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <stdexcept>
#include <vector>

#include "stats/log_gamma.h"
#include "stats/special_values.h"

namespace obscheck::stats {
namespace {

double log_beta(double x, double y) { return log_gamma(x) + log_gamma(y) - log_gamma(x + y); }

// ln M_t(k) at one t for many k, as lowest_accepted's search asks for it:
// sign_mixture_log's terms in its order of evaluation, with ln B(a, a) taken once and
// ln Γ(x + y) taken again only when x + y comes out different, so a k costs two ln Γ
// instead of six and each value is sign_mixture_log(t, k, a)'s, bit for bit. The
// search runs at every comparison of every look and in every "about N blocks"
// prediction (blocks_for_half_width: a bisection over m of these searches); its ln Γ
// were a tenth of a replayed check's analysis.
class MixtureLogAt {
 public:
  MixtureLogAt(std::size_t t, double a) : t_(static_cast<double>(t)), a_(a), prior_(log_beta(a, a)) {}
  double operator()(std::size_t k) {
    const double kk = static_cast<double>(k);
    const double x = a_ + kk, y = a_ + t_ - kk;
    const double sum = x + y;
    if (!(sum == last_sum_)) {
      last_sum_ = sum;
      log_gamma_sum_ = log_gamma(sum);
    }
    const double beta = log_gamma(x) + log_gamma(y) - log_gamma_sum_;  // log_beta(x, y)
    return beta - prior_ + t_ * std::log(2.0);
  }

 private:
  double t_, a_, prior_;
  double last_sum_ = std::numeric_limits<double>::quiet_NaN(), log_gamma_sum_ = 0;
};

// Smallest j in [0, n/2] with M_n(n - j) < 1/alpha (j values below m, n - j above).
// ln M_n(n - j) falls as j rises to n/2, so a binary search finds it. Returns n/2 + 1
// when no j qualifies (n == 0 has j = 0, M = 1 < 1/alpha).
std::size_t lowest_accepted(std::size_t n, double log_threshold, double a) {
  MixtureLogAt mixture_log(n, a);
  std::size_t lo = 0, hi = n / 2;
  if (mixture_log(n - hi) >= log_threshold) return n / 2 + 1;
  while (lo < hi) {
    const std::size_t mid = lo + (hi - lo) / 2;
    if (mixture_log(n - mid) < log_threshold) hi = mid;
    else lo = mid + 1;
  }
  return lo;
}

// The rank half-width of the sequence at n, in standard errors of the sample median
// (sqrt(n) / 2 ranks); infinite when the sequence is unbounded at n.
double width_in_se(std::size_t n, double alpha, double a) {
  const std::size_t j1 = lowest_accepted(n, std::log(1 / alpha), a);
  if (j1 == 0 || j1 > n / 2) return kInf;
  return (static_cast<double>(n) / 2 - static_cast<double>(j1) + 0.5) / (std::sqrt(static_cast<double>(n)) / 2);
}

}  // namespace

double sign_mixture_log(std::size_t t, std::size_t k, double a) {
  const double kk = static_cast<double>(k), tt = static_cast<double>(t);
  return log_beta(a + kk, a + tt - kk) - log_beta(a, a) + tt * std::log(2.0);
}

std::size_t blocks_to_decide(double alpha, double a) {
  const double threshold = std::log(1 / alpha);
  std::size_t t = 1;
  while (sign_mixture_log(t, t, a) < threshold) ++t;
  return t;
}

MedianSequence median_sequence(std::span<const double> d, double alpha, double null, double a) {
  if (!(alpha > 0 && alpha < 1)) throw std::invalid_argument("median_sequence: alpha outside (0, 1)");
  for (double v : d)
    if (!std::isfinite(v)) throw std::invalid_argument("median_sequence: non-finite value");
  MedianSequence out;
  const std::size_t n = d.size();
  out.n = n;
  if (n == 0) {
    out.median = std::numeric_limits<double>::quiet_NaN();
    out.lo = -kInf;
    out.hi = kInf;
    return out;
  }
  const double log_threshold = std::log(1 / alpha);
  std::vector<double> s(d.begin(), d.end());
  // The j-th smallest (1-based), by selection; each call narrows nothing it needs later.
  const auto order = [&](std::size_t j) {
    std::nth_element(s.begin(), s.begin() + static_cast<std::ptrdiff_t>(j - 1), s.end());
    return s[j - 1];
  };
  const double upper_mid = order(n / 2 + 1);
  out.median = n % 2 ? upper_mid : (upper_mid + *std::max_element(s.begin(), s.begin() + static_cast<std::ptrdiff_t>(n / 2))) / 2;
  // By symmetry of M_n(k) in k <-> n - k, the accepted counts are j1..n - j1.
  const std::size_t j1 = lowest_accepted(n, log_threshold, a);
  if (j1 > n / 2) {
    // No m is accepted at all: cannot happen for a proper prior, but keep the interval
    // honest rather than empty.
    out.lo = -kInf;
    out.hi = kInf;
  } else {
    out.lo = j1 == 0 ? -kInf : order(j1);
    const std::size_t j2 = n - j1;
    out.hi = j2 + 1 > n ? kInf : order(j2 + 1);
  }
  std::size_t above = 0, below = 0;
  for (double v : d) {
    if (v > null) ++above;
    else if (v < null) ++below;
  }
  const double log_m = sign_mixture_log(above + below, above, a);
  out.p_value = std::min(1.0, std::exp(-log_m));
  return out;
}

double sequence_width_in_se(std::size_t n, double alpha, double a) { return width_in_se(n, alpha, a); }

std::size_t blocks_for_half_width(double half_width, std::size_t n, double target, double alpha, std::size_t max_n,
                                  double a) {
  const double now = width_in_se(n, alpha, a);
  if (!std::isfinite(now) || !std::isfinite(half_width) || !(target > 0) || target >= half_width || n >= max_n)
    return 0;
  const double se1 = half_width / now * std::sqrt(static_cast<double>(n));  // the median's SE at one block
  const auto fits = [&](std::size_t m) {
    return width_in_se(m, alpha, a) * se1 / std::sqrt(static_cast<double>(m)) <= target;
  };
  if (!fits(max_n)) return 0;
  // The width in standard errors grows like sqrt(log m) while the standard error falls
  // like 1/sqrt(m): the product falls, so the first m that fits is found by bisection.
  std::size_t lo = n + 1, hi = max_n;
  while (lo < hi) {
    const std::size_t mid = lo + (hi - lo) / 2;
    if (fits(mid)) hi = mid;
    else lo = mid + 1;
  }
  return lo;
}

double projected_half_width(double half_width, std::size_t n, std::size_t m, double alpha, double a) {
  const double now = width_in_se(n, alpha, a);
  if (!std::isfinite(now) || !std::isfinite(half_width) || m == 0) return kInf;
  const double se1 = half_width / now * std::sqrt(static_cast<double>(n));
  return width_in_se(m, alpha, a) * se1 / std::sqrt(static_cast<double>(m));
}

}  // namespace obscheck::stats
