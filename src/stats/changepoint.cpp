#include "stats/changepoint.h"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>
#include <stdexcept>
#include <string>
#include <utility>

#include "stats/descriptive.h"
#include "stats/validate.h"

namespace obscheck::stats {

namespace {

constexpr double kVarianceFloorFraction = 1e-6;

struct SegmentCost {
  std::vector<double> s1, s2;  // prefix sums of x and x^2 (after centring)
  ChangeModel model;
  double sigma2 = 1.0;     // mean model: noise variance
  double var_floor = 0.0;  // mean-and-variance model: variance floor

  // Cost of x[a, b).
  double operator()(std::size_t a, std::size_t b) const {
    const double m = static_cast<double>(b - a);
    const double sum = s1[b] - s1[a];
    const double sq = s2[b] - s2[a];
    const double rss = std::max(sq - sum * sum / m, 0.0);
    if (model == ChangeModel::mean) return rss / sigma2;
    return m * std::log(std::max(rss / m, var_floor));
  }
};

// The segment cost's prefix sums and scale for x (centred on its mean, which keeps
// the sums well conditioned); overall_var > 0.
SegmentCost segment_cost(std::span<const double> x, ChangeModel model, double overall_var) {
  const std::size_t n = x.size();
  SegmentCost cost{std::vector<double>(n + 1, 0.0), std::vector<double>(n + 1, 0.0), model};
  const double centre = mean(x);
  for (std::size_t i = 0; i < n; ++i) {
    const double v = x[i] - centre;
    cost.s1[i + 1] = cost.s1[i] + v;
    cost.s2[i + 1] = cost.s2[i] + v * v;
  }
  if (model == ChangeModel::mean) {
    std::vector<double> diffs(n - 1);
    for (std::size_t i = 1; i < n; ++i) diffs[i - 1] = x[i] - x[i - 1];
    const double sigma = mad(diffs) * kMadNormalScale / std::sqrt(2.0);
    // Differences all equal (a pure ramp or steps on a constant): fall back to the
    // ordinary variance so the cost stays finite.
    cost.sigma2 = sigma > 0.0 ? sigma * sigma : overall_var;
  } else {
    cost.var_floor = kVarianceFloorFraction * overall_var;
  }
  return cost;
}

// PELT (Killick et al. 2012): f[t] = min over admissible s of f[s] + cost(s, t) +
// penalty; returns last[t], the start of the last segment of the best split of x[0, t).
std::vector<std::size_t> pelt(const SegmentCost& cost, std::size_t n, std::size_t ms, double penalty) {
  constexpr double kInf = std::numeric_limits<double>::infinity();
  std::vector<double> f(n + 1, kInf);
  std::vector<std::size_t> last(n + 1, 0);
  f[0] = -penalty;
  std::vector<std::size_t> candidates;  // admissible previous changepoints
  for (std::size_t t = ms; t <= n; ++t) {
    // s = t - ms becomes admissible once a segmentation of x[0, s) exists.
    if (const std::size_t s_new = t - ms; s_new == 0 || s_new >= ms) candidates.push_back(s_new);
    double best = kInf;
    std::size_t arg = 0;
    for (std::size_t s : candidates) {
      if (t - s < ms) continue;
      const double v = f[s] + cost(s, t) + penalty;
      if (v < best) {
        best = v;
        arg = s;
      }
    }
    f[t] = best;
    last[t] = arg;
    // Pruning (Killick et al. 2012, eq. 4): s can never be optimal again if
    // f[s] + cost(s, t) > f[t] (K = 0 for these costs up to the floor).
    std::vector<std::size_t> kept;
    kept.reserve(candidates.size());
    for (std::size_t s : candidates) {
      if (t - s < ms || f[s] + cost(s, t) <= f[t]) kept.push_back(s);
    }
    candidates.swap(kept);
  }
  return last;
}

}  // namespace

Changepoints detect_changepoints(std::span<const double> x, const ChangepointOptions& options) {
  require_finite(x, "detect_changepoints");
  if (options.min_segment < 2) {
    throw std::invalid_argument("detect_changepoints: min_segment must be at least 2, got " +
                                std::to_string(options.min_segment));
  }
  if (options.penalty < 0.0 || !std::isfinite(options.penalty)) {
    throw std::invalid_argument("detect_changepoints: penalty must be finite and >= 0 (0 selects 3 ln n)");
  }
  const std::size_t n = x.size();
  Changepoints out{{}, options.penalty};
  if (n < 2) return out;
  const double penalty = options.penalty > 0.0 ? options.penalty
                                               : kChangepointPenaltyPerLogN * std::log(static_cast<double>(n));
  out.penalty = penalty;
  const std::size_t ms = options.min_segment;
  if (n < 2 * ms) return out;

  const double overall_var = variance(x);
  if (overall_var == 0.0) return out;
  const std::vector<std::size_t> last = pelt(segment_cost(x, options.model, overall_var), n, ms, penalty);
  for (std::size_t t = n; t > 0;) {
    const std::size_t s = last[t];
    if (s > 0) out.starts.push_back(s);
    t = s;
  }
  std::reverse(out.starts.begin(), out.starts.end());
  return out;
}

std::optional<std::size_t> warmup_rolling_cv(std::span<const double> x, std::size_t window,
                                             double threshold) {
  require_finite(x, "warmup_rolling_cv");
  if (window < 2) {
    throw std::invalid_argument("warmup_rolling_cv: window must be at least 2, got " +
                                std::to_string(window));
  }
  if (!(threshold > 0.0) || !std::isfinite(threshold)) {
    throw std::invalid_argument("warmup_rolling_cv: threshold must be a finite value > 0");
  }
  for (std::size_t i = window; i <= x.size(); ++i) {
    const auto w = x.subspan(i - window, window);
    const double m = mean(w);
    if (m <= 0.0) continue;
    double ss = 0.0;
    for (double v : w) ss += (v - m) * (v - m);
    const double sd = std::sqrt(ss / static_cast<double>(window));
    if (sd / m < threshold) return i - window;
  }
  return std::nullopt;
}


ChangeTest pettitt_test(std::span<const double> x) {
  for (double v : x)
    if (!std::isfinite(v)) throw std::invalid_argument("pettitt_test: non-finite value");
  ChangeTest out;
  const std::size_t n = x.size();
  if (n < 2) return out;
  if (n > std::numeric_limits<std::uint32_t>::max())
    throw std::invalid_argument("pettitt_test: more than 2^32 - 1 values");
  // The values with their positions, sorted by value: one sort of contiguous pairs (a
  // sort of positions compared through x reads x at random, most of this test's time
  // on a long series). Ties may come in any order: they share one mid-rank.
  std::vector<std::pair<double, std::uint32_t>> sorted(n);
  for (std::size_t i = 0; i < n; ++i) sorted[i] = {x[i], static_cast<std::uint32_t>(i)};
  std::sort(sorted.begin(), sorted.end(), [](const auto& a, const auto& b) { return a.first < b.first; });
  // Twice each mid-rank, a whole number: the tie group at sorted places i..j (0-based)
  // has mid-rank (i + j) / 2 + 1. U_t = sum_{i<=t} 2 r_i - t (n + 1) is then exact (for
  // n below 9e7, as the sum of half-integer ranks in doubles was before).
  std::vector<std::uint64_t> rank2(n);
  for (std::size_t i = 0; i < n;) {
    std::size_t j = i;
    while (j + 1 < n && sorted[j + 1].first == sorted[i].first) ++j;
    for (std::size_t k = i; k <= j; ++k) rank2[sorted[k].second] = i + j + 2;
    i = j + 1;
  }
  const double nn = static_cast<double>(n);
  std::uint64_t sum2 = 0;
  double best = 0;
  std::size_t best_t = 0;
  for (std::size_t t = 1; t < n; ++t) {
    sum2 += rank2[t - 1];
    const double u = std::fabs(static_cast<double>(sum2) - static_cast<double>(t) * (nn + 1));
    if (u > best) best = u, best_t = t;
  }
  out.at = best_t;
  out.statistic = best;
  out.p_value = std::min(1.0, 2 * std::exp(-6 * best * best / (nn * nn * nn + nn * nn)));
  return out;
}

}  // namespace obscheck::stats
