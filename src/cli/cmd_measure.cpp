// obscheck measure: one configuration, repeated (perf stat -r's job), with the
// median's interval. With --journal FILE every run is recorded as it ends, in the
// check's journal format: a plan of one configuration ("measure", no A/A copy), one
// run per block, the typed request in the manifest. Ctrl-C leaves the journal valid,
// --resume FILE runs what is missing, and obscheck report FILE prints the same report
// from the file alone: the live report and the journal's go through one function.
#include <fmt/core.h>

#include <algorithm>
#include <chrono>
#include <functional>
#include <map>
#include <optional>

#include "analysis/measure.h"
#include "cli/check_setup.h"
#include "cli/commands.h"
#include "cli/resume.h"
#include "cli/sweep_common.h"
#include "cli/sweep_session.h"
#include "events/event.h"
#include "host/host_info.h"
#include "record/journal.h"
#include "record/request.h"
#include "record/run_table.h"
#include "report/measure_report.h"
#include "run/backend.h"
#include "run/measure.h"
#include "util/digest.h"
#include "util/error.h"

namespace obscheck {
namespace {

// With a backend that counts exactly (run/backend.h), two runs: one measures, the
// second confirms.
constexpr int kExactMeasureRuns = 2;
// The bootstrap's seed is fixed per invocation so the same data give the same CI.
constexpr std::uint64_t kMeasureSeed = 0x6f6273636865636bULL;
// The plan's observer: a journal of measure, not of a check.
constexpr const char* kMeasureObserver = "measure";

// The request, as measure reads the command line: its own defaults filled in, so the
// journal records what ran, not what was left to a default.
CheckRequest measure_request(const Options& o) {
  CheckRequest r = check_request_from(o);
  const std::shared_ptr<const Backend> backend = choose_backend(r);
  if (r.counters.empty()) r.counters = backend->default_counters(CounterUse::measure);
  if (backend->exact() && !o.runs_given) r.runs = kExactMeasureRuns;
  if (backend->exact() && !o.warmup_given) r.warmup = 0;
  r.seed = o.seed_given ? o.seed : kMeasureSeed;
  r.seed_given = true;
  return r;
}

// Everything the runs and the report need, resolved once from the request.
struct MeasureSetup {
  CheckRequest request;
  MeasureSpec spec;
  std::vector<std::string> sim_event_names;  // the simulated events, as the readings name them
  std::vector<std::string> backend_notes;  // what the report says about the backend
  std::vector<std::string> event_notes;    // e.g. counted at user level only
  Plan plan;
};

// One configuration repeated: block b is run b, warm-ups first.
Plan measure_plan(const CheckRequest& r) {
  PlanSpec s;
  s.observer = kMeasureObserver;
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

MeasureSetup measure_setup(CheckRequest r) {
  MeasureSetup m;
  const std::shared_ptr<const Backend> backend = choose_backend(r);
  const ResolvedCounters c = backend->resolve_all(r.counters);
  m.spec = MeasureSpec{launch_spec_for(r.launch), c.events, r.runs, r.warmup, r.ignore_failure};
  m.backend_notes = backend->notes(r.counters);
  for (const SimEvent& e : c.simulated) m.sim_event_names.push_back(e.name);
  m.spec.measurer = backend->run_measurer(c);
  m.event_notes = m.spec.events.notes;
  m.plan = measure_plan(r);
  m.request = std::move(r);
  return m;
}

std::vector<MetricSeries> collect_series(const std::vector<RunRecord>& runs) {
  std::vector<MetricSeries> counters;
  std::map<std::string, std::size_t> slot;
  std::vector<MetricSeries> driver;
  for (const DriverMetric& d : driver_metrics()) driver.push_back(MetricSeries{d.name, d.unit});
  for (const RunRecord& run : runs) {
    if (run.warmup) continue;
    for (const Reading& rd : run.readings) {
      auto [it, fresh] = slot.emplace(rd.name, counters.size());
      if (fresh) counters.push_back(MetricSeries{rd.name, counter_unit(rd.name), {}, 0, 1.0, true});
      MetricSeries& s = counters[it->second];
      s.values.push_back(rd.value);
      s.running_ns += static_cast<double>(rd.time_running);
      s.enabled_ns += static_cast<double>(rd.time_enabled);
      if (rd.multiplexed) {
        ++s.multiplexed_runs;
        s.max_scale = std::max(s.max_scale, rd.scale);
      }
    }
    for (std::size_t i = 0; i < driver.size(); ++i) driver[i].values.push_back(driver_metrics()[i].of(run.exit));
  }
  for (auto& s : driver) counters.push_back(std::move(s));
  return counters;
}

// Under --backend sim the driver's own metrics (wall time, rusage) time the simulator,
// not the program (Backend::times_the_program), so only the simulated events are
// reported, and runs that do not repeat one another's counts are named.
std::vector<std::string> keep_simulated(std::vector<MetricSeries>& series, const std::vector<std::string>& events) {
  std::vector<std::string> notes;
  std::erase_if(series, [&](const MetricSeries& s) { return std::find(events.begin(), events.end(), s.name) == events.end(); });
  for (const MetricSeries& s : series)
    if (std::adjacent_find(s.values.begin(), s.values.end(), std::not_equal_to<>()) != s.values.end())
      notes.push_back(fmt::format("not deterministic: {} differs between runs (from {:.0f} to {:.0f})", s.name,
                                  *std::min_element(s.values.begin(), s.values.end()),
                                  *std::max_element(s.values.begin(), s.values.end())));
  notes.push_back("wall time and rusage are the simulator's under --backend sim, not the program's: not reported");
  return notes;
}

// What a measure's runs say, live or from its journal: the one function both reports
// go through, so obscheck report FILE prints what measure printed.
struct MeasureOutcome {
  MeasureFindings findings;
  std::string failure;  // the run that stopped it (without --ignore-failure)
};

MeasureOutcome measure_outcome(const CheckRequest& r, const std::vector<std::string>& backend_notes,
                               const std::vector<std::string>& event_notes, const std::vector<std::string>& sim_events,
                               std::size_t env_bytes, const std::vector<RunRecord>& runs, bool ended) {
  MeasureOutcome out;
  MeasureFindings& f = out.findings;
  f.argv = r.launch.argv;
  f.warmups = std::min<std::size_t>(static_cast<std::size_t>(r.warmup), runs.size());
  f.runs = runs.size() - f.warmups;
  f.env_bytes = env_bytes;
  f.aslr = r.launch.aslr;
  f.cpu = r.launch.cpu;
  std::vector<MetricSeries> series = collect_series(runs);
  // The backend's lines first, then what the runs say, then the events' notes.
  f.notes = backend_notes;
  if (!choose_backend(r)->times_the_program())
    for (std::string& n : keep_simulated(series, sim_events)) f.notes.push_back(std::move(n));
  for (MetricSeries& s : series) f.metrics.push_back(summarize_metric(std::move(s), r.seed));
  if (!runs.empty() && !runs.back().exit.ok() && !r.ignore_failure)
    out.failure = measure_failure(runs.back().exit, static_cast<int>(runs.back().index), r.warmup, r.warmup + r.runs,
                                  r.launch.timeout_s);
  if (!ended && out.failure.empty())
    f.notes.push_back(fmt::format("interrupted: {} of {} measured runs done", f.runs, r.runs));
  if (!out.failure.empty()) f.notes.push_back(out.failure);
  for (const std::string& n : event_notes) f.notes.push_back(n);
  return out;
}

int print_measure(const Options& o, const MeasureOutcome& m, bool ended) {
  const MeasureFindings& f = m.findings;
  if (f.runs > 0 || o.json)
    emit(o, o.json                       ? measure_json(f)
            : o.csv                      ? measure_csv(f)
            : o.markdown                 ? measure_markdown(f)
            : !o.field_separator.empty() ? measure_separated(f, o.field_separator)
                                         : measure_text(f, o.color));
  if (!ended && m.failure.empty()) return interrupted_exit_code();
  if (!m.failure.empty())
    throw Error(ErrorKind::target_failed, m.failure,
                "use -i/--ignore-failure to record failing runs and go on, or --show-output to see what it printed");
  return 0;
}

RunRecord record_of(const Plan& plan, const MeasuredRun& run, std::size_t env_bytes) {
  RunRecord r = run_record_for(plan, trial_at(plan, static_cast<std::size_t>(run.index)));
  r.env_bytes = env_bytes;
  r.exit = run.exit;
  r.readings = run.readings;
  return r;
}

// The manifest's measure-only part: the notes the report prints (they depend on the
// host that measured) and the simulated events' names.
nlohmann::json measure_part(const MeasureSetup& m) {
  return {{"backend_notes", m.backend_notes}, {"event_notes", m.event_notes}, {"sim_events", m.sim_event_names}};
}

// Runs the setup's remaining runs (from spec.first_run) into `journal` when given;
// `recorded` are the runs the journal held before.
int run_and_report(const Options& o, MeasureSetup& m, std::vector<RunRecord> recorded, JournalWriter* journal) {
  Progress progress;
  if (o.progress && !o.json)
    progress = [](int done, int total) { fmt::print(stderr, "\r  run {}/{}", done, total); };
  const std::size_t env_bytes = m.spec.launch.env.size_bytes();
  MeasureResult result = run_measure(m.spec, progress, [&](const MeasuredRun& run) {
    RunRecord r = record_of(m.plan, run, env_bytes);
    if (journal) journal->append(r);
    recorded.push_back(std::move(r));
  });
  if (progress) fmt::print(stderr, "\r\x1b[K");
  const bool ended = !result.interrupted;
  if (journal) {
    if (ended) journal->append_note({{"kind", "finished"}});
    else journal->append_note({{"kind", "interrupted"}});
  }
  MeasureOutcome out =
      measure_outcome(m.request, m.backend_notes, m.event_notes, m.sim_event_names, env_bytes, recorded, ended);
  // A re-run warm-up that failed is not in the journal: said here, as the run that stopped.
  if (out.failure.empty() && !result.failure.empty()) {
    out.failure = result.failure;
    out.findings.notes.push_back(out.failure);
  }
  return print_measure(o, out, ended);
}

int resume_measure(const Options& o) {
  if (const nlohmann::json m = read_manifest_line(o.resume); !m.is_null()) {
    if (!is_measure_journal(m))
      throw Error(ErrorKind::usage,
                  fmt::format("{} is {} journal, not a measure's", o.resume,
                              is_sweep_journal(m) ? "a " + m.at("command").get<std::string>() + "'s" : "a check's"),
                  "continue it with obscheck --resume " + o.resume);
    refuse_changed_options(o, m);
  }
  ResumedJournal r = JournalWriter::open_for_resume(o.resume);
  if (journal_complete(r.data.notes)) return report_complete_journal(o, r.data);
  const nlohmann::json& manifest = r.data.manifest;
  MeasureSetup m = measure_setup(request_from_manifest(manifest));
  if (sha256_file(m.spec.launch.path) != manifest.at("target").at("sha256").get<std::string>())
    throw Error(ErrorKind::usage, m.spec.launch.path + " has changed since the journal was started (sha256 differs)",
                "a resumed measure must run the same binary; start a new one instead");
  if (const std::string why = env_difference(manifest.at("env"), env_summary(m.spec.launch.env.vars())); !why.empty())
    throw Error(ErrorKind::usage, "this environment differs from the journal's: " + why + "; the target's layout would move",
                "resume with the environment the measure was started with, or start a new one (without --resume)");
  // The report's notes are the ones the measure began with.
  const nlohmann::json part = manifest.value("measure", nlohmann::json::object());
  m.backend_notes = part.value("backend_notes", std::vector<std::string>{});
  m.event_notes = part.value("event_notes", std::vector<std::string>{});
  const std::vector<Trial> left = remaining_trials(m.plan, r.data, m.plan.spec.warmup_blocks + *m.plan.spec.fixed_blocks);
  m.spec.first_run = left.empty() ? m.spec.warmup + m.spec.runs : static_cast<int>(left.front().index);
  if (r.data.torn_tail)
    fmt::print(stderr, "obscheck: the journal's last line was incomplete (cut off mid-write) and was removed; that run is run again\n");
  fmt::print(stderr, "obscheck: resuming {} from run {} of {}\n", o.resume, m.spec.first_run + 1, m.spec.warmup + m.spec.runs);
  return run_and_report(o, m, r.data.runs, &r.writer);
}

}  // namespace

int cmd_measure(const Options& o) {
  if (!o.resume.empty()) return resume_measure(o);
  MeasureSetup m = measure_setup(measure_request(o));
  std::optional<JournalWriter> journal;
  if (!o.journal.empty()) {
    ManifestInput in;
    in.obscheck_version = OBSCHECK_VERSION;
    in.created = std::chrono::system_clock::now();
    in.host = read_host();
    in.options = request_to_json(m.request);
    in.target = TargetInfo{m.spec.launch.path, m.spec.launch.argv, sha256_file(m.spec.launch.path)};
    in.env = m.spec.launch.env.vars();
    nlohmann::json manifest = make_manifest(in, m.plan);
    manifest["command"] = "measure";
    manifest["measure"] = measure_part(m);
    journal.emplace(JournalWriter::create(o.journal, manifest));
  }
  return run_and_report(o, m, {}, journal ? &*journal : nullptr);
}

bool is_measure_journal(const nlohmann::json& manifest) {
  return manifest.is_object() && manifest.value("command", "") == "measure";
}

int report_measure(const Options& o, const JournalData& d) {
  const CheckRequest r = request_from_manifest(d.manifest);
  const nlohmann::json part = d.manifest.value("measure", nlohmann::json::object());
  const auto backend_notes = part.value("backend_notes", std::vector<std::string>{});
  const auto event_notes = part.value("event_notes", std::vector<std::string>{});
  const auto sim_events = part.value("sim_events", std::vector<std::string>{});
  const std::size_t env_bytes = d.runs.empty() ? 0 : d.runs.front().env_bytes;
  const bool ended = journal_complete(d.notes);
  const MeasureOutcome out = measure_outcome(r, backend_notes, event_notes, sim_events, env_bytes, d.runs, ended);
  // An incomplete journal is not this invocation's interruption: exit as a report does.
  return print_measure(o, out, true);
}

}  // namespace obscheck
