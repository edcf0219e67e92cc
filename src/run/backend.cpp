#include "run/backend.h"

#include <fmt/core.h>
#include <fmt/ranges.h>

#include <algorithm>

#include "events/sim_events.h"
#include "observe/inprocess.h"
#include "observe/probes.h"
#include "util/error.h"

namespace obscheck {
namespace {

// What the check counts when --counters is not given: the software events every
// Linux host has, plus the TSC; hosts with a PMU add the paper's cycles/l1d/l1i.
constexpr const char* kDefaultCheckCounters = "task-clock,page-faults,ctx-switches,tsc";
constexpr const char* kDefaultPmuCounters = "cycles,instructions,l1d,l1i";
// The metrics of a check of any other observer, when --counters is not given.
constexpr const char* kDefaultObserverMetrics = "task-clock,page-faults";
// Under a profiler command the reaped process is the profiler, whose rusage holds the
// target's and its own together: the target's context switches are counted on the
// target instead, beside its CPU time and faults.
constexpr const char* kDefaultCommandMetrics = "task-clock,page-faults,ctx-switches";
// What measure counts when -e is not given: the software events every Linux host
// has (this is also what perf stat falls back to without a PMU).
constexpr const char* kDefaultMeasureEvents = "task-clock,page-faults,ctx-switches,migrations";
// What bias and compare count when --counters is not given.
constexpr const char* kDefaultSweepEvents = "task-clock";

// Under simulation: the paper's counters (cycles estimated); for measure every
// simulated event (they cost nothing extra: cachegrind counts them all in one run).
// An exact backend's measured blocks: one decides, a second confirms (BlockPolicy).
constexpr std::size_t kExactBlocks = 2;
constexpr const char* kDefaultSimCounters = "cycles,instructions,l1d,l1i";
constexpr const char* kDefaultSimObserverMetrics = "instructions,cycles,l1d";
constexpr const char* kDefaultSimMeasureEvents = "instructions,cycles,l1d,l1d-reads,l1i,llc,branches,branch-misses";
constexpr const char* kDefaultSimSweepEvents = "cycles,instructions,l1d";

CounterList list_of(std::string_view text) { return CounterList(split_event_list(std::string(text))); }

// One item's reasons it cannot be counted ("" when it can), the hints gathered.
std::string unavailable_reasons(const EventSet& one, const std::vector<Availability>& avail, std::size_t first,
                                std::string& hint) {
  std::string why;
  for (std::size_t i = 0; i < one.events.size(); ++i) {
    const Availability& a = avail[first + i];
    if (a.available) continue;
    why += fmt::format("{}{}: {}", why.empty() ? "" : "; ", one.events[i].spec, a.reason);
    if (!a.hint.empty() && hint.find(a.hint) == std::string::npos) hint += (hint.empty() ? "" : "; ") + a.hint;
  }
  return why;
}

void add_item(ResolvedCounters& c, const std::string& item, const EventSet& one) {
  std::vector<std::size_t> idx;
  for (const auto& group : one.groups) {
    std::vector<std::size_t> g;
    for (std::size_t e : group) {
      g.push_back(c.events.events.size());
      idx.push_back(c.events.events.size());
      c.events.events.push_back(one.events[e]);
    }
    c.events.groups.push_back(std::move(g));
  }
  c.items.push_back(item);
  c.item_events.push_back(std::move(idx));
}

// The most unavailable events an error names one by one: a list of 1,499 raw events
// made a 159 KB one-line message; beyond this many, the rest are counted.
constexpr std::size_t kMaxNamedReasons = 8;

// "a: why; b: why; ... and N more cannot be counted".
std::string named_reasons(const std::vector<std::string>& reasons) {
  std::string out;
  for (std::size_t i = 0; i < reasons.size() && i < kMaxNamedReasons; ++i) out += (i ? "; " : "") + reasons[i];
  if (reasons.size() > kMaxNamedReasons)
    out += fmt::format("; and {} more that cannot be counted either", reasons.size() - kMaxNamedReasons);
  return out;
}

// Refuses the whole set, once, before any run, when an event cannot be counted here
// (Error(event) naming every such event, its reason and the fix): the counter set is
// the independent variable, so nothing is ever dropped silently.
void require_available(const EventSet& events) {
  // Each event on its own, as it will be judged, but all on one probing child.
  EventSet alone;
  alone.events = events.events;
  for (std::size_t i = 0; i < alone.events.size(); ++i) alone.groups.push_back({i});
  const std::vector<Availability> avail = probe_event_set(alone);
  std::vector<std::string> why;
  std::string hint;
  for (std::size_t i = 0; i < avail.size(); ++i) {
    const Availability& a = avail[i];
    if (a.available) continue;
    why.push_back(fmt::format("{}: {}", events.events[i].spec, a.reason));
    if (!a.hint.empty() && hint.find(a.hint) == std::string::npos) hint += (hint.empty() ? "" : "; ") + a.hint;
  }
  if (!why.empty()) throw Error(ErrorKind::event, "cannot count " + named_reasons(why), hint);
}

// perf_event on this host: the counters are what the host can open, a run is the
// corked child counted from outside (or by the preloaded library inside it).
class NativeBackend final : public Backend {
 public:
  BackendKind kind() const override { return BackendKind::native; }
  std::optional<SimGeometry> geometry() const override { return std::nullopt; }
  void require_here() const override {}
  void admit(ObserverKind) const override {}

