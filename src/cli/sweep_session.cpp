#include "cli/sweep_session.h"

#include <fmt/core.h>

#include <algorithm>
#include <optional>

#include "cli/commands.h"
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

// The sweep the journal recorded, its command line parsed again as this one was.
SweepJob recorded_job(const std::vector<std::string>& arguments, std::uint64_t seed,
                      const std::function<SweepJob(const Options&)>& build) {
  std::vector<const char*> argv = {"obscheck"};
  for (const std::string& w : arguments) argv.push_back(w.c_str());
  Options stored = parse_command_line(static_cast<int>(argv.size()), argv.data()).options;
  stored.request.seed = seed;
  stored.request.seed_given = true;
  stored.journal.clear();
  return build(stored);
}

int resume_sweep(const Options& o, JobKind kind, const std::function<SweepJob(const Options&)>& build,
                 const SweepFinish& finish) {
  SweepToResume r = resume_sweep_job(o.resume, kind, o.given, !o.target.empty(),
                                     [&](const std::vector<std::string>& arguments, std::uint64_t seed) {
                                       return recorded_job(arguments, seed, build);
                                     });
  const JournalData& d = r.opened.journal.data;
  if (r.opened.complete) return report_complete_journal(o, d);
  if (d.torn_tail) fmt::print(stderr, "obscheck: {}\n", kTornTailNotice);
  fmt::print(stderr, "obscheck: resuming {} after {} of {} runs\n", o.resume, d.runs.size(),
             r.job->plan->block_size() * static_cast<std::size_t>(r.job->spec.runs));
  return run_and_finish(o, *r.job, d.runs, &r.opened.journal.writer, finish);
}

}  // namespace

SweepJob sweep_job(const Options& o, JobKind kind, const SweepVariants& variants) {
  const SweepRequest request = sweep_request_from(o);
  SweepSetup setup = prepare_sweep(request);
  std::vector<VariantSpec> v = variants(request);
  return make_sweep_job(std::move(setup), std::move(v), kind, {1 - o.confidence, o.request.margin, o.aa, o.request.allow_multiplex, o.fail_on, o.command_line});
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

}  // namespace obscheck
