#include "job/sweep/sweep_job.h"

#include <fmt/core.h>
#include <sys/time.h>

#include <optional>

#include "job/journal/journal_job.h"
#include "job/journal/resume_options.h"
#include "job/sweep/sweep_setup.h"
#include "host/doctor.h"
#include "host/host_info.h"
#include "record/journal.h"
#include "record/journal_notes.h"
#include "report/sweep_brief.h"
#include "run/measure.h"
#include "util/error.h"
#include "util/timeval.h"

namespace obscheck {
namespace {

double ns(const timeval& t) { return static_cast<double>(timeval_ns(t)); }

// The record the journal holds, as it reads back: the live report is made from the
// same bytes a report of the journal reads (invalid UTF-8 in a first line replaced).
RunRecord as_journalled(const RunRecord& r) { return run_record_from_line(run_line(r)); }

// What differs between the sweep the journal recorded and the one this host would run
// now, in words; "" when none.
std::string sweep_difference(const SweepReport& recorded, const SweepReport& now) {
  if (recorded.variants.size() != now.variants.size()) return "the variants differ";
  for (std::size_t v = 0; v < now.variants.size(); ++v)
    if (recorded.variants[v].binary_sha256 != now.variants[v].binary_sha256)
      return fmt::format("{} ({}) has changed since the journal was started (sha256 differs)", now.variants[v].name,
                         now.variants[v].argv.empty() ? "" : now.variants[v].argv[0]);
  if (recorded.contexts.size() != now.contexts.size()) return "the contexts differ";
  for (std::size_t c = 0; c < now.contexts.size(); ++c) {
    const SweepContextRecord &a = recorded.contexts[c], &b = now.contexts[c];
    if (a.label != b.label) return fmt::format("context {} is '{}' here, '{}' in the journal", c, b.label, a.label);
    if (a.env_bytes != b.env_bytes)
      return fmt::format("context {}'s environment is {} bytes here, {} in the journal", a.label, b.env_bytes, a.env_bytes);
    if (a.failure.empty() != b.failure.empty())
      return fmt::format("context {} could{} be prepared here and could{} in the journal", a.label,
                         b.failure.empty() ? "" : " not", a.failure.empty() ? "" : " not");
    if (a.binary_sha256 != b.binary_sha256)
      return fmt::format("context {} links another binary than the journal's (sha256 differs)", a.label);
  }
  return "";
}


// The report's header: the sweep's seed, runs, events, metric, notes, variants and
// contexts (each context's environment size as the first variant runs in it).
SweepReport sweep_header(const SweepSetup& setup, const SweepSpec& spec, JobKind kind, const SweepRequest& ask) {
  SweepReport h;
  h.command = kind;
  h.seed = setup.seed;
  h.runs_per_context = spec.runs;
  h.warmup = spec.warmup;
  h.metric = setup.metric;
  h.pad_name = kPadName;
  for (const auto& e : setup.events.events) h.events += (h.events.empty() ? "" : ",") + e.spec;
  for (const auto& e : setup.sim_events) h.events += (h.events.empty() ? "" : ",") + e.name;
  h.notes = setup.backend_notes;
  for (const VariantSpec& v : spec.variants) h.variants.push_back({v.name, v.launch.argv, v.sha256});
  for (const ContextSpec& c : spec.contexts) {
    SweepContextRecord cr;
    cr.id = c.id;
    cr.label = c.label;
    cr.env_pad = c.env_pad;
    cr.env_bytes = context_launch(spec.variants.at(0), c).env.size_bytes();
    cr.argv0_pad = c.argv0_pad;
    cr.link_order = c.link_order;
    cr.objects = c.objects;
    cr.binary = c.binary;
    cr.binary_sha256 = c.binary_sha256;
    cr.failure = c.failure;
    h.contexts.push_back(std::move(cr));
  }
  h.alpha = 1 - ask.confidence;
  h.allow_multiplex = ask.check.allow_multiplex;
  if (kind == JobKind::compare) h.margin = ask.check.margin;
  return h;
}

// The metrics analysed: the chosen one first, then every other counter; wall time too
// when the backend times the program.
std::vector<std::string> sweep_metrics(const SweepSetup& setup) {
  std::vector<std::string> metrics = {setup.metric};
  for (const auto& e : setup.events.events)
    if (e.name != setup.metric) metrics.push_back(e.name);
  // Under --backend sim every simulated counter asked for is analysed too; wall time
  // is then the simulator's, not the program's, and is left out.
  for (const auto& e : setup.sim_events)
    if (e.name != setup.metric) metrics.push_back(e.name);
  if (setup.metric != "wall-time" && setup.backend->times_the_program()) metrics.push_back("wall-time");
  return metrics;
}

}  // namespace

SweepJob make_sweep_job(SweepSetup setup, std::vector<VariantSpec> variants, JobKind kind, const SweepRequest& ask) {
  SweepJob job;
  job.request = ask;
  job.setup = std::move(setup);
  SweepSpec& spec = job.spec;
  spec.variants = std::move(variants);
  spec.contexts = job.setup.contexts;
  spec.events = job.setup.events;
  spec.runs = job.setup.runs;
  spec.warmup = job.setup.warmup;
  spec.measurer = job.setup.measurer;
  spec.seed = job.setup.seed;
  for (const ContextSpec& c : spec.contexts)
    if (c.failure.empty()) {
      job.plan = sweep_plan(spec, kind == JobKind::bias ? PlanKind::bias : PlanKind::compare);
      break;
    }
  job.brief.header = sweep_header(job.setup, spec, kind, ask);
  job.brief.metrics = sweep_metrics(job.setup);
  job.brief.margin = ask.check.margin;
  job.brief.aa = ask.aa;
  job.brief.fail_on = ask.fail_on;
  return job;
}

RunRecord journal_record_of(const Plan& plan, const Trial& trial, const SweepRun& run) {
  RunRecord r = run_record_for(plan, trial);
  r.env_bytes = run.env_bytes;
  r.exit = run.exit;
  r.readings = run.readings;
  r.extra = sweep_run_extra({run.context, run.variant, run.argv, run.binary, run.binary_sha256, run.first_line});
  r.stack_address = run.stack_address;
  r.failure = run.failure;
  return r;
}

SweepRunRecord report_record_of(const RunRecord& r) {
  const SweepRunPart part = sweep_run_part(r.extra, fmt::format("run {}", r.index));
  SweepRunRecord rr;
  rr.seq = r.index;
  rr.round = r.block;
  rr.context = part.context;
  rr.variant = part.variant;
  rr.env_bytes = r.env_bytes;
  rr.argv = part.argv;
  rr.binary = part.binary;
  rr.binary_sha256 = part.binary_sha256;
  rr.failure = r.failure;
  rr.ok = rr.failure.empty();
  rr.status = rr.ok ? describe_exit(r.exit, 0) : rr.failure;
  rr.wall_ns = r.exit.wall_ns;
  for (const Reading& rd : r.readings) {
    rr.metrics.emplace_back(rd.name, rd.value);
    rr.multiplexed = rr.multiplexed || rd.multiplexed;
    rr.running.emplace_back(rd.name, rd.running_fraction());
  }
  rr.metrics.emplace_back("wall-time", static_cast<double>(r.exit.wall_ns));
  rr.metrics.emplace_back("user-time", ns(r.exit.usage.ru_utime));
  rr.output_digest = r.exit.output_digest;
  rr.first_line = part.first_line;
  rr.stack_address = r.stack_address;
  return rr;
}

SweepReport sweep_report(const SweepBrief& brief, const std::vector<RunRecord>& runs, bool interrupted) {
  SweepReport report = brief.header;
  for (const RunRecord& r : runs) report.runs.push_back(report_record_of(r));
  if (interrupted)
    report.notes.push_back(fmt::format("interrupted after {} runs: the analysis covers what finished", runs.size()));
  return report;
}

nlohmann::json sweep_manifest(const SweepJob& job) {
  const VariantSpec& first = job.spec.variants.at(0);
  nlohmann::json options = sweep_request_json(job.request);
  put_options_backend(options, to_string(job.setup.backend->kind()));
  nlohmann::json manifest = job_manifest(job.brief.header.command, read_host(), options,
                                         first.launch, first.sha256, job.plan.value());
  put_sweep_part(manifest, brief_to_json(job.brief));
  return manifest;
}

SweepRunsDone run_sweep_job(SweepJob& job, std::vector<RunRecord> recorded, JournalWriter* journal,
                            const ContextSweepProgress& progress) {
  SweepRunsDone done;
  if (job.plan) {
    const Plan& plan = *job.plan;
    const std::vector<Trial> todo =
        remaining_trials(plan, recorded, journal ? journal->path() : std::string(), *plan.spec.fixed_blocks);
    ContextSweepProgress overall;
    if (progress) {
      const std::size_t before = recorded.size(), total = before + todo.size();
      overall = [&progress, before, total](std::size_t ran, std::size_t) { progress(before + ran, total); };
    }
    const ContextSweepResult result =
        run_context_sweep(job.spec, plan, todo, overall, [&](const Trial& trial, const SweepRun& run) {
          RunRecord r = as_journalled(journal_record_of(plan, trial, run));
          if (journal) journal->append(r);
          recorded.push_back(std::move(r));
        });
    done.interrupted = result.interrupted;
    if (journal) journal->append_note(end_note(done.interrupted));
  }
  done.runs = std::move(recorded);
  return done;
}

void refuse_changed_sweep(const JournalData& d, const SweepBrief& recorded, const SweepJob& job) {
  refuse_changed_environment(d.manifest, job.spec.variants.at(0).launch.env, "sweep");
  if (const std::string why = sweep_difference(recorded.header, job.brief.header); !why.empty())
    throw Error(ErrorKind::usage, why, "a resumed sweep must run the same programs in the same contexts; start a new one");
  if (!job.plan || !(plan_from_journal(d).spec == job.plan->spec))
    throw Error(ErrorKind::usage, "the sweep's plan differs from the journal's", "start a new sweep");
}

std::optional<JournalWriter> create_sweep_journal(const SweepJob& job, const std::string& path) {
  if (path.empty() || !job.plan) return std::nullopt;
  return JournalWriter::create(path, sweep_manifest(job));
}

ResumedSweep open_sweep_journal(const std::string& path) {
  ResumedSweep r{JournalWriter::open_for_resume(path), false, {}};
  r.complete = ends_finished(r.journal.data.notes);
  if (!r.complete) r.recorded = brief_from_json(manifest_sweep_part(r.journal.data.manifest, r.journal.data.path));
  return r;
}

namespace {

// The sweep the journal recorded, made again from its request with the seed it drew:
// the request typed in its manifest's "options", or in a journal written before that,
// its command line read by `legacy`. The values come from the file: what they say wrong
// is the journal's fault (an edited or foreign journal, exit 6), not this command line's.
SweepJob recorded_sweep_job(const nlohmann::json& manifest, const SweepBrief& recorded, JobKind kind,
                              const SweepRebuild& legacy) {
  const std::string command(to_string(kind));
  const bool typed = recorded.arguments.empty();
  const auto bad = [typed](const std::string& why) {
    return Error(ErrorKind::io,
                 std::string("the journal's recorded ") + (typed ? "request" : "command line") +
                     " cannot be run again: " + why,
                 "the journal was edited, or written by another version; start a new sweep");
  };
  if (!typed && recorded.arguments.front() != command) throw bad("it is not a " + command + " command line");
  SweepRequest r;
  try {
    r = typed ? sweep_request_from_json(manifest_options(manifest), kind) : legacy(recorded.arguments);
  } catch (const nlohmann::json::exception& e) {
    throw bad(e.what());
  } catch (const Error& e) {
    if (e.kind() != ErrorKind::usage && e.kind() != ErrorKind::io) throw;
    throw bad(e.what());
  }
  r.check.seed = recorded.header.seed;  // the seed it drew
  r.check.seed_given = true;
  try {
    return sweep_job_for(r, kind);
  } catch (const Error& e) {
    if (e.kind() != ErrorKind::usage) throw;
    throw bad(e.what());
  }
}

}  // namespace

SweepToResume resume_sweep_job(const std::string& path, JobKind kind, const std::vector<std::string>& given,
                               bool program_given, const SweepRebuild& legacy) {
  const std::string command(to_string(kind));
  if (!manifest_to_resume(path, kind).is_null()) refuse_sweep_options(given, program_given, command);
  SweepToResume r{open_sweep_journal(path), std::nullopt};
  if (r.opened.complete) return r;
  const JournalData& d = r.opened.journal.data;
  r.job = recorded_sweep_job(d.manifest, r.opened.recorded, kind, legacy);
  refuse_changed_sweep(d, r.opened.recorded, *r.job);
  r.job->brief = r.opened.recorded;  // the report is the journal's: its header, its notes
  return r;
}

SweepPageContext sweep_page_context(const std::optional<HostInfo>& recorded) {
  SweepPageContext ctx;
  const HostInfo host = recorded ? *recorded : read_host();
  ctx.host = host;
  for (const Finding& f : doctor_checks(host)) ctx.doctor.push_back(f);
  return ctx;
}

SweepBrief journal_brief(const JournalData& d) {
  const nlohmann::json& part = manifest_sweep_part(d.manifest, d.path);
  SweepBrief brief;
  try {
    brief = brief_from_json(part);
  } catch (const Error& e) {
    throw Error(ErrorKind::io, fmt::format("journal {} line 1: {}", d.path, e.what()), e.hint());
  }
  try {
    brief.host = manifest_host_info(d.manifest);
  } catch (const Error&) {
    // A host this obscheck cannot read: the page describes this one instead.
  }
  return brief;
}

}  // namespace obscheck
