// job/: what a check report says besides the findings (report/check_report.h
// CheckContext): for a check just run, from its session; for `obscheck report`, from
// the journal's manifest and notes alone.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "analysis/check.h"
#include "plan/plan.h"
#include "record/journal_reader.h"
#include "record/run_record.h"
#include "report/check_report.h"
#include "run/backend.h"
#include "run/session.h"

namespace obscheck {

// What the observer itself recorded, per level, for the report: probe hit counts
// (exact counts: the same in every run, or their range), samples taken and lost, a
// profiler command's own wall and CPU time, the samples it reported and its achieved
// rate (never at level 0, where no profiler runs), and the kernel's sampling limit
// after each run.
std::vector<Observation> observations(const Plan& plan, const std::vector<RunRecord>& runs);

// Under a profiler command, "" or a warning when some runs' wall time is the whole
// command's rather than the target's: a journal written before the target's own was
// taken (its runs' ProfilerCost has profiler_ns but no command_wall_ns), or runs whose
// target's exit could not be watched (ProfilerCost::wall_of_command).
std::string command_wall_warning(const Plan& plan, const std::vector<RunRecord>& runs);

// The context of a check this invocation ran (new or resumed) to `out`; backend_notes:
// what the report says about its backend (run/backend.h Backend::notes).
CheckContext session_context(const Session& s, const SessionOutcome& out, const nlohmann::json& host,
                             std::vector<std::string> warnings, std::vector<std::string> backend_notes);

// The context of a journal's check from its manifest and notes (runs_done, the
// observations and the warnings about runs are the caller's, who read the runs);
// `backend`: the one the journal's request records (what the report says about it).
CheckContext manifest_context(const JournalData& d, const Plan& plan, const Backend& backend);

// The report's "sweep" lines (CheckContext::sweep) from a check's journal notes (its
// end notes and the plan's retirements): "22 blocks, stopped by the time budget
// (60 s); then +15 blocks, decided"; "stopped running once settled: ID, ID from block
// 14 (84 runs saved)". End notes older than the "stopped" field are left out.
std::vector<std::string> sweep_lines(const std::vector<nlohmann::json>& notes, const Plan& plan, std::size_t runs_saved);

// The looks the last invocation of the sweep took, from its end note (1 when none says).
std::size_t looks_of(const JournalData& d);

// What a check that stopped before every verdict was decided says: how to continue it
// (its cap of `max_blocks` reached with a verdict inconclusive; its time budget spent,
// or the rest of it futile, with a primary verdict undecided). Empty otherwise. The live
// check and every later report of its journal give the same lines.
std::vector<std::string> continue_warnings(StopReason stopped, double time_budget_s, std::size_t max_blocks,
                                           const std::string& journal, const Findings& f);

// continue_warnings for a journal's check, from its last end note ("sweep": "stopped",
// "time_budget"); none when the journal has no such note.
std::vector<std::string> journal_continue_warnings(const std::vector<nlohmann::json>& notes, const Plan& plan,
                                                   const std::string& journal, const Findings& f);

}  // namespace obscheck
