// job/: what a check can likely show, said once on stderr after its warm-up block,
// before the first measured run: the seconds a block takes, the blocks the time budget
// allows, and the ±ε those blocks would likely show at the noise seen so far; with
// --time-budget auto, the budget chosen to show ±margin and why.
//
// The numbers are analysis/forecast.h's; the message says they are an estimate.
#pragma once

#include "plan/plan.h"
#include "run/session.h"

namespace obscheck {

// The session's after-warm-up step for a check with this plan and margin: prints the
// forecast and returns the budget to keep (the given one, or with `budget_auto`
// (--time-budget auto) the one chosen to show ±margin).
WarmupFn warmup_forecast(bool budget_auto, const Plan& plan, double margin);

}  // namespace obscheck
