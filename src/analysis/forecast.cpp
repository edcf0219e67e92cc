#include "analysis/forecast.h"

#include <algorithm>
#include <cmath>
#include <numbers>

#include "analysis/check.h"
#include "stats/sequential.h"

namespace obscheck {
namespace {

// The sequences are read at 1 - 2 alpha (the equivalence convention; analysis/check.h).
constexpr double kSequenceAlpha = 0.10;

}  // namespace

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
