#include "job/forecast.h"

#include <fmt/core.h>

#include <cmath>
#include <optional>

#include "analysis/forecast.h"

namespace obscheck {

WarmupFn warmup_forecast(bool budget_auto, const Plan& plan, double margin) {
  return [budget_auto, &plan, margin](const WarmupSeen& w) {
    double budget = w.time_budget_s;
    const std::optional<PilotNoise> pilot = w.runs ? pilot_noise(plan, *w.runs) : std::nullopt;
    std::string line = fmt::format("obscheck: a block ({} runs) takes ~{:.2g} s", plan.block_size(), w.block_s);
    if (budget_auto && pilot) {
      budget = auto_budget(pilot->sigma, w.block_s, margin, plan.spec.warmup_blocks);
      line += fmt::format("; --time-budget auto: {:.0f} s", budget);
    } else if (budget_auto) {
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
