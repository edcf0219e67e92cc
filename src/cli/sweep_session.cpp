#include "cli/sweep_session.h"

#include <fmt/core.h>

#include <algorithm>
#include <optional>

#include "cli/commands.h"
#include "job/resume_options.h"
#include "cli/request_from.h"
#include "job/journal_job.h"
#include "record/journal.h"
#include "util/error.h"

namespace obscheck {
namespace {

// Runs what the job has left after `recorded` (journalling each run when a journal is
// open), with "run k/n" on a terminal, then reports.
int run_and_finish(const Options& o, SweepJob& job, std::vector<RunRecord> recorded, JournalWriter* journal,
                   const SweepFinish& finish) {
  ContextSweepProgress progress;
  if (o.progress && !o.json && !o.csv)
    progress = [](std::size_t done, std::size_t total) { fmt::print(stderr, "\r  run {}/{}", done, total); };
  SweepRunsDone done = run_sweep_job(job, std::move(recorded), journal, progress);
  if (progress && job.plan) fmt::print(stderr, "\r\x1b[K");
  return finish(o, sweep_report(job.brief, done.runs, done.interrupted), job.brief, done.interrupted, true);
}

// The sweep the journal recorded, built again from its command line with the seed it
// drew. The words come from the file: what they say wrong is the journal's fault (an
// edited or foreign journal, exit 6), not this command line's.
SweepJob recorded_job(const SweepBrief& recorded, const std::string& command,
                      const std::function<SweepJob(const Options&)>& build) {
  const auto bad = [](const std::string& why) {
    return Error(ErrorKind::io, "the journal's recorded command line cannot be run again: " + why,
                 "the journal was edited, or written by another version; start a new sweep");
  };
  if (recorded.arguments.empty() || recorded.arguments.front() != command)
    throw bad("it is not a " + command + " command line");
  try {
    std::vector<const char*> argv = {"obscheck"};
    for (const std::string& w : recorded.arguments) argv.push_back(w.c_str());
    Options stored = parse_command_line(static_cast<int>(argv.size()), argv.data()).options;
    stored.seed = recorded.header.seed;
    stored.seed_given = true;
    stored.journal.clear();
    return build(stored);
  } catch (const Error& e) {
    if (e.kind() != ErrorKind::usage) throw;
    throw bad(e.what());
  }
}

int resume_sweep(const Options& o, JobKind kind, const std::function<SweepJob(const Options&)>& build,
                 const SweepFinish& finish) {
  const std::string command(to_string(kind));
  if (!manifest_to_resume(o.resume, kind).is_null()) refuse_sweep_options(o.given, !o.target.empty(), command);
  ResumedSweep r = open_sweep_journal(o.resume);
  const JournalData& d = r.journal.data;
  if (r.complete) return report_complete_journal(o, d);
  SweepJob job = recorded_job(r.recorded, command, build);
  refuse_changed_sweep(d, r.recorded, job);
  // The report is the journal's: its header (the binaries' paths, the notes) as recorded.
  job.brief = r.recorded;
  if (d.torn_tail) fmt::print(stderr, "obscheck: {}\n", kTornTailNotice);
  fmt::print(stderr, "obscheck: resuming {} after {} of {} runs\n", o.resume, d.runs.size(),
             job.plan->block_size() * static_cast<std::size_t>(job.spec.runs));
  return run_and_finish(o, job, d.runs, &r.journal.writer, finish);
}

}  // namespace

SweepJob sweep_job(const Options& o, JobKind kind, const SweepVariants& variants) {
  const SweepRequest request = sweep_request_from(o);
  SweepSetup setup = prepare_sweep(request);
  std::vector<VariantSpec> v = variants(request);
  return make_sweep_job(std::move(setup), std::move(v), kind, {1 - o.confidence, o.margin, o.aa, o.allow_multiplex, o.fail_on, o.command_line});
}

int run_sweep_command(const Options& o, JobKind kind, const std::function<SweepJob(const Options&)>& build,
                      const SweepFinish& finish) {
  if (!o.resume.empty()) return resume_sweep(o, kind, build, finish);
  SweepJob job = build(o);
  std::optional<JournalWriter> journal = create_sweep_journal(job, o.journal);
  if (!o.journal.empty() && !job.plan)
    fmt::print(stderr, "obscheck: no context could be prepared, so there is nothing to run or journal ({} not written)\n",
               o.journal);
  return run_and_finish(o, job, {}, journal ? &*journal : nullptr, finish);
}

int report_sweep(const Options& o, const JournalData& d) {
  const SweepBrief brief = journal_brief(d);
  const bool ended = ends_finished(d.notes);
  const SweepReport report = sweep_report(brief, d.runs, !ended);
  return job_kind_from(brief.header.command) == JobKind::bias ? finish_bias(o, report, brief, !ended, false)
                                                              : finish_compare(o, report, brief, !ended, false);
}

int resume_sweep_journal(const Options& o, JobKind kind) {
  Options sweep = o;
  sweep.command = kind == JobKind::bias ? Command::bias : Command::compare;
  return sweep.command == Command::bias ? cmd_bias(sweep) : cmd_compare(sweep);
}

}  // namespace obscheck
