// analysis/: what a check can likely show, from its warm-up block: the noise of the
// paired log ratio, the ±ε a number of blocks would likely show, and the budget
// --time-budget auto chooses. Pure: a plan and runs in, numbers out (job/forecast.h
// says them).
//
// The noise is a rough guess: the warm-up block holds one A/A pair (the baseline and
// its copy), and the per-block spread of the paired log ratio is taken as that pair's
// |log ratio| scaled to a standard deviation (for a normal d, E|d| = σ √(2/π)). The
// width is the sign-based confidence sequence's at that σ (stats/sequential.h
// sequence_width_in_se), the same projection the report's "about N blocks would
// decide" uses.
#pragma once

#include <cstddef>
#include <optional>
#include <string>
#include <vector>

#include "plan/plan.h"
#include "record/run_record.h"

namespace obscheck {

// --time-budget auto stays within these: below the floor the first looks cannot be
// reached on most programs; above the ceiling a check is better planned (obscheck plan).
inline constexpr double kAutoBudgetFloorS = 10;
inline constexpr double kAutoBudgetCeilingS = 600;
// The pilot's noise is one pair: an auto budget aims at a quarter under the margin
// and adds a quarter more blocks, so a pair that happened to agree is not taken at
// its word.
inline constexpr double kAutoTargetShare = 0.75;
inline constexpr double kAutoBlockSlack = 1.25;

// The noise the warm-up shows: the metric judged by (the first counter's reading, else
// wall time) and the paired log ratio's estimated standard deviation.
struct PilotNoise {
  std::string metric;
  double sigma = 0;
};
// From the warm-up runs of the baseline and its A/A copy; nullopt when the plan has no
// A/A copy or the warm-up holds no positive pair.
std::optional<PilotNoise> pilot_noise(const Plan& plan, const std::vector<RunRecord>& runs);

// The likely half-width, as a ratio (0.013: ±1.3%), of the interval after `blocks`
// measured blocks at a paired log-ratio spread `sigma`; infinite while the sequence is
// unbounded at that many blocks.
double likely_half_width(double sigma, std::size_t blocks);
// The fewest measured blocks (up to max_blocks) whose likely half-width is at most
// `target` (a ratio); 0 when none is.
std::size_t blocks_to_show(double sigma, double target, std::size_t max_blocks);
// The budget --time-budget auto chooses for blocks of `block_s` seconds at `sigma`,
// within [kAutoBudgetFloorS, kAutoBudgetCeilingS].
double auto_budget(double sigma, double block_s, double margin, std::size_t warmup_blocks);

}  // namespace obscheck
