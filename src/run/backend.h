// run/: where the counts come from, decided once. `--backend native` counts with
// perf_event on this host; `--backend sim` runs the target under the simulated PMU
// (observe/sim.h: cachegrind) and counts exactly. choose_backend is the one place that
// asks which was named; every command then calls the chosen Backend, and what differs
// between the two (the counters it can count and their defaults, the lines a report
// says about it, whether one run decides, how a run is measured, what an in-process
// target is told) lives behind it.
#pragma once

#include <cstddef>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "events/event.h"
#include "observe/sim.h"
#include "plan/counter_list.h"
#include "plan/observer.h"
#include "plan/plan.h"
#include "record/request.h"
#include "run/check.h"
#include "run/measure.h"
#include "run/measurer.h"

namespace obscheck {

// A counter list resolved by a backend: its items with the events of each (indexes
// into `events` natively, into `simulated` under simulation), what --allow-missing
// left out and why, and the notes events/ gave (each once).
struct ResolvedCounters {
  std::vector<std::string> items;
  EventSet events;                                 // native: every event, {groups} kept
  std::vector<SimEvent> simulated;                 // sim: every simulated event
  std::vector<std::vector<std::size_t>> item_events;
  std::vector<std::string> dropped;                // "cycles: no hardware PMU ..."
  std::vector<std::string> notes;                  // e.g. counted at user level only
  // The readings' names, in list order.
  std::vector<std::string> names() const;
};

// Which command's defaults a backend gives when --counters (or -e) is not given.
enum class CounterUse {
  check,             // the counter observer's doses
  observer_metrics,  // what a check of any other observer compares
  command_metrics,   // what a check under a profiler command compares: the target alone
  measure,           // obscheck measure
  sweep,             // obscheck bias / compare
};

// How many measured blocks a command runs (a check's blocks, measure's runs, a sweep's
// runs per context) when the user gave none, and whether it warms up first. Under an
// exact backend one measured block decides and a second confirms that the counts
// repeat (analysis/deterministic.h), and nothing needs warming: the simulated caches
// start cold in every run. A backend that measures leaves both to the command.
struct BlockPolicy {
  std::optional<std::size_t> blocks;  // none: the command's own default
  bool warmup = true;                 // false: no warm-up unless the user asks (-w)
};

class Backend {
 public:
  virtual ~Backend() = default;
  virtual BackendKind kind() const = 0;
  // The simulated cache geometry (sim), or none.
  virtual std::optional<SimGeometry> geometry() const = 0;

  // Throws Error(host) when this backend cannot run on this host (the simulator:
  // valgrind missing). Not called to re-read a journal, which needs no backend.
  virtual void require_here() const = 0;
  // Throws Error(usage) when the observer cannot act under this backend (a probe on a
  // simulated program never fires).
  virtual void admit(ObserverKind observer) const = 0;

  // The counters a command counts when the user names none.
  virtual CounterList default_counters(CounterUse use) const = 0;
  // The check's list, item by item: every item this host can count, or Error(event)
  // naming every one it cannot (unless allow_missing drops them; an empty result is
  // still an error). Error(usage) for a malformed list.
  virtual ResolvedCounters resolve(const CounterList& list, bool allow_missing) const = 0;
  // measure's and the sweeps' list: every event must count here (Error(event) once,
  // naming them), each event its own item, {groups} kept.
  virtual ResolvedCounters resolve_all(const CounterList& list) const = 0;
  // What a report says about the backend counting these events (their names, as
  // resolved: ResolvedCounters::names, or a journal's list), one line each; none for
  // perf_event. Pure: a report of a journal calls it on any host.
  virtual std::vector<std::string> notes(const std::vector<std::string>& counted) const = 0;

  // Every run of a configuration counts the same: one measured block decides and a
  // second confirms it, no warm-up is needed, and the exact analysis
  // (analysis/deterministic.h) reads the runs instead of the sequential one.
  virtual bool exact() const = 0;
  // The blocks and warm-up a command runs by default under this backend.
  virtual BlockPolicy block_policy() const = 0;
  // Wall time and rusage time the program itself (not a simulator running it), so the
  // driver's metrics are measurements and a dose can be compared with no counter.
  virtual bool times_the_program() const = 0;
  // In-process counting preloads the counting library into the target (perf_event);
  // the simulator only announces the list.
  virtual bool counts_in_the_target() const = 0;

  // One run of a check (`observer` must outlive the measurer).
  virtual std::unique_ptr<Measurer> check_measurer(const Plan& plan, const CheckSpec& spec,
                                                   const Observer& observer) const = 0;
  // One run of measure or a sweep, counting `counters`.
  virtual RunMeasurer run_measurer(const ResolvedCounters& counters) const = 0;
  // In-process counting: what the target's environment carries for a configuration
  // that announces the events `announced` (indexes into the spec's events) and
  // programs `programmed` of them.
  virtual void announce(EnvBlock& env, const CheckSpec& spec, const std::vector<std::size_t>& announced,
                        std::size_t programmed) const = 0;
};

// The choice. `sim` needs `geometry`; Error(usage) names a backend it does not know.
std::shared_ptr<const Backend> choose_backend(BackendKind kind, const std::optional<SimGeometry>& geometry = {});
// From the command line: --backend (read into its kind where the option is read) and
// --sim-cache (over this host's geometry), Error(usage) for a malformed geometry. A
// command that will measure calls require_here() once it has checked the rest of what
// it was asked, before it writes anything.
std::shared_ptr<const Backend> choose_backend(BackendKind kind, const std::string& sim_cache);
// As a request (or a journal's) records it: no host check.
std::shared_ptr<const Backend> choose_backend(const CheckRequest& request);

}  // namespace obscheck
