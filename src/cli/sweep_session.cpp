#include "cli/sweep_session.h"

#include <fmt/core.h>

#include <algorithm>
#include <optional>

#include "cli/commands.h"
#include "cli/request_from.h"
#include "job/journal/journal_job.h"
#include "job/sweep/sweep_verdicts.h"
#include "record/journal.h"
#include "report/bias_report.h"
#include "report/brief_report.h"
#include "util/error.h"

namespace obscheck {
namespace {

// The text report: the brief one on a screen, the full one with --verbose.
std::string sweep_text(const Options& o, const SweepReport& report, bool bias) {
  if (o.verbose) return bias ? bias_text(report, o.color) : compare_text(report, o.color);
  return bias ? bias_brief(report) : compare_brief(report);
}

// The report of a sweep's runs, bias's or compare's as its brief says: analyses, prints,
// returns the exit code. `interrupted`: the runs stop short (Ctrl-C, or a journal
// without its "finished" note); `live`: this invocation was interrupted, so it exits
// 130, where a report exits on its findings.
int finish_sweep(const Options& o, SweepReport report, const SweepBrief& brief, bool interrupted,
                 bool live) {
  // The journal's choice, or report FILE --allow-multiplex re-judging it.
  report.allow_multiplex = report.allow_multiplex || o.request.allow_multiplex;
  const int findings_code = judge_sweep(report, brief, interrupted, o.allow_output_diff);
  const bool bias = brief.header.command == JobKind::bias;
  emit(o, o.json  ? sweep_json(report)
          : o.csv ? sweep_csv(report)
                  : sweep_text(o, report, bias));
  write_sweep_files(files_of(o), report, brief.host);
  if (live && interrupted) return interrupted_exit_code();
  return findings_code;  // the journal's --fail-on
}

// Runs what the job has left after `recorded` (journalling each run when a journal is
// open), with "run k/n" on a terminal, then reports.
int run_and_finish(const Options& o, SweepJob& job, std::vector<RunRecord> recorded,
                   JournalWriter* journal) {
  ContextSweepProgress progress;
  if (o.progress && !o.json && !o.csv)
    progress = [](std::size_t done, std::size_t total) {
      fmt::print(stderr, "\r  run {}/{}", done, total);
    };
  SweepRunsDone done = run_sweep_job(job, std::move(recorded), journal, progress);
  if (progress && job.plan) fmt::print(stderr, "\r\x1b[K");
  const SweepReport report = sweep_report(job.brief, done.runs, done.interrupted);
  return finish_sweep(o, report, job.brief, done.interrupted, true);
}

// The request of a journal written before manifests recorded it typed: its command
// line, read as this one was (the one command line parsed a second time).
SweepRequest previous_version_request(const std::vector<std::string>& arguments) {
  std::vector<const char*> argv = {"obscheck"};
  for (const std::string& w : arguments) argv.push_back(w.c_str());
  const Parsed parsed = parse_command_line(static_cast<int>(argv.size()), argv.data());
  return sweep_request_from(parsed.options);
}

}  // namespace

int resume_sweep(const Options& o, JobKind kind) {
  SweepToResume r =
      resume_sweep_job(o.resume, kind, o.given, !o.target.empty(), previous_version_request);
  const JournalData& d = r.opened.journal.data;
  if (r.opened.complete) return report_complete_journal(o, d);
  if (d.torn_tail) fmt::print(stderr, "obscheck: {}\n", kTornTailNotice);
  fmt::print(stderr, "obscheck: resuming {} after {} of {} runs\n", o.resume, d.runs.size(),
             r.job->plan->block_size() * static_cast<std::size_t>(r.job->spec.runs));
  return run_and_finish(o, *r.job, d.runs, &r.opened.journal.writer);
}

int run_sweep_command(const Options& o, JobKind kind) {
  SweepJob job = sweep_job_for(sweep_request_from(o), kind);
  std::optional<JournalWriter> journal = create_sweep_journal(job, o.journal);
  if (!o.journal.empty() && !job.plan)
    fmt::print(stderr,
               "obscheck: no context could be prepared, so there is nothing to run or journal "
               "({} not written)\n",
               o.journal);
  return run_and_finish(o, job, {}, journal ? &*journal : nullptr);
}

int report_sweep(const Options& o, const JournalData& d) {
  const SweepBrief brief = journal_brief(d);
  const bool ended = ends_finished(d.notes);
  return finish_sweep(o, sweep_report(brief, d.runs, !ended), brief, !ended, false);
}

}  // namespace obscheck
