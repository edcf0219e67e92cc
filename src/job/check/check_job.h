// job/: a prepared check's session run to its end (new, or resumed with its journalled
// runs in the session): the looks' analysis chosen once by the backend (exact counts,
// or the paired sequential analysis over a table each look appends to), the forecast
// after the warm-up, the session in run/session.h, and the report's context with what
// the stop means for a --resume. cli/cmd_check.cpp prints it and picks the exit code.
#pragma once

#include <nlohmann/json.hpp>

#include "analysis/check.h"
#include "job/check/check_setup.h"
#include "record/journal.h"
#include "report/check_report.h"
#include "run/session.h"

namespace obscheck {

// What this invocation asks of the session besides the request.
struct CheckRunAsk {
  bool time_budget_auto = false;  // --time-budget auto: sized after the warm-up (job/check/forecast.h)
  bool decide_all = false;        // --decide-all: stop only when every metric is decided
};

// The session's end: why it stopped, the findings of its last look, and the report's
// context (its warnings say how to continue a check stopped by its cap or its budget;
// the exit code and verbosity are the caller's).
struct CheckRun {
  SessionOutcome outcome;
  Findings findings;
  CheckContext ctx;
};

// A new check made ready: its request prepared, its session over a fresh plan, its
// journal created with the manifest, and the host that manifest describes.
struct StartedCheck {
  PreparedCheck prepared;
  Session session;
  JournalWriter journal;
  nlohmann::json host;
};

// The check's looks: each analyses every run so far, by the exact analysis
// (analysis/deterministic.h) when `exact`, else by the paired sequential analysis
// (analysis/check.h) over `table`, which each look extends with the new runs. The
// look is decisive when the stopping family is decided (`decide_all`: every metric)
// and names the configurations that family no longer needs (analysis/settled.h).
// `findings` holds the last look's; `r`, `plan`, `table` and `findings` outlive the
// function.
LookFn analysis_at_looks(const CheckRequest& r, bool exact, bool decide_all, const Plan& plan, RunTable& table,
                         Findings& findings);

// Plans `p` and creates its journal at `journal_path` (a new file; "": a new
// obscheck-*.jsonl in the current directory). `plan_digest`, when not empty, is
// recorded in the manifest (a shard of a plan file). Throws Error(io) when the journal
// cannot be created, and first Error(usage) for `time_budget_auto` (--time-budget auto,
// sized from the warm-up's noise and pace, job/check/forecast.h) when nothing can size it: no
// warm-up block, or an exact backend (decided at its first look); it would silently
// keep 60 s.
StartedCheck start_check(PreparedCheck p, const std::string& journal_path, const std::string& plan_digest = "",
                         bool time_budget_auto = false);

// Runs `s` (its plan and spec set, its journal open as `journal`) to its end under
// `p`'s request; `progress` hears of each run. `host`: the manifest's host.
CheckRun run_check_session(const PreparedCheck& p, Session& s, JournalWriter& journal, const nlohmann::json& host,
                           const CheckRunAsk& ask, const SessionProgressFn& progress);

}  // namespace obscheck
