#include "cli/forecast.h"

#include <fmt/core.h>

#include <algorithm>
#include <cmath>
#include <numbers>
#include <optional>

#include "analysis/check.h"
#include "stats/sequential.h"

namespace obscheck {
namespace {

// The sequences are read at 1 - 2 alpha (the equivalence convention; analysis/check.h).
constexpr double kSequenceAlpha = 0.10;

struct Pilot {
  std::string metric;
  double sigma = 0;
};

// The first counter's reading (else wall time) in the warm-up's baseline and A/A copy.
std::optional<Pilot> pilot_noise(const Plan& plan, const std::vector<RunRecord>& runs) {
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
      return Pilot{m.name, std::fabs(std::log(*copy / *base)) * std::sqrt(std::numbers::pi / 2)};
  }
  return std::nullopt;
}

}  // namespace

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

WarmupFn warmup_forecast(const Options& o, const Plan& plan, double margin) {
  return [&o, &plan, margin](const WarmupSeen& w) {
    double budget = w.time_budget_s;
    const std::optional<Pilot> pilot = w.runs ? pilot_noise(plan, *w.runs) : std::nullopt;
    std::string line = fmt::format("obscheck: a block ({} runs) takes ~{:.2g} s", plan.block_size(), w.block_s);
    if (o.time_budget_auto && pilot) {
      budget = auto_budget(pilot->sigma, w.block_s, margin, plan.spec.warmup_blocks);
      line += fmt::format("; --time-budget auto: {:.0f} s", budget);
    } else if (o.time_budget_auto) {
      line += fmt::format("; --time-budget auto: no A/A pair to judge the noise by, so {:g} s", budget);
    }
    const bool fixed = plan.spec.fixed_blocks.has_value();
    if (pilot && w.block_s > 0 && (budget > 0 || fixed)) {
      const auto blocks = fixed ? *plan.spec.fixed_blocks : static_cast<std::size_t>(budget / w.block_s);
      const double hw = likely_half_width(pilot->sigma, blocks);
      line += fixed ? fmt::format("; {} blocks, ~{:.0f} s: ", blocks, static_cast<double>(blocks) * w.block_s)
                    : fmt::format("; in {:.0f} s about {} blocks: ", budget, blocks);
      line += std::isfinite(hw) ? fmt::format("likely ±{:.2g}% on {}", hw * 100, pilot->metric)
                                : std::string("too few to bound an effect");
      const auto need = blocks_to_show(pilot->sigma, margin, 100000);
      if (need > 0) line += fmt::format(" (±{:g}% needs about {} blocks, ~{:.0f} s)", margin * 100, need,
                                        static_cast<double>(need) * w.block_s);
      line += "; the noise is guessed from the warm-up's one A/A pair";
    }
    fmt::print(stderr, "{}\n", line);
    return budget;
  };
}

}  // namespace obscheck
