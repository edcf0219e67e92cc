// job/: what a check can likely show, said on stderr. After its warm-up block: the
// seconds a block takes and, with --time-budget auto, the budget chosen to show
// ±margin and why. At its first look of at least kForecastBlocks blocks
// (analysis/forecast.h): the interval it will likely reach, and where,
// from the noise of every comparison's pairs so far, within the cap (--max-runs) and
// the rest of the time budget at the pace so far.
//
// The numbers are analysis/forecast.h's; the message says they are an estimate.
#pragma once

#include <memory>

#include "analysis/findings.h"
#include "plan/plan.h"
#include "run/session.h"

namespace obscheck {

// What the first look's forecast reads of the session: when it started and the budget
// kept after the warm-up (set by warmup_forecast's step).
struct ForecastClock {
  SessionClock clock;  // empty: the steady clock
  std::chrono::steady_clock::time_point started;
  double budget_s = 0;  // 0: none
  double now_s() const;  // seconds since started
};

// The session's after-warm-up step for a check with this plan and margin: prints the
// block's seconds and returns the budget to keep (the given one, or with `budget_auto`
// (--time-budget auto) the one chosen to show ±margin), which it also stores in `clock`.
WarmupFn warmup_forecast(bool budget_auto, const Plan& plan, double margin, std::shared_ptr<ForecastClock> clock);

// `look` with the forecast said once, after the analysis (which fills `findings`) of
// the first look of at least kForecastBlocks measured blocks, for a new sequential
// check (not one with --runs N). A check decided sooner needs none.
LookFn with_first_look_forecast(LookFn look, const Plan& plan, const Findings& findings,
                                std::shared_ptr<ForecastClock> clock);

}  // namespace obscheck
