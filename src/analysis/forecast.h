// analysis/: what a check can likely show: the budget --time-budget auto chooses from
// its warm-up block, and the forecast of its first look. Pure: a plan, runs or
// findings in, numbers out (job/check/forecast.h says them).
//
// The first look's forecast (first_look_forecast) is the one the check prints, at its
// first look of at least kForecastBlocks blocks: by then every comparison of a metric
// has paired blocks, and their spreads of d are the noise of many pairs, where the
// warm-up's was one pair's. The interval it forecasts is the one the check's own
// methods (the sign sequence ∩ the sequential t-test, analysis/check.h) give on normal
// noise at the metric's robust spread (Findings::robust_spread: d's interquartile range
// as a standard deviation, the spread near the median that the sign sequence's width
// follows; the t-test floored at the pooled spread, as the check floors it) over the
// most blocks the cap (--max-runs) and the rest of the budget allow: a check stops only
// when every verdict of its family is decided, and most run to that end. It also says
// from which look the typical comparison would likely lie within ±margin. Replayed
// independently on the recorded noise of tests/fixtures/noise it is within 2x of the
// interval the check reached in at least 80% of replays (tests/calibration;
// docs/statistics.md "The forecast").
//
// The warm-up's guess, for --time-budget auto alone, before any look:
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

#include "analysis/findings.h"
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

// The half-width, as a ratio, of the check's interval (sign sequence ∩ sequential t at
// `alpha`, the t-test's scale floored at `floor`) on `blocks` blocks of normal noise of
// standard deviation `sigma` in the paired log ratio; infinite while unbounded.
double interval_half_width(double sigma, double floor, std::size_t blocks, double alpha);

// The forecast waits for the first look with at least this many measured blocks: the
// check's first look comes at 3 to 5 blocks (check.h first_look), where the spread of
// so few pairs was within 2x of what the check went on to show in only 60% of the
// replays on two of the three noise fixtures, against 84-90% at 10 blocks.
inline constexpr std::size_t kForecastBlocks = 10;

struct FirstLookForecast {
  std::string metric;           // the first counter's reading when compared as a ratio, else wall time
  double sigma = 0;             // its robust spread of d at the look (Findings::robust_spread: IQR / 1.349)
  double floor = 0;             // its pooled spread (Findings::spread): the t-test's floor
  std::size_t blocks = 0;       // the most measured blocks the check may run (cap and budget)
  double half_width = 0;        // the likely half-width there (a ratio; infinite: unbounded)
  std::size_t within_margin = 0;  // the first look at which it would likely be within ±margin; 0: none
};
// The forecast from a look's findings `f` (taken at f.measured_blocks blocks)
// for a check that may run `most_blocks` measured blocks in all. nullopt when no
// metric of the two has a ratio-scale comparison with a spread.
std::optional<FirstLookForecast> first_look_forecast(const Findings& f, std::size_t most_blocks);

}  // namespace obscheck
