#include "job/check_setup.h"

#include <fmt/core.h>

#include <chrono>
#include <random>

#include "events/event.h"
#include "host/install_paths.h"
#include "observe/probes.h"
#include "observe/sampling.h"
#include "observe/variants.h"
#include "observe/wrap.h"
#include "job/job_backend.h"
#include "job/journal_job.h"
#include "run/backend.h"
#include "util/digest.h"
#include "util/error.h"
#include "util/words.h"

namespace obscheck {
namespace {

// Where --build writes its variants, relative to the working directory.
constexpr const char* kVariantsDir = ".obscheck-variants";

// The counters a check counts when the user named none.
CounterList default_counters(const CheckRequest& r, const Backend& backend) {
  if (r.observer.kind == ObserverKind::command) return backend.default_counters(CounterUse::command_metrics);
  return backend.default_counters(r.observer.kind == ObserverKind::counters ? CounterUse::check
                                                                             : CounterUse::observer_metrics);
}

std::uint64_t parse_frequency(const std::string& w) {
  char* end = nullptr;
  const unsigned long long v = std::strtoull(w.c_str(), &end, 10);
  if (w.empty() || w[0] < '0' || w[0] > '9' || *end != '\0')
    throw Error(ErrorKind::usage, "--sample-freq: '" + w + "' is not a frequency in Hz");
  return v;
}

std::string default_sample_event() {
  return probe_event_set(parse_events("cycles")).front().available ? "cycles" : "cpu-clock";
}

// The doses of each observer are resolved on this host here (probes opened, sampling
// rates allowed, profilers found, variants built), before a journal is written; their
// levels are plan/'s (plan/levels.h).

std::vector<Level> probe_doses(const ObserverRequest& req, std::size_t counters, const LaunchSpec& base,
                               ObserverSpec& obs) {
  const bool uprobes = req.kind == ObserverKind::probes;
  const std::vector<std::string> syms = req.symbols.rfind("auto:", 0) == 0
                                            ? auto_probe_symbols(base.path, std::stoul(req.symbols.substr(5)))
                                            : split_commas(req.symbols);
  obs.probes = probe_events(base.path, syms, uprobes ? ProbeKind::uprobe : ProbeKind::breakpoint);
  require_openable_together(obs.probes);
  return probe_levels(syms, counters);
}

std::vector<Level> sampling_doses(const ObserverRequest& req, std::size_t counters, ObserverSpec& obs) {
  obs.sample_event = parse_events(req.sample_event.empty() ? default_sample_event() : req.sample_event).events.at(0);
  return sampling_levels(sample_frequencies(req.frequencies, obs.sample_event), counters);
}

std::vector<Level> command_doses(const ObserverRequest& req, std::size_t counters, const LaunchSpec& base,
                                 ObserverSpec& obs, std::vector<std::string>& notes) {
  require_target_marker(req.command);
  obs.command = req.command;
  obs.exec_shim = exec_shim_path();
  notes.push_back("under the profiler command the counters and wall time describe the target alone, from its exec to "
                  "its exit, and its own output is compared; the rusage metrics hold the target's and the "
                  "profiler's usage together (marked 'target + profiler'): they are the profiler's cost, reported "
                  "per dose without a verdict; the profiler's own time is under 'observer:'");
  const std::vector<std::string> words = split_commas(req.levels);
  for (const std::string& w : words) {
    if (w == "0") continue;  // level 0: the target not wrapped
    wrap_launch(base, req.command, w);  // a profiler not on PATH: exit 3 before the journal
    for (const auto& a : describe_wrapper_changes(wrap_command(req.command, w, base.argv), base.argv).aspects)
      if (!a.held) notes.push_back("level " + w + ": " + a.note);
  }
  return command_levels(words, counters);
}

std::vector<Level> build_doses(const ObserverRequest& req, std::size_t counters, ObserverSpec& obs) {
  std::vector<VariantDose> doses;
  for (const BuildVariant& v : build_variants(req.build, req.probe_sites, kVariantsDir)) {
    obs.variants.push_back(v.path);
    doses.push_back({v.dose, v.mask, v.digest});
  }
  return build_levels(doses, counters);
}

// The doses of the chosen observer as plan levels (plan/levels.h); fills the runner's
// ObserverSpec.
std::vector<Level> observer_levels(const CheckRequest& r, const Backend& backend, const LaunchSpec& base,
                                   ObserverSpec& obs, std::vector<std::string>& notes) {
  obs.kind = r.observer.kind;
  switch (r.observer.kind) {
    case ObserverKind::counters:
      // Every dose is compared with no counter at all (level 0) on the driver's metrics
      // (wall time, rusage): they answer "does counting these events change my
      // program?" for a list of any length, one counter included. A counter is still
      // compared with itself counted alone: level 0 cannot count it. In process,
      // level 0 is the library loaded with an empty list: the program as every other
      // level runs it, less the counting. Not when the driver's metrics time a
      // simulator instead of the program.
      return counter_levels(r.counters.items(), backend.times_the_program());
    case ObserverKind::probes:
    case ObserverKind::breakpoints: return probe_doses(r.observer, r.counters.size(), base, obs);
    case ObserverKind::sampling: return sampling_doses(r.observer, r.counters.size(), obs);
    case ObserverKind::command: return command_doses(r.observer, r.counters.size(), base, obs, notes);
    case ObserverKind::build: return build_doses(r.observer, r.counters.size(), obs);
  }
  return {};
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

std::vector<std::uint64_t> sample_frequencies(const std::string& list, const EventDesc& event) {
  std::vector<std::uint64_t> frequencies;
  for (const std::string& w : split_commas(list)) {
    const std::uint64_t f = parse_frequency(w);
    if (f > 0) require_sample_rate_allowed(event, f);  // exit 4 now, not after the journal
    frequencies.push_back(f);
  }
  return frequencies;
}

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
  if (r.observer.kind != ObserverKind::counters && r.mode == CountingMode::inprocess)
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
  // With --build the program is the variant: "{out}" (or nothing) stands for it.
  if (r.observer.kind == ObserverKind::build && (r.launch.argv.empty() || r.launch.argv.front() == "{out}")) {
    const auto variants = build_variants(r.observer.build, r.observer.probe_sites, kVariantsDir);
    if (r.launch.argv.empty()) r.launch.argv.push_back(variants.front().path);
    r.launch.argv.front() = variants.front().path;
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
  // Only the counter observer's list reaches the target's environment in process;
  // every other observer leaves the environment alone, so its layout is held.
  p.plan.layouts = spec.observer.kind == ObserverKind::counters ? layouts_for(spec.mode) : std::vector<Layout>{Layout::held};
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
    if (e.kind() != ErrorKind::event || r.observer.kind != ObserverKind::counters || backend->exact()) throw;
    cannot_count.push_back(e.what());
  }
  PreparedCheck p;
  p.spec.backend = backend;
  if (r.counters.empty()) r.counters = default_counters(r, *backend);
  p.spec.base = launch_spec_for(r.launch);
  p.spec.mode = r.mode;
  p.plan.counters = r.counters.items();
  p.plan.levels = counter_levels(r.counters.items(), backend->times_the_program());
  p.plan.observer = ObserverKind::counters;
  p.plan.layouts = layouts_for(r.mode);
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
  for (const std::string& level : split_commas(observer.levels)) {
    if (level == kUnwrappedLevel) continue;
    for (const std::string& w : wrap_command(observer.command, level, {target}))
      if (w != target) words.push_back(w);
  }
  check_command_words("--observer-cmd", words, files);
}

}  // namespace obscheck