  CounterList default_counters(CounterUse use) const override {
    switch (use) {
      case CounterUse::observer_metrics: return list_of(kDefaultObserverMetrics);
      case CounterUse::command_metrics: return list_of(kDefaultCommandMetrics);
      case CounterUse::measure: return list_of(kDefaultMeasureEvents);
      case CounterUse::sweep: return list_of(kDefaultSweepEvents);
      case CounterUse::check: break;
    }
    // The PMU set only if this host can count it.
    for (const auto& a : probe_event_set(parse_events(kDefaultPmuCounters)))
      if (!a.available) return list_of(kDefaultCheckCounters);
    return list_of(std::string(kDefaultPmuCounters) + "," + kDefaultCheckCounters);
  }

  ResolvedCounters resolve(const CounterList& list, bool allow_missing) const override {
    // Every item is parsed first and all are probed together on one child: one fork
    // and one look at the host's perf facts for the whole list, not one per item.
    std::vector<EventSet> parsed;
    EventSet all;
    std::vector<std::size_t> first_event;  // each item's first index in `all`
    ResolvedCounters c;
    for (const std::string& item : list.items()) {
      parsed.push_back(parse_events(item));
      for (const auto& n : parsed.back().notes)
        if (std::find(c.notes.begin(), c.notes.end(), n) == c.notes.end()) c.notes.push_back(n);
      first_event.push_back(all.events.size());
      all = concat_events(all, parsed.back());
    }
    const std::vector<Availability> avail = probe_event_set(all);
    std::vector<std::string> why;
    std::string hint;
    for (std::size_t k = 0; k < list.size(); ++k) {
      const std::string item_why = unavailable_reasons(parsed[k], avail, first_event[k], hint);
      if (item_why.empty()) add_item(c, list[k], parsed[k]);
      else if (allow_missing) c.dropped.push_back(item_why);
      else why.push_back(item_why);
    }
    if (!why.empty())
      throw Error(ErrorKind::event, "cannot count " + named_reasons(why),
                  hint + (hint.empty() ? "" : "; ") + "or drop them with --allow-missing");
    if (c.items.empty())
      throw Error(ErrorKind::event, "none of the counters can be counted here: " + named_reasons(c.dropped),
                  "see obscheck events");
    return c;
  }

  ResolvedCounters resolve_all(const CounterList& list) const override {
    ResolvedCounters c;
    c.events = parse_events(list.text());
    require_available(c.events);
    c.notes = c.events.notes;
    for (std::size_t i = 0; i < c.events.events.size(); ++i) {
      c.items.push_back(c.events.events[i].name);
      c.item_events.push_back({i});
    }
    return c;
  }

  std::vector<std::string> notes(const std::vector<std::string>&) const override { return {}; }
  bool exact() const override { return false; }
  BlockPolicy block_policy() const override { return {}; }
  bool times_the_program() const override { return true; }
  bool counts_in_the_target() const override { return true; }

  std::unique_ptr<Measurer> check_measurer(const Plan& plan, const CheckSpec& spec,
                                           const Observer& observer) const override {
    return make_native_measurer(plan, spec, observer);
  }
  RunMeasurer run_measurer(const ResolvedCounters&) const override { return measure_with_counters; }

  void announce(EnvBlock& env, const CheckSpec& spec, const std::vector<std::size_t>& announced,
                std::size_t programmed) const override {
    // The preloaded library goes first so that it wraps main before any other preload.
    std::string preload = spec.probe_library;
    for (const std::string& v : env.vars())
      if (v.rfind("LD_PRELOAD=", 0) == 0 && v.size() > 11) preload += ":" + v.substr(11);
    env.set("LD_PRELOAD", preload);
    set_inprocess_env(env, spec.events, announced, programmed);
  }
};

// The simulated PMU: cachegrind runs the target and counts exactly, on any host
// where valgrind is installed.
class SimBackend final : public Backend {
 public:
  explicit SimBackend(SimGeometry g) : geometry_(std::move(g)) {}
  BackendKind kind() const override { return BackendKind::sim; }
  std::optional<SimGeometry> geometry() const override { return geometry_; }
  void require_here() const override { find_valgrind(); }

