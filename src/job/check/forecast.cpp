#include "job/check/forecast.h"

#include <fmt/core.h>

#include <algorithm>
#include <cmath>
#include <optional>

#include "analysis/forecast.h"

namespace obscheck {
namespace {

// The first look's line: the interval the check likely reaches by the most blocks it
// may run, and from when the typical comparison would be within the margin.
std::string first_look_line(const Plan& plan, const Findings& f, const FirstLookForecast& fc, double pace_s,
                            std::size_t budget_blocks, double budget_s) {
  const bool cap = budget_s <= 0 || budget_blocks >= plan.spec.max_blocks;
  std::string line = fmt::format(
      "obscheck: at {} blocks: by {} blocks ({}) likely ", f.measured_blocks, fc.blocks,
      cap ? fmt::format("the cap, --max-runs {}", plan.spec.max_blocks)
          : fmt::format("what the {:g} s budget allows at ~{:.2g} s a block", budget_s, pace_s));
  line += std::isfinite(fc.half_width) ? fmt::format("±{:.2g}% on {}", fc.half_width * 100, fc.metric)
                                       : fmt::format("no bound on {}", fc.metric);
  if (fc.within_margin > 0)
    line += fmt::format(", within ±{:g}% from about {} blocks (~{:.0f} s; the check stops once every verdict is "
                        "decided)",
                        f.margin * 100, fc.within_margin,
                        static_cast<double>(fc.within_margin + plan.spec.warmup_blocks) * pace_s);
  return line + "; an estimate from the spread of the pairs so far";
}

}  // namespace

double ForecastClock::now_s() const {
  const auto now = clock ? clock() : std::chrono::steady_clock::now();
  return std::chrono::duration<double>(now - started).count();
}

WarmupFn warmup_forecast(bool budget_auto, const Plan& plan, double margin, std::shared_ptr<ForecastClock> clock) {
  return [budget_auto, &plan, margin, clock](const WarmupSeen& w) {
    double budget = w.time_budget_s;
    const std::optional<PilotNoise> pilot = w.runs ? pilot_noise(plan, *w.runs) : std::nullopt;
    std::string line = fmt::format("obscheck: a block ({} runs) takes ~{:.2g} s", plan.block_size(), w.block_s);
    if (budget_auto && pilot) {
      budget = auto_budget(pilot->sigma, w.block_s, margin, plan.spec.warmup_blocks);
      line += fmt::format("; --time-budget auto: {:.0f} s (from the warm-up's one A/A pair; the first look says more)",
                          budget);
    } else if (budget_auto) {
      line += fmt::format("; --time-budget auto: no A/A pair to judge the noise by, so {:g} s", budget);
    }
    if (clock) clock->budget_s = plan.spec.fixed_blocks ? 0.0 : budget;
    fmt::print(stderr, "{}\n", line);
    return budget;
  };
}

LookFn with_first_look_forecast(LookFn look, const Plan& plan, const Findings& findings,
                                std::shared_ptr<ForecastClock> clock) {
  auto said = std::make_shared<bool>(false);
  return [look = std::move(look), &plan, &findings, clock, said](const std::vector<RunRecord>& runs,
                                                                 std::size_t looks) {
    LookOutcome out = look(runs, looks);
    if (*said || plan.spec.fixed_blocks || findings.measured_blocks < kForecastBlocks) return out;
    *said = true;
    const double elapsed = clock->now_s();
    const double pace = elapsed / static_cast<double>(findings.measured_blocks + plan.spec.warmup_blocks);
    std::size_t budget_blocks = plan.spec.max_blocks;
    if (clock->budget_s > 0 && pace > 0)
      budget_blocks = findings.measured_blocks +
                      static_cast<std::size_t>(std::max(0.0, (clock->budget_s - elapsed) / pace));
    const std::size_t most = std::min(plan.spec.max_blocks, budget_blocks);
    if (const std::optional<FirstLookForecast> fc = first_look_forecast(findings, most))
      fmt::print(stderr, "{}\n", first_look_line(plan, findings, *fc, pace, budget_blocks, clock->budget_s));
    return out;
  };
}

}  // namespace obscheck
