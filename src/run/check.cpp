#include "run/check.h"

#include <algorithm>
#include <optional>

#include "launch/descendants.h"
#include "observe/counters.h"
#include "observe/inprocess.h"
#include "observe/probes.h"
#include "observe/sampling.h"
#include "observe/wrap.h"
#include "run/host_sample.h"
#include "run/measure.h"
#include "run/signals.h"
#include "util/error.h"

namespace obscheck {
namespace {

// The padding variable's own bytes beyond its value: "OBSCHECK_PAD=" and the NUL.
constexpr std::size_t kPadOverhead = sizeof("OBSCHECK_PAD=");
// Enough for a line of numbers or an address; a journal line must stay small.
constexpr std::size_t kOutputHeadBytes = 200;

std::vector<std::size_t> event_indexes(const CheckSpec& spec, const std::vector<std::size_t>& items) {
  std::vector<std::size_t> out;
  for (std::size_t item : items)
    for (std::size_t e : spec.item_events.at(item)) out.push_back(e);
  return out;
}

EnvBlock natural_environment(const CheckSpec& spec, const Configuration& c) {
  EnvBlock env = spec.base.env;
  if (spec.mode != CountingMode::inprocess) return env;
  if (spec.sim) {
    std::string names;
    for (std::size_t e : event_indexes(spec, c.level.announced))
      names += (names.empty() ? "" : ",") + spec.sim_events.at(e).name;
    env.set(kInprocessEventsVar, names);
    return env;
  }
  // The preloaded library goes first so that it wraps main before any other preload.
  std::string preload = spec.probe_library;
  for (const std::string& v : env.vars())
    if (v.rfind("LD_PRELOAD=", 0) == 0 && v.size() > 11) preload += ":" + v.substr(11);
  env.set("LD_PRELOAD", preload);
  const std::vector<std::size_t> announced = event_indexes(spec, c.level.announced);
  const std::vector<std::size_t> programmed = event_indexes(spec, c.level.programmed);
  set_inprocess_env(env, spec.events, announced, programmed.size());
  return env;
}

// What every run line carries whatever counted it, then the line itself, durable
// before the next trial starts. True when the sweep must stop (a failed run).
bool finish_run(const CheckSpec& spec, const Configuration& c, const Trial& t, const LaunchSpec& launch,
                RunRecord rec, JournalWriter& journal, SweepResult& result) {
  rec.env_bytes = launch.env.size_bytes();
  // The first line of what the target printed, so a journal shows *how* outputs
  // differ when their digests do (and layout workloads show their stack address):
  // only when asked (CheckSpec::keep_output_head).
  if (spec.keep_output_head && !rec.exit.output.empty())
    rec.extra["output_head"] = rec.exit.output.substr(0, std::min(rec.exit.output.find('\n'), kOutputHeadBytes));
  // What the target left running is killed before the next run starts, and named.
  const std::size_t left = kill_descendants();
  if (left > 0) rec.extra["left_behind"] = left;
  journal.append(rec);
  const bool failed = !rec.exit.ok() || (left > 0 && spec.fail_on_leftovers);
  const ExitInfo exit = rec.exit;
  result.appended.push_back(std::move(rec));
  if (!failed || spec.ignore_failure) return false;
  const std::string how = exit.ok() ? "left " + std::to_string(left) + " process" + (left == 1 ? "" : "es") +
                                          " running after it exited (--leftovers fail)"
                                    : describe_exit(exit, spec.base.timeout_s);
  result.failure = "the target " + how + " in run " + std::to_string(t.index) + " (" + c.id + ")";
  return true;
}

}  // namespace

std::size_t held_env_total(const Plan& plan, const CheckSpec& spec) {
  std::size_t largest = spec.base.env.size_bytes();
  for (const Configuration& c : plan.configs)
    largest = std::max(largest, natural_environment(spec, c).size_bytes());
  return largest + kPadOverhead;
}

EnvBlock environment_for(const Plan&, const CheckSpec& spec, const Configuration& c, std::size_t held_total) {
  EnvBlock env = natural_environment(spec, c);
  // External counting never touches the environment: every configuration already
  // sees the same block (held by construction), so it is left exactly as given.
  if (c.layout == Layout::held && spec.mode == CountingMode::inprocess) env.pad_to(held_total);
  return env;
}

std::string left_behind_warning(const std::vector<RunRecord>& runs) {
  std::size_t n_runs = 0, processes = 0;
  std::string first;
  for (const RunRecord& r : runs) {
    if (!r.extra.is_object() || !r.extra.contains("left_behind") || !r.extra["left_behind"].is_number_unsigned()) continue;
    const std::size_t n = r.extra["left_behind"].get<std::size_t>();
    if (n == 0) continue;
    if (n_runs++ == 0) first = "run " + std::to_string(r.index);
    processes += n;
  }
  if (n_runs == 0) return "";
  return std::to_string(n_runs) + " run" + (n_runs == 1 ? "" : "s") + " (first: " + first + ") left " +
         std::to_string(processes) + " process" + (processes == 1 ? "" : "es") +
         " running after the target exited; obscheck killed them before the next run. Their work may have "
         "overlapped the runs: make the target wait for its children, or use --leftovers fail to stop at the first";
}

LaunchSpec launch_for(const CheckSpec& spec, const Configuration& c) {
  LaunchSpec l = spec.base;
  if (spec.observer.kind == ObserverKind::command) {
    l = wrap_launch(spec.base, spec.observer.command, c.level.extra.at("wrap").get<std::string>());
  } else if (spec.observer.kind == ObserverKind::build) {
    l.path = spec.observer.variants.at(c.level.extra.at("variant").get<std::size_t>());
    l.argv.at(0) = l.path;
  }
  return l;
}

EventSet events_for(const CheckSpec& spec, const Configuration& c, std::vector<std::size_t>* probe_index) {
  EventSet out;
  for (std::size_t item : c.level.programmed) {
    std::vector<std::size_t> group;
    for (std::size_t e : spec.item_events.at(item)) {
      group.push_back(out.events.size());
      out.events.push_back(spec.events.events.at(e));
    }
    out.groups.push_back(std::move(group));
  }
  if (c.level.extra.contains("probes")) {
    const std::size_t k = c.level.extra.at("probes").get<std::size_t>();
    EventSet first;
    for (std::size_t i = 0; i < k; ++i) {
      first.groups.push_back({first.events.size()});
      first.events.push_back(spec.observer.probes.events.at(i));
    }
    std::vector<std::size_t> idx;
    out = concat_events(out, first, &idx);
    if (probe_index) *probe_index = std::move(idx);
  }
  return out;
}

SweepResult run_sweep(const Plan& plan, const CheckSpec& spec, const std::vector<Trial>& trials,
                      JournalWriter& journal, const SweepProgressFn& progress) {
  SweepResult result;
  const std::size_t held_total = held_env_total(plan, spec);
  // Per-configuration work done once, not per run: the environment and event subset.
  std::vector<LaunchSpec> launches;
  std::vector<EventSet> sets;
  std::vector<std::vector<std::size_t>> programmed, probe_index;
  std::vector<std::vector<SimEvent>> simulated;
  for (const Configuration& c : plan.configs) {
    launches.push_back(launch_for(spec, c));
    launches.back().env = environment_for(plan, spec, c, held_total);
    probe_index.emplace_back();
    programmed.push_back(event_indexes(spec, c.level.programmed));
    if (spec.sim) {
      simulated.emplace_back();
      for (std::size_t e : programmed.back()) simulated.back().push_back(spec.sim_events.at(e));
      sets.emplace_back();
    } else {
      sets.push_back(events_for(spec, c, &probe_index.back()));
    }
  }

  // Declared before every child: what a run leaves behind is killed when the sweep
  // ends, however it ends.
  DescendantGuard descendants;
  InterruptGuard guard;
  // Every run is spawned under the guard's handlers: the signals a child must reset
  // are read once, not by each child (see non_default_signals).
  const std::vector<int> resets = non_default_signals();
  for (LaunchSpec& l : launches) l.reset_signals = resets;
  const long ticks_per_second = clock_ticks_per_second();
  for (std::size_t i = 0; i < trials.size(); ++i) {
    if (InterruptGuard::interrupted()) break;
    const Trial& t = trials[i];
    const Configuration& c = plan.configs.at(t.config);
    if (progress) progress({i, trials.size(), &c});
    LaunchSpec& launch = launches[t.config];
    const std::uint64_t freq = c.level.extra.value("freq", std::uint64_t{0});

    if (spec.sim) {
      RunRecord rec = run_record_for(plan, t);
      try {
        const std::optional<ProcStat> host_before = read_proc_stat();
        SimRun run = run_sim_interruptible(launch, *spec.sim, simulated[t.config]);
        const std::optional<ProcStat> host_after = read_proc_stat();
        rec.exit = std::move(run.exit);
        rec.readings = std::move(run.readings);
        if (host_before && host_after)
          rec.extra["host"] = host_load_json(*host_before, *host_after, rec.exit.usage, ticks_per_second);
      } catch (const Error& e) {
        if (InterruptGuard::interrupted()) break;  // valgrind killed by us: no counts, not a failure
        if (e.kind() != ErrorKind::target_failed) throw;
        // A simulation that timed out is journalled as a native one would be: a failed
        // run without counts, which ends the sweep unless failures are ignored.
        rec.exit.timed_out = true;
        rec.exit.wall_ns = static_cast<std::uint64_t>(spec.base.timeout_s * 1e9);
      }
      if (InterruptGuard::interrupted()) break;  // killed by us mid-run: not a measurement
      if (finish_run(spec, c, t, launch, std::move(rec), journal, result)) break;
      continue;
    }
    ResultPipe pipe;
    launch.pass_fds.clear();
    if (spec.mode == CountingMode::inprocess) {
      pipe = make_result_pipe();
      launch.pass_fds.push_back({pipe.write_end.get(), kInprocessResultFd});
    }
    CorkedChild child = CorkedChild::spawn(launch);
    pipe.write_end.reset();  // the child holds its copy; EOF once it is gone
    InterruptGuard::set_current_group(child.pid());
    CounterSet counters;
    if (spec.mode == CountingMode::external) counters = CounterSet::open(child.pid(), sets[t.config]);
    Sampler sampler;
    if (spec.observer.kind == ObserverKind::sampling) sampler = Sampler::open(child.pid(), spec.observer.sample_event, freq);
    RunRecord rec = run_record_for(plan, t);
    // The host's load around the run, read while the target is corked and once reaped.
    const std::optional<ProcStat> host_before = read_proc_stat();
    {
      // The ring is drained while the target runs, on a helper thread, as a profiler does.
      std::optional<SamplerThread> drainer;
      if (sampler.active()) drainer.emplace(sampler);
      child.release();
      rec.exit = child.wait();
    }
    const std::optional<ProcStat> host_after = read_proc_stat();
    if (host_before && host_after)
      rec.extra["host"] = host_load_json(*host_before, *host_after, rec.exit.usage, ticks_per_second);
    if (sampler.active()) {
      const SamplingStats st = sampler.stats();
      rec.extra["sampling"] = {{"freq", st.frequency}, {"samples", st.samples}, {"lost", st.lost},
                               {"throttles", st.throttles}};
    }
    InterruptGuard::set_current_group(-1);
    if (InterruptGuard::interrupted()) break;  // killed by us mid-run: not a measurement
    if (spec.mode == CountingMode::external) {
      rec.readings = counters.read();
      if (!probe_index[t.config].empty()) {
        // Probe hit counts go beside the metrics, not among them: they are the dose.
        nlohmann::json hits = nlohmann::json::object();
        for (const ProbeHit& h : probe_hits(rec.readings, sets[t.config], probe_index[t.config]))
          hits[h.name] = h.hits;
        rec.extra["probe_hits"] = std::move(hits);
        rec.readings.resize(probe_index[t.config].front());
      }
    } else if (const std::string text = drain_result(pipe.read_end.get()); rec.exit.ok() || !text.empty()) {
      // A failed run without a result has nothing to read; a successful one must have one.
      rec.readings = match_inprocess_readings(parse_inprocess_result(text, spec.base.argv.at(0)), spec.events,
                                              programmed[t.config]);
    }
    if (finish_run(spec, c, t, launch, std::move(rec), journal, result)) break;
  }
  if (progress) progress({result.appended.size(), trials.size(), nullptr});
  result.interrupted = InterruptGuard::interrupted();
  return result;
}

}  // namespace obscheck
