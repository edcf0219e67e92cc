#include "stats/dependence.h"

#include <algorithm>
#include <cmath>

#include "stats/descriptive.h"
#include "stats/validate.h"

namespace obscheck::stats {

namespace {

// Newey & West (1994), Bartlett kernel: gamma_hat = 1.1447 (s1/s0)^(2/3).
constexpr double kNeweyWestBartlettConstant = 1.1447;
// Politis & White (2004): the constant c in the threshold c sqrt(log10(n)/n).
constexpr double kPolitisWhiteC = 2.0;

std::vector<double> demeaned(std::span<const double> x) {
  const double m = mean(x);
  std::vector<double> d(x.begin(), x.end());
  for (double& v : d) v -= m;
  return d;
}

double autocov_at(const std::vector<double>& d, std::size_t k) {
  const std::size_t n = d.size();
  double s = 0.0;
  for (std::size_t i = 0; i + k < n; ++i) s += d[i] * d[i + k];
  return s / static_cast<double>(n);
}

std::vector<double> autocov_demeaned(const std::vector<double>& d, std::size_t max_lag) {
  max_lag = std::min(max_lag, d.size() - 1);
  std::vector<double> g(max_lag + 1);
  for (std::size_t k = 0; k <= max_lag; ++k) g[k] = autocov_at(d, k);
  return g;
}

std::size_t newey_west_lag_demeaned(const std::vector<double>& d) {
  const std::size_t n = d.size();
  if (n < 3) return 0;
  const double nd = static_cast<double>(n);
  const auto n_pre = static_cast<std::size_t>(std::floor(4.0 * std::pow(nd / 100.0, 2.0 / 9.0)));
  const auto g = autocov_demeaned(d, n_pre);
  if (g[0] <= 0.0) return 0;
  double s0 = g[0], s1 = 0.0;
  for (std::size_t j = 1; j < g.size(); ++j) {
    s0 += 2.0 * g[j];
    s1 += 2.0 * static_cast<double>(j) * g[j];
  }
  if (s0 <= 0.0) return 0;
  const double gamma_hat = kNeweyWestBartlettConstant * std::pow((s1 / s0) * (s1 / s0), 1.0 / 3.0);
  const double lag = std::floor(gamma_hat * std::cbrt(nd));
  const double cap = std::floor((nd - 1.0) / 2.0);
  return static_cast<std::size_t>(std::min(lag, cap));
}

HacResult hac_demeaned(const std::vector<double>& d, std::size_t lag) {
  const auto g = autocov_demeaned(d, lag);
  const std::size_t used = g.size() - 1;
  double lrv = g[0];
  for (std::size_t j = 1; j <= used; ++j) {
    lrv += 2.0 * (1.0 - static_cast<double>(j) / static_cast<double>(used + 1)) * g[j];
  }
  lrv = std::max(lrv, 0.0);
  return {std::sqrt(lrv / static_cast<double>(d.size())), lrv, used};
}

double flat_top(double t) {
  t = std::fabs(t);
  if (t <= 0.5) return 1.0;
  if (t <= 1.0) return 2.0 * (1.0 - t);
  return 0.0;
}

}  // namespace

std::vector<double> autocovariance(std::span<const double> x, std::size_t max_lag) {
  require_sample(x, 1, "autocovariance");
  return autocov_demeaned(demeaned(x), max_lag);
}

std::vector<double> autocorrelation(std::span<const double> x, std::size_t max_lag) {
  require_sample(x, 1, "autocorrelation");
  auto g = autocov_demeaned(demeaned(x), max_lag);
  const double g0 = g[0];
  for (std::size_t k = 0; k < g.size(); ++k) g[k] = g0 > 0.0 ? g[k] / g0 : (k == 0 ? 1.0 : 0.0);
  return g;
}

double iid_se(std::span<const double> x) {
  require_sample(x, 2, "iid_se");
  return stddev(x) / std::sqrt(static_cast<double>(x.size()));
}

std::size_t newey_west_lag(std::span<const double> x) {
  require_sample(x, 1, "newey_west_lag");
  return newey_west_lag_demeaned(demeaned(x));
}

HacResult hac_se(std::span<const double> x, std::size_t lag) {
  require_sample(x, 2, "hac_se");
  return hac_demeaned(demeaned(x), lag);
}

HacResult hac_se(std::span<const double> x) {
  require_sample(x, 2, "hac_se");
  const auto d = demeaned(x);
  return hac_demeaned(d, newey_west_lag_demeaned(d));
}

double truncated_lag_se(std::span<const double> x, std::size_t max_lag) {
  require_sample(x, 2, "truncated_lag_se");
  const auto g = autocov_demeaned(demeaned(x), max_lag);
  const double n = static_cast<double>(x.size());
  double v = g[0];
  for (std::size_t k = 1; k < g.size(); ++k) v += 2.0 / n * (n - static_cast<double>(k)) * g[k];
  return std::sqrt(std::max(v, 0.0) / n);
}

double truncated_lag_se(std::span<const double> x) {
  require_sample(x, 2, "truncated_lag_se");
  return truncated_lag_se(
      x, static_cast<std::size_t>(std::floor(std::sqrt(static_cast<double>(x.size())))));
}

double effective_sample_size(std::span<const double> x) {
  require_sample(x, 2, "effective_sample_size");
  const auto d = demeaned(x);
  const double n = static_cast<double>(x.size());
  const double g0 = autocov_at(d, 0);
  const auto h = hac_demeaned(d, newey_west_lag_demeaned(d));
  if (g0 <= 0.0 || h.long_run_variance <= 0.0) return n;
  return n * g0 / h.long_run_variance;
}

BlockLength politis_white_block_length(std::span<const double> x) {
  require_sample(x, 2, "politis_white_block_length");
  const auto d = demeaned(x);
  const std::size_t n = d.size();
  const double nd = static_cast<double>(n);
  const double g0 = autocov_at(d, 0);
  if (g0 <= 0.0) return {1.0, 1.0, 1, 0};

  const auto k_n = std::max<std::size_t>(
      5, static_cast<std::size_t>(std::ceil(std::sqrt(std::log10(nd)))));
  const std::size_t m_max =
      std::min(n - 1, static_cast<std::size_t>(std::ceil(std::sqrt(nd))) + k_n);
  const double threshold = kPolitisWhiteC * std::sqrt(std::log10(nd) / nd);

  // Autocovariances computed lazily: the search usually ends after a few lags.
  std::vector<double> g{g0};
  auto gamma = [&](std::size_t k) {
    while (g.size() <= k) g.push_back(autocov_at(d, g.size()));
    return g[k];
  };
  std::size_t m_hat = m_max, run = 0;
  for (std::size_t k = 1; k <= m_max; ++k) {
    if (std::fabs(gamma(k) / g0) < threshold) {
      if (++run == k_n) {
        m_hat = k - k_n;
        break;
      }
    } else {
      run = 0;
    }
  }
  const std::size_t big_m = std::min(2 * m_hat, m_max);
  double g_sum = g0, big_g = 0.0;
  for (std::size_t k = 1; k <= big_m; ++k) {
    const double w = flat_top(static_cast<double>(k) / static_cast<double>(big_m));
    g_sum += 2.0 * w * gamma(k);
    big_g += 2.0 * w * static_cast<double>(k) * gamma(k);
  }
  const double cap = std::min(3.0 * std::sqrt(nd), nd / 3.0);
  BlockLength b{1.0, 1.0, 1, m_hat};
  if (g_sum > 0.0 && big_g != 0.0) {
    const double ratio = big_g * big_g / (g_sum * g_sum);
    b.circular = std::min(cap, std::cbrt(2.0 * ratio / (4.0 / 3.0)) * std::cbrt(nd));
    b.stationary = std::min(cap, std::cbrt(2.0 * ratio / 2.0) * std::cbrt(nd));
  }
  b.circular = std::max(b.circular, 1.0);
  b.stationary = std::max(b.stationary, 1.0);
  b.circular_blocks = std::max<std::size_t>(1, static_cast<std::size_t>(std::ceil(b.circular)));
  return b;
}

}  // namespace obscheck::stats
