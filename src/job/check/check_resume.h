// job/: a check continued from its journal (--resume FILE). The continuation runs
// exactly as the journal's check did: its request comes from the journal's manifest;
// the command line gives only this invocation's budget and a raised cap. A check
// stopped by its budget (or as futile) goes on with more blocks, as does one stopped at
// its cap, which the resume raises (an "extend" note, written before any run past the
// old cap); one that decided or ran its fixed blocks is complete. The binary, the
// environment and the observer's doses must be the journal's, or the target's layout
// would move.
#pragma once

#include <optional>
#include <string>

#include <nlohmann/json.hpp>

#include "job/check/check_setup.h"
#include "record/journal.h"
#include "run/session.h"

namespace obscheck {

// What the command line of a resume may give besides the output.
struct CheckResumeAsk {
  std::optional<double> time_budget;  // --time-budget SECONDS (not auto): this invocation's
  std::optional<int> max_runs;        // --max-runs: a cap that may only raise the journal's
  bool time_budget_auto = false;      // --time-budget auto: refused, Error(usage) (no warm-up to size it by)
};

struct ResumedCheck {
  ResumedJournal journal;
  // Nothing to run: the journal's check is complete (its report is all there is).
  bool complete = false;
  PreparedCheck prepared;  // the journal's request resolved on this host
  Session session;         // the journal's plan (its notes applied), runs and notes
  nlohmann::json host;     // the manifest's host
  std::string notice;      // "continuing FILE after N measured blocks (...)": a finished
                           // check given more blocks; "" otherwise
};

// Opens the journal at `path` for a resumed check. Throws Error(usage) for a --max-runs
// with a fixed-blocks check or below the journal's cap, a changed binary, environment
// or doses; Error(io) as load_journal.
ResumedCheck resume_check(const std::string& path, const CheckResumeAsk& ask);

}  // namespace obscheck
