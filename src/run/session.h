// run/: one check's loop, new or resumed: run the plan's blocks up to a look, journal
// every run, look at the data, and stop when the verdicts are decided, the time budget
// is spent, the cap is reached, a run fails or the user interrupts. The look schedule
// is plan/'s (plan_looks); what a look concludes is analysis/'s, handed in as a
// function, so this loop decides only when to stop, never what the data say.
#pragma once

#include <chrono>
#include <cstddef>
#include <functional>
#include <string>
#include <utility>
#include <vector>

#include "plan/plan.h"
#include "record/journal.h"
#include "record/journal_notes.h"
#include "record/run_record.h"
#include "run/check.h"

namespace obscheck {

// What a look at the runs so far concluded, as far as stopping goes.
struct LookOutcome {
  bool decisive = false;  // every verdict decided: more runs change no answer
  // decisive, and no verdict left inconclusive as out of reach within the plan's cap:
  // false when the cap, not the answer, ends the check (its stop is "cap").
  bool answered = false;
  // Whether running up to this many measured blocks could still decide an undecided
  // verdict (at the noise seen so far). Unset: assume it could.
  std::function<bool(std::size_t measured_blocks)> could_decide_by;
  // The metrics whose every verdict is decided at this look, with the worst of them
  // (the journal's "look" note: when each answer was reached).
  std::vector<std::pair<std::string, std::string>> decided;
  // The configurations more blocks can no longer help (their comparisons in the
  // stopping family settled, and no unsettled comparison needs them as a reference):
  // the session stops running them from the next block on. Empty: keep every one.
  std::vector<std::size_t> settled_configs;
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
  // The verdicts at the last look, in a few words, for the progress line ("" before
  // the first look); filled by the job, which holds the findings (job/check/check_job.h).
  std::string verdicts;
};
using SessionProgressFn = std::function<void(const SessionProgress&)>;

// What the warm-up told, before the first measured block: the session calls this once,
// when this invocation runs the warm-up (a new check), and takes the budget it returns.
struct WarmupSeen {
  double block_s = 0;                 // the warm-up block's seconds
  const std::vector<RunRecord>* runs = nullptr;  // the warm-up's runs
  double time_budget_s = 0;           // the budget so far (0: none)
};
using WarmupFn = std::function<double(const WarmupSeen&)>;

// The session's clock: the steady clock, or a test's, which moves only when told.
using SessionClock = std::function<std::chrono::steady_clock::time_point()>;

struct Session {
  Plan plan;                    // with the retirements so far (a resumed check's, from its journal)
  CheckSpec spec;
  std::vector<RunRecord> runs;  // a resumed check's journalled runs, then this invocation's
  std::string journal_path;
  double time_budget_s = 0;     // this invocation's; ignored when the plan fixes its blocks
  std::size_t first_look = kFirstLook;
  WarmupFn after_warmup;
  // A resumed check's journal notes so far (its report says what each stretch added).
  std::vector<nlohmann::json> journal_notes;
  // How each run is measured (run/check.h): empty, by the spec's backend, as the
  // product always is; a test's fake measurer runs the loop without a host.
  MeasurerFactory measurer;
  // What the pace, the budget and the notes' seconds are read from: empty, the steady
  // clock; a test's fake clock makes the budget's stops exact.
  SessionClock clock;
};

struct SessionOutcome {
  bool interrupted = false;
  std::string failure;          // the run that failed and how ("" when none did)
  bool budget_spent = false;    // stopped at a look because the time budget ran out
  double seconds_per_block = 0; // this invocation's pace (0 before a whole block)
  std::size_t runs_planned = 0; // runs up to the schedule's last look
  std::size_t looks = 0;        // looks this invocation took
  // Why the sweep ended (record/journal_notes.h). A check that stopped for its budget
  // or as futile can be continued with --resume (one stopped at its cap goes on only
  // with a raised cap).
  StopReason stopped = StopReason::decided;
  std::size_t measured_blocks = 0;  // measured blocks with a run, over the whole check
  std::size_t runs_saved = 0;   // trials left out of the blocks run, retired configurations'
  double time_budget_s = 0;     // the budget this invocation kept (0: none)
  nlohmann::json end_note;      // the end note appended (null after a failure)
};

// Whether a sweep that stopped for `stopped` (SessionOutcome::stopped; the end note's
// "sweep"."stopped") can be continued by --resume with more blocks.
bool continuable_stop(StopReason stopped);
// The measured blocks with at least one run in `runs`.
std::size_t measured_blocks_run(const std::vector<RunRecord>& runs);

// Runs the session to its end, appending to `journal` a "look" note after each look
// (its blocks, the seconds so far, the metrics decided), a "retire" note when a look
// retires configurations (plan/ retire_note), and the end note ("finished" or
// "interrupted", with the looks, pace, seconds, why it stopped, the measured blocks and
// the runs saved) after the last look. Looks a resumed check's journal already covers
// are not taken again. With a time budget, every look (the first too, at the warm-up's
// pace) is shortened to the blocks the rest of the budget allows, so the budget is
// overrun by at most about one block and one analysis.
// The journal reaches the disk while the last look is analysed.
SessionOutcome run_session(Session& s, JournalWriter& journal, const LookFn& look,
                           const SessionProgressFn& progress = {});

}  // namespace obscheck
