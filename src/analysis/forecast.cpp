#include "analysis/forecast.h"

#include <algorithm>
#include <cmath>
#include <numbers>

#include "analysis/check.h"
#include "stats/magnitude.h"
#include "stats/sequential.h"

namespace obscheck {
namespace {

// The sequences are read at 1 - 2 alpha (the equivalence convention; analysis/check.h).
constexpr double kSequenceAlpha = 0.10;

// The standard normal quantile (Acklam's rational approximation, relative error below
// 1.2e-9): the synthetic noise's scores.
double normal_quantile(double p) {
  static constexpr double a[] = {-3.969683028665376e+01, 2.209460984245205e+02, -2.759285104469687e+02,
                                 1.383577518672690e+02,  -3.066479806614716e+01, 2.506628277459239e+00};
  static constexpr double b[] = {-5.447609879822406e+01, 1.615858368580409e+02, -1.556989798598866e+02,
                                 6.680131188771972e+01,  -1.328068155288572e+01};
  static constexpr double c[] = {-7.784894002430293e-03, -3.223964580411365e-01, -2.400758277161838e+00,
                                 -2.549732539343734e+00, 4.374664141464968e+00,  2.938163982698783e+00};
  static constexpr double d[] = {7.784695709041462e-03, 3.224671290700398e-01, 2.445134137142996e+00,
                                 3.754408661907416e+00};
  const auto tail = [&](double q) {
    const double t = std::sqrt(-2 * std::log(q));
    return (((((c[0] * t + c[1]) * t + c[2]) * t + c[3]) * t + c[4]) * t + c[5]) /
           ((((d[0] * t + d[1]) * t + d[2]) * t + d[3]) * t + 1);
  };
  if (p < 0.02425) return tail(p);
  if (p > 1 - 0.02425) return -tail(1 - p);
  const double q = p - 0.5, r = q * q;
  return (((((a[0] * r + a[1]) * r + a[2]) * r + a[3]) * r + a[4]) * r + a[5]) * q /
         (((((b[0] * r + b[1]) * r + b[2]) * r + b[3]) * r + b[4]) * r + 1);
}

// The metric the forecast speaks of: the first counter's reading, else wall time, when
// compared as a ratio with a spread.
std::optional<std::size_t> forecast_metric(const Findings& f) {
  std::vector<std::size_t> order;
  for (std::size_t m = 0; m < f.metrics.size(); ++m)
    if (!f.metrics[m].driver && f.metrics[m].counter == 0) order.push_back(m);
  for (std::size_t m = 0; m < f.metrics.size(); ++m)
    if (f.metrics[m].driver && f.metrics[m].name == "wall-time") order.push_back(m);
  for (std::size_t m : order) {
    if (m >= f.robust_spread.size() || !(f.robust_spread[m] > 0)) continue;
    const bool ratio = std::any_of(f.comparisons.begin(), f.comparisons.end(),
                                   [&](const Comparison& c) { return c.metric == m && c.n > 0 && c.scale == Scale::ratio; });
    if (ratio) return m;
  }
  return std::nullopt;
}

}  // namespace

double interval_half_width(double sigma, double floor, std::size_t blocks, double alpha) {
  if (blocks == 0) return INFINITY;
  std::vector<double> d(blocks);
  for (std::size_t i = 0; i < blocks; ++i)
    d[i] = sigma * normal_quantile((static_cast<double>(i) + 0.5) / static_cast<double>(blocks));
  // The interval's shares as the check's sequential inference splits 2 alpha
  // (analysis/check.h: the range's first, then the sign and t sequences').
  const std::size_t n0 = stats::range_first_blocks(kRangeShare * 2 * alpha);
  const double rest = 2 * alpha - std::ldexp(1.0, 1 - static_cast<int>(n0));
  const stats::MedianSequence sign = stats::median_sequence(d, sequence_alpha(alpha));
  const stats::MeanSequence mag = stats::mean_sequence(d, rest * kMagnitudeShare, std::max(floor, 0.0));
  double lo = std::max(sign.lo, mag.lo), hi = std::min(sign.hi, mag.hi);
  if (lo > hi) lo = sign.lo, hi = sign.hi;  // as the check: the t-test set aside
  if (blocks >= n0) lo = std::max(lo, d.front()), hi = std::min(hi, d.back());
  const double hw = (hi - lo) / 2;
  return std::isfinite(hw) ? std::expm1(hw) : INFINITY;
}

std::optional<FirstLookForecast> first_look_forecast(const Findings& f, std::size_t most_blocks) {
  const std::optional<std::size_t> m = forecast_metric(f);
  if (!m) return std::nullopt;
  FirstLookForecast out;
  out.metric = f.metrics[*m].name;
  out.sigma = f.robust_spread[*m];
  out.floor = f.spread[*m];
  out.blocks = std::max(most_blocks, f.measured_blocks);
  out.half_width = interval_half_width(out.sigma, out.floor, out.blocks, f.alpha);
  // The looks from this one on, as the session takes them (plan/ next_look).
  for (std::size_t n = std::max<std::size_t>(f.measured_blocks, 1);; n = std::min(next_look(n), out.blocks)) {
    if (interval_half_width(out.sigma, out.floor, n, f.alpha) < f.margin) {
      out.within_margin = n;
      break;
    }
    if (n >= out.blocks) break;
  }
  return out;
}

std::optional<PilotNoise> pilot_noise(const Plan& plan, const std::vector<RunRecord>& runs) {
  if (plan.aa >= plan.configs.size() || plan.baselines.empty()) return std::nullopt;
  std::vector<MetricInfo> candidates;
  if (!plan.spec.counters.empty()) candidates.push_back({plan.spec.counters.front(), "", false, 0});
  candidates.push_back({"wall-time", "ns", true, std::nullopt});
  for (const MetricInfo& m : candidates) {
    std::optional<double> base, copy;
    for (const RunRecord& r : runs) {
      if (!r.warmup) continue;
      if (r.config == plan.baselines.front()) base = metric_value(m, r);
      if (r.config == plan.aa) copy = metric_value(m, r);
    }
    if (base && copy && *base > 0 && *copy > 0)
      return PilotNoise{m.name, std::fabs(std::log(*copy / *base)) * std::sqrt(std::numbers::pi / 2)};
  }
  return std::nullopt;
}

double likely_half_width(double sigma, std::size_t blocks) {
  if (blocks == 0) return INFINITY;
  const double n = static_cast<double>(blocks);
  // The sample median's standard error is about sqrt(pi / 2) sigma / sqrt(n).
  const double hw = stats::sequence_width_in_se(blocks, kSequenceAlpha) * std::sqrt(std::numbers::pi / 2) * sigma / std::sqrt(n);
  return std::isfinite(hw) ? std::expm1(hw) : INFINITY;
}

std::size_t blocks_to_show(double sigma, double target, std::size_t max_blocks) {
  for (std::size_t n = 1; n <= max_blocks; n += n < 64 ? 1 : n / 16)
    if (likely_half_width(sigma, n) <= target) return n;
  return 0;
}

double auto_budget(double sigma, double block_s, double margin, std::size_t warmup_blocks) {
  if (!(block_s > 0)) return kAutoBudgetCeilingS;
  const auto most = static_cast<std::size_t>(kAutoBudgetCeilingS / block_s);
  const std::size_t n = blocks_to_show(sigma, margin * kAutoTargetShare, most);
  if (n == 0) return kAutoBudgetCeilingS;
  const double s = (static_cast<double>(n) * kAutoBlockSlack + static_cast<double>(warmup_blocks)) * block_s;
  return std::clamp(s, kAutoBudgetFloorS, kAutoBudgetCeilingS);
}

}  // namespace obscheck
