#include "job/commands/measure_job.h"

#include <fmt/core.h>

#include <algorithm>
#include <map>
#include <span>
#include <memory>

#include "job/check/check_setup.h"
#include "job/journal/journal_job.h"
#include "host/host_info.h"
#include "record/journal.h"
#include "record/journal_notes.h"
#include "record/run_table.h"
#include "job/common/job_backend.h"
#include "run/backend.h"
#include "run/check.h"
#include "run/measure.h"
#include "util/digest.h"
#include "util/error.h"

namespace obscheck {
namespace {

// The bootstrap's seed is fixed per invocation so the same data give the same CI.
constexpr std::uint64_t kMeasureSeed = 0x6f6273636865636bULL;

// One configuration repeated: block b is run b, warm-ups first.
Plan measure_plan(const CheckRequest& r) {
  PlanSpec s;
  s.kind = PlanKind::measure;  // a journal of measure, not of a check
  s.counters = r.counters.items();
  Level level;
  level.dose = static_cast<int>(s.counters.size());
  level.label = r.counters.text();
  for (std::size_t i = 0; i < s.counters.size(); ++i) level.programmed.push_back(i);
  s.levels = {level};
  s.layouts = {Layout::held};
  s.seed = r.seed;
  s.fixed_blocks = static_cast<std::size_t>(r.runs);
  s.warmup_blocks = static_cast<std::size_t>(r.warmup);
  s.aa_control = false;
  return make_plan(s);
}

// With --ignore-failure the runs that failed are kept in the summary, as hyperfine -i
// keeps them; the report says how many and how each ended, so a truncated run (a killed
// program counts less) is never mixed in unsaid. "" when every measured run succeeded.
std::string kept_failures_note(std::span<const RunRecord> measured, double timeout_s) {
  std::map<std::string, std::size_t> how;  // describe_exit's words -> runs
  std::size_t failed = 0;
  for (const RunRecord& r : measured)
    if (!r.exit.ok()) ++failed, ++how[describe_exit(r.exit, timeout_s)];
  if (failed == 0) return "";
  std::string ways;
  for (const auto& [words, n] : how) ways += fmt::format("{}{} ({})", ways.empty() ? "" : ", ", words, n);
  return fmt::format("{} of {} measured runs failed and are in the summary (--ignore-failure): the target {}", failed,
                     measured.size(), ways);
}

// What a measure's runs say, live or from its journal: the one function both reports
// go through, so obscheck report FILE prints what measure printed.
MeasureOutcome measure_outcome(const CheckRequest& r, const Backend& backend, const std::vector<std::string>& backend_notes,
                               const std::vector<std::string>& event_notes, const std::vector<std::string>& sim_events,
                               std::size_t env_bytes, const std::vector<RunRecord>& runs, bool ended) {
  MeasureOutcome out;
  out.ended = ended;
  MeasureFindings& f = out.findings;
  f.argv = r.launch.argv;
  f.warmups = std::min<std::size_t>(static_cast<std::size_t>(r.warmup), runs.size());
  f.runs = runs.size() - f.warmups;
  f.env_bytes = env_bytes;
  f.aslr = r.launch.aslr;
  f.cpu = r.launch.cpu;
  std::vector<MetricSeries> series = measure_series(runs);
  // The backend's lines first, then what the runs say, then the events' notes.
  f.notes = backend_notes;
  if (!backend.times_the_program())
    for (std::string& n : keep_simulated(series, sim_events)) f.notes.push_back(std::move(n));
  f.metrics = summarize_metrics(std::move(series), r.seed);
  if (!runs.empty() && !runs.back().exit.ok() && !r.ignore_failure)
    out.failure = measure_failure(runs.back().exit, static_cast<int>(runs.back().index), r.warmup, r.warmup + r.runs,
                                  r.launch.timeout_s);
  if (r.ignore_failure) {
    const std::span<const RunRecord> measured = std::span(runs).subspan(f.warmups);
    if (std::string kept = kept_failures_note(measured, r.launch.timeout_s); !kept.empty()) f.notes.push_back(kept);
  }
  // What the runs left running was killed after each: said, as the check says it.
  if (std::string left = left_behind_warning(runs); !left.empty()) f.notes.push_back(std::move(left));
  if (!ended && out.failure.empty())
    f.notes.push_back(fmt::format("interrupted: {} of {} measured runs done", f.runs, r.runs));
  if (!out.failure.empty()) f.notes.push_back(out.failure);
  for (const std::string& n : event_notes) f.notes.push_back(n);
  return out;
}

RunRecord record_of(const Plan& plan, const MeasuredRun& run, std::size_t env_bytes) {
  RunRecord r = run_record_for(plan, trial_at(plan, static_cast<std::size_t>(run.index)));
  r.env_bytes = env_bytes;
  r.exit = run.exit;
  r.readings = run.readings;
  r.left_behind = run.left_behind;  // as a check's run line marks it
  return r;
}

// The manifest's measure-only part: the notes the report prints (they depend on the
// host that measured) and the simulated events' names.
MeasurePart measure_part(const MeasureSetup& m) { return {m.backend_notes, m.event_notes, m.sim_event_names}; }

}  // namespace

SettledRequest measure_request(SettledRequest s, bool runs_given) {
  CheckRequest& r = s.request;
  const std::shared_ptr<const Backend>& backend = s.backend;
  if (r.counters.empty()) r.counters = backend->default_counters(CounterUse::measure);
  const BlockPolicy policy = backend->block_policy();
  if (policy.blocks && !runs_given) r.runs = static_cast<int>(*policy.blocks);
  if (!policy.warmup && !r.warmup_given) r.warmup = 0;
  if (!r.seed_given) r.seed = kMeasureSeed;
  r.seed_given = true;
  return s;
}

MeasureSetup measure_setup(SettledRequest s) {
  CheckRequest& r = s.request;
  MeasureSetup m;
  m.backend = s.backend;
  const std::shared_ptr<const Backend>& backend = m.backend;
  const ResolvedCounters c = backend->resolve_all(r.counters);
  m.spec = MeasureSpec{launch_spec_for(r.launch), c.events, r.runs, r.warmup, r.ignore_failure};
  m.backend_notes = backend->notes(c.names());
  for (const SimEvent& e : c.simulated) m.sim_event_names.push_back(e.name);
  m.spec.measurer = backend->run_measurer(c);
  m.event_notes = m.spec.events.notes;
  m.plan = measure_plan(r);
  m.request = std::move(r);
  return m;
}

nlohmann::json measure_manifest(const MeasureSetup& m) {
  nlohmann::json manifest = job_manifest(JobKind::measure, read_host(), request_to_json(m.request), m.spec.launch,
                                         sha256_file(m.spec.launch.path), m.plan);
  put_measure_part(manifest, measure_part(m));
  return manifest;
}

MeasureSetup resumed_measure_setup(const ResumedJournal& r) {
  const nlohmann::json& manifest = r.data.manifest;
  MeasureSetup m = measure_setup(settled_as_recorded(request_from_manifest(manifest)));
  refuse_changed_binary(manifest, m.spec.launch.path, "measure");
  refuse_changed_environment(manifest, m.spec.launch.env, "measure");
  // The report's notes are the ones the measure began with.
  MeasurePart part = measure_part_of(manifest);
  m.backend_notes = std::move(part.backend_notes);
  m.event_notes = std::move(part.event_notes);
  const std::vector<Trial> left = remaining_trials(m.plan, r.data, m.plan.spec.warmup_blocks + *m.plan.spec.fixed_blocks);
  m.spec.first_run = left.empty() ? m.spec.warmup + m.spec.runs : static_cast<int>(left.front().index);
  return m;
}

std::optional<JournalWriter> create_measure_journal(MeasureSetup& m, const std::string& path) {
  if (path.empty()) {
    if (m.spec.launch.out == Stdio::capture) m.spec.launch.out = Stdio::discard;
    return std::nullopt;
  }
  return JournalWriter::create(path, measure_manifest(m));
}

ResumedMeasure open_measure_journal(const std::string& path) {
  ResumedMeasure r{JournalWriter::open_for_resume(path), false, {}};
  r.complete = ends_finished(r.journal.data.notes);
  if (!r.complete) r.setup = resumed_measure_setup(r.journal);
  return r;
}

MeasureOutcome run_measure_session(MeasureSetup& m, std::vector<RunRecord> recorded, JournalWriter* journal,
                                   const Progress& progress) {
  const std::size_t env_bytes = m.spec.launch.env.size_bytes();
  MeasureResult result = run_measure(m.spec, progress, [&](const MeasuredRun& run) {
    RunRecord r = record_of(m.plan, run, env_bytes);
    if (journal) journal->append(r);
    recorded.push_back(std::move(r));
  });
  const bool ended = !result.interrupted;
  if (journal) journal->append_note(end_note(!ended));
  MeasureOutcome out =
      measure_outcome(m.request, *m.backend, m.backend_notes, m.event_notes, m.sim_event_names, env_bytes, recorded, ended);
  // A re-run warm-up that failed is not in the journal: said here, as the run that stopped.
  if (out.failure.empty() && !result.failure.empty()) {
    out.failure = result.failure;
    out.findings.notes.push_back(out.failure);
  }
  return out;
}

MeasureOutcome journal_measure_outcome(const JournalData& d) {
  const CheckRequest r = request_from_manifest(d.manifest);
  const MeasurePart part = measure_part_of(d.manifest);
  const std::size_t env_bytes = d.runs.empty() ? 0 : d.runs.front().env_bytes;
  return measure_outcome(r, *job_backend(r), part.backend_notes, part.event_notes, part.sim_events, env_bytes, d.runs,
                         ends_finished(d.notes));
}

}  // namespace obscheck
