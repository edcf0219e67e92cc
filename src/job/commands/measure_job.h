// job/: measure's lifecycle between its command line and its report (the command,
// cli/cmd_measure.cpp, parses, prints and picks the exit code around it). The request
// gets measure's own defaults; one configuration is planned and repeated, each run
// journalled as it ends when a journal is given; a resume rebuilds the setup from its
// journal after checking that the binary and the environment are the ones it began
// with; and what the runs say comes from one function, live or from the file, so
// obscheck report FILE prints what measure printed.
#pragma once

#include <memory>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "analysis/measure.h"
#include "plan/plan.h"
#include "record/journal.h"
#include "job/check/check_setup.h"
#include "record/request.h"
#include "run/backend.h"
#include "run/measure.h"

namespace obscheck {

// Everything the runs and the report need, resolved once from the request.
struct MeasureSetup {
  CheckRequest request;
  std::shared_ptr<const Backend> backend;    // chosen once for the job (job/common/job_backend.h)
  MeasureSpec spec;
  std::vector<std::string> sim_event_names;  // the simulated events, as the readings name them
  std::vector<std::string> backend_notes;  // what the report says about the backend
  std::vector<std::string> event_notes;    // e.g. counted at user level only
  Plan plan;
};

// The request as measure runs it: its own defaults filled in (the backend's counters;
// two runs and no warm-up when it counts exactly, unless --runs or -w said otherwise;
// a fixed seed unless --seed gave one), so the journal records what ran, not what was
// left to a default. `runs_given`: the command line gave --runs.
SettledRequest measure_request(SettledRequest s, bool runs_given);

// Resolves the request on this host: the counters (all must count: Error(event)), the
// launch, the backend's measurer and notes, the plan.
MeasureSetup measure_setup(SettledRequest s);

// The journal's first line for a new measure of `m`.
nlohmann::json measure_manifest(const MeasureSetup& m);
// A new journal at `path` for the measure of `m` (its manifest written); none when
// `path` is empty, and then a captured output goes to /dev/null instead: its digest is
// for the journal alone (measure's report never reads it), and discarding it spares
// every run a pipe, a pidfd and a poll. Throws Error(io) as JournalWriter::create.
std::optional<JournalWriter> create_measure_journal(MeasureSetup& m, const std::string& path);

// The setup of a resumed measure from its journal: runs from the first one missing.
// Throws Error(usage) when the binary (sha256) or the environment differs from the
// journal's: the target's layout would move.
MeasureSetup resumed_measure_setup(const ResumedJournal& r);

// The measure recorded at `path`, opened for appending (its writer lock held) and set
// up to run from the first run missing (resumed_measure_setup), or `complete` when its
// journal ends "finished" (its report is all there is). Throws as load_journal and
// resumed_measure_setup.
struct ResumedMeasure {
  ResumedJournal journal;
  bool complete = false;
  MeasureSetup setup;  // unset when complete
};
ResumedMeasure open_measure_journal(const std::string& path);

// What a measure's runs say, ready to print.
struct MeasureOutcome {
  MeasureFindings findings;
  std::string failure;  // the run that stopped it (without --ignore-failure)
  bool ended = true;    // false: the runs stopped before the last (Ctrl-C, or a journal left so)
};

// Runs the setup's remaining runs (from spec.first_run) after `recorded`, the runs the
// journal held before, appending each to `journal` when given, and the end note.
MeasureOutcome run_measure_session(MeasureSetup& m, std::vector<RunRecord> recorded, JournalWriter* journal,
                                   const Progress& progress);

// What a measure's journal says, on any host.
MeasureOutcome journal_measure_outcome(const JournalData& d);

}  // namespace obscheck
