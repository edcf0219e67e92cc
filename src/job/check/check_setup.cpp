#include "job/check/check_setup.h"

#include <fmt/core.h>

#include <chrono>
#include <random>

#include "events/event.h"
#include "host/install_paths.h"
#include "observe/observer_kinds.h"
#include "observe/wrap.h"
#include "job/common/job_backend.h"
#include "job/journal/journal_job.h"
#include "run/backend.h"
#include "util/digest.h"
#include "util/error.h"

namespace obscheck {
namespace {

// The counters a check counts when the user named none: its kind's row says which.
CounterList default_counters(const CheckRequest& r, const Backend& backend) {
  switch (observer_info(r.observer.kind).counters) {
    case DefaultCounters::dosed: return backend.default_counters(CounterUse::check);
    case DefaultCounters::metrics: return backend.default_counters(CounterUse::observer_metrics);
    case DefaultCounters::target_metrics: return backend.default_counters(CounterUse::command_metrics);
  }
  return backend.default_counters(CounterUse::observer_metrics);
}

// The doses of the chosen observer, resolved on this host by its kind's row
// (observe/observer_kinds.h), as plan levels; fills the runner's ObserverSpec and adds
// the row's notes to `notes`.
std::vector<Level> observer_levels(const CheckRequest& r, const Backend& backend, const LaunchSpec& base,
                                   ObserverSpec& obs, std::vector<std::string>& notes) {
  const ObserverKindInfo& info = observer_info(r.observer.kind);
  const DoseInputs in{r.observer, r.counters.items(), backend.times_the_program(), base,
                      info.attach == Attach::wraps_launch ? exec_shim_path() : std::string()};
  Doses d = info.doses(in);
  obs = std::move(d.spec);
  notes.insert(notes.end(), d.notes.begin(), d.notes.end());
  return std::move(d.levels);
}

// The layouts a check crosses its levels with: every layout of the mode for an
// observer whose list reaches the target's environment in process (its row's
// varies_layout); every other observer leaves the environment alone, so its layout is
// held.
std::vector<Layout> layouts_of(ObserverKind kind, CountingMode mode) {
  return observer_info(kind).varies_layout ? layouts_for(mode) : std::vector<Layout>{Layout::held};
}

// The plan's blocks: --runs, --max-runs and -w, else the backend's policy (with exact
// counts one measured block decides and a second confirms, without a warm-up).
void set_budget(const CheckRequest& r, const Backend& backend, PlanSpec& ps) {
  const BlockPolicy policy = backend.block_policy();
  if (r.runs > 0) ps.fixed_blocks = static_cast<std::size_t>(r.runs);
  else if (policy.blocks) ps.fixed_blocks = *policy.blocks;
  if (r.max_runs > 0) ps.max_blocks = static_cast<std::size_t>(r.max_runs);
  ps.warmup_blocks = policy.warmup || r.warmup_given ? static_cast<std::size_t>(r.warmup) : 0;
}

}  // namespace

LaunchSpec launch_spec_for(const LaunchRequest& r) {
  LaunchSpec s;
  s.path = resolve_target(r.argv.at(0));
  s.argv = r.argv;
  s.env = EnvBlock::for_target();
  if (r.env_pad) s.env.pad_to(*r.env_pad);
  s.aslr = r.aslr;
  s.cpu = r.cpu;
  s.timeout_s = r.timeout_s;
  s.out = r.show_output ? Stdio::inherit : Stdio::capture;
  if (!r.run_as.empty()) s.run_as = credentials_of(r.run_as);
  return s;
}

SettledRequest settle_backend(CheckRequest r) {
  if (!observer_info(r.observer.kind).in_process && r.mode == CountingMode::inprocess)
    throw Error(ErrorKind::usage, "--mode inprocess goes with the counter observer only",
                "probes, breakpoints, sampling, profiler commands and builds are checked with --mode external");
  const std::string sim_cache = r.sim_cache;
  std::shared_ptr<const Backend> backend = job_backend(r.backend, sim_cache);
  backend->admit(r.observer.kind);
  backend->require_here();  // valgrind, before a journal is written
  r.backend = backend->kind();
  r.sim = backend->geometry();
  r.sim_cache = r.sim ? sim_cache : "";  // where the geometry in use came from
  return {std::move(r), std::move(backend)};
}

SettledRequest settled_as_recorded(CheckRequest r) {
  std::shared_ptr<const Backend> backend = job_backend(r);
  return {std::move(r), std::move(backend)};
}

PreparedCheck prepare_check(SettledRequest s) {
  CheckRequest& r = s.request;
  PreparedCheck p;
  // An observer that runs its own program (a build's variant): "{out}" (or nothing) stands for it.
  const ObserverKindInfo& info = observer_info(r.observer.kind);
  if (info.program && (r.launch.argv.empty() || r.launch.argv.front() == "{out}")) {
    const std::string program = info.program(r.observer);
    if (r.launch.argv.empty()) r.launch.argv.push_back(program);
    r.launch.argv.front() = program;
  }
  CheckSpec& spec = p.spec;
  spec.backend = s.backend;
  const Backend& backend = *spec.backend;
  if (r.counters.empty()) r.counters = default_counters(r, backend);
  spec.base = launch_spec_for(r.launch);
  spec.keep_output_head = r.launch.keep_output_head;
  ResolvedCounters c = backend.resolve(r.counters, r.allow_missing);
  r.counters = CounterList(c.items);
  r.dropped.insert(r.dropped.end(), c.dropped.begin(), c.dropped.end());
  for (const auto& d : c.dropped) p.warnings.push_back("dropped (--allow-missing): " + d);
  for (const auto& n : c.notes) p.warnings.push_back(n);
  p.backend_notes = backend.notes(r.counters.items());
  spec.sim_events = std::move(c.simulated);
  spec.events = c.events;
  spec.item_events = c.item_events;
  spec.mode = r.mode;
  spec.ignore_failure = r.ignore_failure;
  spec.fail_on_leftovers = r.leftovers == Leftovers::fail;
  if (spec.mode == CountingMode::inprocess && backend.counts_in_the_target()) spec.probe_library = probe_library_path();

  p.plan.counters = r.counters.items();
  p.plan.levels = observer_levels(r, backend, spec.base, spec.observer, p.warnings);
  p.plan.observer = spec.observer.kind;
  p.plan.layouts = layouts_of(spec.observer.kind, spec.mode);
  // A seed the user did not give is drawn once and recorded, so the run can be replayed.
  if (!r.seed_given) r.seed = (static_cast<std::uint64_t>(std::random_device{}()) << 32) ^ std::random_device{}();
  p.plan.seed = r.seed;
  set_budget(r, backend, p.plan);
  p.request = std::move(r);
  return p;
}

PreparedCheck prepare_plan(SettledRequest s, std::vector<std::string>& cannot_count) {
  const std::shared_ptr<const Backend> backend = s.backend;
  CheckRequest& r = s.request;
  try {
    return prepare_check(s);
  } catch (const Error& e) {
    // An exact backend counts the same on every host: its refusal is the list's.
    const bool doses_the_list = observer_info(r.observer.kind).counters == DefaultCounters::dosed;
    if (e.kind() != ErrorKind::event || !doses_the_list || backend->exact()) throw;
    cannot_count.push_back(e.what());
  }
  PreparedCheck p;
  p.spec.backend = backend;
  if (r.counters.empty()) r.counters = default_counters(r, *backend);
  p.spec.base = launch_spec_for(r.launch);
  p.spec.mode = r.mode;
  p.plan.counters = r.counters.items();
  p.plan.levels = observer_levels(r, *backend, p.spec.base, p.spec.observer, p.warnings);
  p.plan.observer = r.observer.kind;
  p.plan.layouts = layouts_of(r.observer.kind, r.mode);
  if (!r.seed_given) r.seed = (static_cast<std::uint64_t>(std::random_device{}()) << 32) ^ std::random_device{}();
  r.seed_given = true;
  p.plan.seed = r.seed;
  set_budget(r, *backend, p.plan);
  p.request = std::move(r);
  return p;
}

nlohmann::json check_manifest(const PreparedCheck& p, const Plan& plan, const nlohmann::json& host,
                              const std::string& plan_digest) {
  ManifestInput mi;
  mi.plan_digest = plan_digest;
  mi.obscheck_version = OBSCHECK_VERSION;
  mi.created = std::chrono::system_clock::now();
  mi.host = host;
  mi.options = request_to_json(p.request);
  mi.target = TargetInfo{p.spec.base.path, p.spec.base.argv, sha256_file(p.spec.base.path)};
  mi.env = p.spec.base.env.vars();
  mi.warnings = p.warnings;
  return make_manifest(mi, plan);
}

namespace {

// The profiler command a check runs: the given one, or for --resume the journal's.
ObserverRequest profiler_of(const ObserverRequest& given, const std::string& resume) {
  if (resume.empty()) return given;
  // A manifest that records no request (not an object, no options) is refused by its
  // decoder as an io error, as any it cannot read: no profiler command then.
  const nlohmann::json m = read_manifest_line(resume);
  try {
    return request_from_manifest(m).observer;
  } catch (const Error&) {
    return {};
  }
}

}  // namespace

void check_files_before_running(const ObserverRequest& given, const std::string& resume,
                                const std::vector<NamedPath>& outputs, const std::vector<NamedPath>& inputs) {
  check_output_paths(outputs, inputs);
  const ObserverRequest observer = profiler_of(given, resume);
  if (observer.command.empty()) return;
  std::vector<NamedPath> files = outputs;
  files.insert(files.end(), inputs.begin(), inputs.end());
  std::vector<std::string> words = split_command_words(observer.command);
  const std::string target = "\x01";  // no path: stands for the target's argv
  for (const std::string& level : observer.levels) {
    if (level == kUnwrappedLevel) continue;
    for (const std::string& w : wrap_command(observer.command, level, {target}))
      if (w != target) words.push_back(w);
  }
  check_command_words("--observer-cmd", words, files);
}

}  // namespace obscheck