  void admit(ObserverKind observer) const override { require_sim_observer(observer); }

  CounterList default_counters(CounterUse use) const override {
    switch (use) {
      case CounterUse::check: return list_of(kDefaultSimCounters);
      case CounterUse::observer_metrics:
      case CounterUse::command_metrics: return list_of(kDefaultSimObserverMetrics);
      case CounterUse::measure: return list_of(kDefaultSimMeasureEvents);
      case CounterUse::sweep: break;
    }
    return list_of(kDefaultSimSweepEvents);
  }

  // Every simulated event exists on any host, so nothing is dropped; each name is its
  // own item.
  ResolvedCounters resolve(const CounterList& list, bool) const override { return resolve_all(list); }
  ResolvedCounters resolve_all(const CounterList& list) const override {
    ResolvedCounters c;
    c.simulated = resolve_sim_events(list.text());
    for (std::size_t i = 0; i < c.simulated.size(); ++i) {
      c.items.push_back(c.simulated[i].name);
      c.item_events.push_back({i});
    }
    return c;
  }

  std::vector<std::string> notes(const std::vector<std::string>& counted) const override {
    std::vector<std::string> out;
    out.push_back("simulated PMU: valgrind --tool=cachegrind (cache and branch simulation); deterministic, one run "
                  "per configuration, a second to confirm");
    out.push_back(fmt::format("geometry: {} ({})", format_sim_geometry(geometry_), geometry_.source));
    for (const std::string& n : geometry_.notes) out.push_back("geometry: " + n);
    for (const SimEvent& e : sim_events())
      if (e.estimated && std::find(counted.begin(), counted.end(), e.name) != counted.end()) {
        out.push_back(fmt::format("{} is estimated, not measured: {}", e.name, kSimCyclesModel));
        break;
      }
    return out;
  }
  bool exact() const override { return true; }
  BlockPolicy block_policy() const override { return {kExactBlocks, false}; }
  bool times_the_program() const override { return false; }
  bool counts_in_the_target() const override { return false; }

  std::unique_ptr<Measurer> check_measurer(const Plan& plan, const CheckSpec& spec, const Observer&) const override {
    return make_sim_measurer(plan, spec, geometry_);
  }
  RunMeasurer run_measurer(const ResolvedCounters& counters) const override {
    return [geometry = geometry_, events = counters.simulated](const LaunchSpec& launch, const EventSet&) {
      SimRun run = run_sim_interruptible(launch, geometry, events);
      return RunOutcome{std::move(run.exit), std::move(run.readings)};
    };
  }

  // The announced events' names reach the target in OBSCHECK_EVENTS, as the in-process
  // library's list would (the PAPI_EVENTS set-up of Mytkowicz et al., "Observer Effect
  // and Measurement Bias in Performance Analysis"), so the natural layout grows with
  // the dose while the simulator counts.
  void announce(EnvBlock& env, const CheckSpec& spec, const std::vector<std::size_t>& announced,
                std::size_t) const override {
    std::string names;
    for (std::size_t e : announced) names += (names.empty() ? "" : ",") + spec.sim_events.at(e).name;
    env.set(kInprocessEventsVar, names);
  }

 private:
  SimGeometry geometry_;
};

}  // namespace

std::vector<std::string> ResolvedCounters::names() const {
  std::vector<std::string> out;
  for (const SimEvent& e : simulated) out.push_back(e.name);
  for (const EventDesc& e : events.events) out.push_back(e.name);
  return out;
}

std::shared_ptr<const Backend> choose_backend(BackendKind kind, const std::optional<SimGeometry>& geometry) {
  if (kind == BackendKind::native) return std::make_shared<const NativeBackend>();
  if (!geometry) throw Error(ErrorKind::io, "the simulated backend is recorded without its cache geometry");
  return std::make_shared<const SimBackend>(*geometry);
}

std::shared_ptr<const Backend> choose_backend(BackendKind kind, const std::string& sim_cache) {
  if (kind == BackendKind::native) return choose_backend(kind);
  const SimGeometry host = host_sim_geometry();
  return choose_backend(kind, sim_cache.empty() ? host : parse_sim_cache(sim_cache, host));
}

std::shared_ptr<const Backend> choose_backend(const CheckRequest& request) {
  return choose_backend(request.backend, request.sim);
}

}  // namespace obscheck
