// run/: one check's loop, new or resumed: run the plan's blocks up to a look, journal
// every run, look at the data, and stop when the verdicts are decided, the time budget
// is spent, the cap is reached, a run fails or the user interrupts. The look schedule
// is plan/'s (plan_looks); what a look concludes is analysis/'s, handed in as a
// function, so this loop decides only when to stop, never what the data say.
#pragma once

#include <cstddef>
#include <functional>
#include <string>
#include <utility>
#include <vector>

#include "plan/plan.h"
#include "record/journal.h"
#include "record/run_record.h"
#include "run/check.h"

namespace obscheck {

// What a look at the runs so far concluded, as far as stopping goes.
struct LookOutcome {
  bool decisive = false;  // every verdict decided: more runs change no answer
  // Whether running up to this many measured blocks could still decide an undecided
  // verdict (at the noise seen so far). Unset: assume it could.
  std::function<bool(std::size_t measured_blocks)> could_decide_by;
  // The metrics whose every verdict is decided at this look, with the worst of them
  // (the journal's "look" note: when each answer was reached).
  std::vector<std::pair<std::string, std::string>> decided;
};
// Analyses every run so far (the session's, in order) as the n-th look.
using LookFn = std::function<LookOutcome(const std::vector<RunRecord>& runs, std::size_t looks_taken)>;

struct SessionProgress {
  std::size_t runs_done = 0;    // over the whole check, resumed runs included
  std::size_t look = 0;         // the look this stretch runs to, in measured blocks
  double look_eta_s = 0;        // this look's end, at the pace so far
  double elapsed_s = 0;         // this invocation's
  double budget_s = 0;          // 0: none
  const Configuration* config = nullptr;  // the run starting; null: the look's runs are done
};
using SessionProgressFn = std::function<void(const SessionProgress&)>;

struct Session {
  Plan plan;
  CheckSpec spec;
  std::vector<RunRecord> runs;  // a resumed check's journalled runs, then this invocation's
  std::string journal_path;
  double time_budget_s = 0;     // this invocation's; ignored when the plan fixes its blocks
  std::size_t first_look = kFirstLook;
};

struct SessionOutcome {
  bool interrupted = false;
  std::string failure;          // the run that failed and how ("" when none did)
  bool budget_spent = false;    // stopped at a look because the time budget ran out
  double seconds_per_block = 0; // this invocation's pace (0 before a whole block)
  std::size_t runs_planned = 0; // runs up to the schedule's last look
  std::size_t looks = 0;        // looks this invocation took
};

// Runs the session to its end, appending to `journal` a "look" note after each look
// (its blocks, the seconds so far, the metrics decided) and the end note ("finished" or
// "interrupted", with the looks, pace and seconds) after the last look.
// The journal reaches the disk while the last look is analysed.
SessionOutcome run_session(Session& s, JournalWriter& journal, const LookFn& look,
                           const SessionProgressFn& progress = {});

}  // namespace obscheck
