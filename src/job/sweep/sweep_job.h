// job/: one sweep of `obscheck bias` or `obscheck compare`, live or from its journal
// (the commands, cli/cmd_bias.cpp and cli/cmd_compare.cpp, build the setup from their
// options and print the report; cli/sweep_session.cpp wires them to this).
//
// A sweep is planned through plan/ (run/contexts.h sweep_plan: one configuration per
// context and variant), and with --journal FILE every run is recorded as it ends, in
// the check's journal format: the manifest names the command and carries the sweep's
// brief (below), each run line its context, variant, argv, binary and first line.
// Ctrl-C leaves the journal valid (exit 130); --resume FILE runs what is missing, each
// planned run once; obscheck report FILE prints the report again from the file alone.
// The live report and the journal's are made by the same functions from the same
// records (each run goes through its journal line, kept or not), so they are the same
// bytes.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "events/event.h"
#include "host/host_info.h"
#include "job/sweep/sweep_request.h"
#include "observe/sim.h"
#include "record/journal.h"
#include "record/journal_notes.h"
#include "record/run_record.h"
#include "report/bias_report.h"
#include "report/sweep_brief.h"  // SweepBrief, the manifest's sweep part
#include "report/sweep_html.h"
#include "run/backend.h"
#include "run/contexts.h"
#include "run/link_order.h"

namespace obscheck {

class JournalWriter;
struct JournalData;

// The driver-side set-up bias and compare share (job/sweep/sweep_setup.h prepare_sweep
// builds it from the sweep's request).
struct SweepSetup {
  std::optional<TempDir> link_dir;        // owns the linked binaries while they run
  std::vector<LinkVariant> links;
  std::vector<ContextSpec> contexts;      // ids 0..n-1 after sampling
  EventSet events;
  std::string metric;
  std::uint64_t seed = 0;
  int runs = kDefaultContextRuns;
  int warmup = 1;
  // Where the counts come from (run/backend.h). Under simulation the runs count
  // sim_events and `events` stays empty. backend_notes: what the report says about it.
  std::shared_ptr<const Backend> backend;
  std::vector<SimEvent> sim_events;
  RunMeasurer measurer;                   // the backend's (Backend::run_measurer)
  std::vector<std::string> backend_notes;
};

// What one command runs: the request it was made from (the manifest records it), the
// setup (it owns the linked binaries), the runner's spec, its plan and the brief.
struct SweepJob {
  SweepRequest request;
  SweepSetup setup;
  SweepSpec spec;
  std::optional<Plan> plan;  // sweep_plan(spec); none when no context could be prepared
  SweepBrief brief;
};

// The `kind` (bias or compare) job of `variants` in `setup`'s contexts, as `request`
// asks (its confidence, margin, A/A, --allow-multiplex and --fail-on): the runner's
// spec, its plan (none when no context could be prepared), the report's header and the
// metrics analysed (the chosen one first).
SweepJob make_sweep_job(SweepSetup setup, std::vector<VariantSpec> variants, JobKind kind, const SweepRequest& request);

// A run as the journal records it, and back as the report reads it.
RunRecord journal_record_of(const Plan& plan, const Trial& trial, const SweepRun& run);
SweepRunRecord report_record_of(const RunRecord& r);

// The report's records of `runs` under the brief's header, the interruption said as
// the report says it.
SweepReport sweep_report(const SweepBrief& brief, const std::vector<RunRecord>& runs, bool interrupted);

// The journal's first line for a new sweep of `job` (its plan must be set).
nlohmann::json sweep_manifest(const SweepJob& job);
// A new journal at `path` for `job` (its manifest written); none when `path` is empty
// or no context could be prepared (the job has no plan: nothing to run or journal).
// Throws Error(io) as JournalWriter::create.
std::optional<JournalWriter> create_sweep_journal(const SweepJob& job, const std::string& path);

// Runs what the job has left after `recorded` (its runs so far), journalling each run
// when `journal` is given, then the end note; `progress` hears of each run as (runs
// done, runs in all), the recorded ones included. Returns every run, and whether
// Ctrl-C cut the sweep short.
struct SweepRunsDone {
  std::vector<RunRecord> runs;
  bool interrupted = false;
};
SweepRunsDone run_sweep_job(SweepJob& job, std::vector<RunRecord> recorded, JournalWriter* journal,
                            const ContextSweepProgress& progress);

// A resumed sweep runs the journal's programs in the journal's contexts with the
// journal's plan: `job` is the journal's sweep built again from its recorded request,
// `recorded` the journal's brief. Throws Error(usage) naming the first
// difference (the environment, a binary, a context, the plan), before a run.
void refuse_changed_sweep(const JournalData& d, const SweepBrief& recorded, const SweepJob& job);

// The sweep recorded at `path`, opened for appending (its writer lock held) with the
// brief its manifest records, or `complete` when its journal ends "finished". Throws
// as load_journal, and Error(io) for a manifest without a sweep.
struct ResumedSweep {
  ResumedJournal journal;
  bool complete = false;
  SweepBrief recorded;  // unset when complete
};
ResumedSweep open_sweep_journal(const std::string& path);

// A sweep's --resume FILE (`kind`: bias or compare). The command line's own options are
// refused first where they would change the sweep (`given`, `program_given`:
// job/journal/resume_options.h). Unless the journal is complete, the job is the journal's sweep
// made again (sweep_job_for) from the typed request its manifest records and the seed
// it drew, refused where it would run other programs or contexts
// (refuse_changed_sweep), reporting under the journal's brief. A journal written
// before the manifest recorded the request holds its command line instead: `legacy`
// reads those words (after "obscheck", the command first) into the request, the one
// place a command line is parsed again. Error(io) when the request is malformed or
// asks what no command line could, or the recorded words are not this command's or
// `legacy` refuses them with Error(usage): the journal was edited.
using SweepRebuild = std::function<SweepRequest(const std::vector<std::string>& arguments)>;
struct SweepToResume {
  ResumedSweep opened;
  std::optional<SweepJob> job;  // unset when the journal is complete
};
SweepToResume resume_sweep_job(const std::string& path, JobKind kind, const std::vector<std::string>& given,
                               bool program_given, const SweepRebuild& legacy);

// What a sweep's page says of its host: `recorded` (the journal's), or this one when
// unset (a live sweep), with doctor's findings on it.
SweepPageContext sweep_page_context(const std::optional<HostInfo>& recorded);

// The brief of a sweep's journal, with the manifest's host when this obscheck can read
// it. Throws Error(io) for a manifest without a sweep.
SweepBrief journal_brief(const JournalData& d);

}  // namespace obscheck
