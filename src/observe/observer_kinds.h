// observe/: one descriptor per kind of observer (plan/observer.h ObserverKind), in one
// table: which option chooses it and which of the journal's options recognises it on
// resume, what a check counts by default beside it, where it may act (in process,
// under the simulator), how its doses are resolved on this host into plan levels, and
// how the runner applies a level. job/check/check_setup.cpp walks the table instead of
// branching per kind; adding an observer adds a row here, its levels (plan/levels.h),
// its runner mechanism when no existing one fits (run/observers.cpp) and its options
// (cli/options.cpp).
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "events/event.h"
#include "launch/launcher.h"
#include "plan/levels.h"
#include "plan/observer.h"

namespace obscheck {

// What the runner needs of the chosen observer at a level (the level's knob says
// which dose: plan/levels.h LevelKnob).
struct ObserverSpec {
  ObserverKind kind = ObserverKind::counters;
  EventSet probes;                     // probes / breakpoints: level k attaches the first k
  EventDesc sample_event;              // sampling: the event sampled at the level's rate
  std::string command;                 // command: the wrapper template, level "wrap"
  std::string exec_shim;               // command: obscheck-exec, which starts the target (run/observers.h)
  std::vector<std::string> variants;   // build: the executable of each level
};

// Which counters a check counts when the user names none (run/backend.h maps it to the
// backend's CounterUse).
enum class DefaultCounters {
  dosed,            // the counter observer: the counters are its doses
  metrics,          // the counters are the metrics every level compares
  target_metrics,   // under a profiler command: the metrics of the target alone
};

// How the runner applies a level (run/observers.cpp make_observer): one mechanism per
// way of touching a run, which more than one observer may share.
enum class Attach {
  counters_only,    // the level's counters are programmed; nothing else
  counts_beside,    // the level's probes are opened with the counters (ProbesAttached)
  watches_child,    // a sampler watches the running child (SampledAt)
  wraps_launch,     // the target starts inside a profiler command (WrappedAt)
  runs_a_variant,   // the level's build of the program runs (BuiltVariantRun)
};

// What the doses of an observer are resolved from: the request, the counters every
// level programs, and the target.
struct DoseInputs {
  const ObserverRequest& request;
  const std::vector<std::string>& counters;  // the check's counter items, resolved
  bool times_the_program = true;             // the backend's metrics time the program (run/backend.h)
  const LaunchSpec& base;                    // the target as it starts without an observer
  std::string exec_shim;                     // obscheck-exec (host/install_paths.h), for a profiler command
};

// The doses resolved on this host: the plan's levels, least observation first, what
// the runner needs, and what the report says about them.
struct Doses {
  std::vector<Level> levels;
  ObserverSpec spec;
  std::vector<std::string> notes;
};

struct ObserverKindInfo {
  ObserverKind kind = ObserverKind::counters;
  // The command-line option that chooses the kind ("" for the counters, the default).
  std::string_view option;
  // The manifest's observer field (record/request.cpp) whose non-empty value says a
  // journal doses this kind: how a resumed journal recognises it ("" for the counters,
  // recognised when no other is).
  std::string_view resume_key;
  // The value of `option` as the request holds it, written under `resume_key` in the
  // manifest ("" when the request is of another kind); null for the counters.
  std::string (*given)(const ObserverRequest&) = nullptr;
  DefaultCounters counters = DefaultCounters::metrics;
  bool in_process = false;      // may count in process (--mode inprocess)
  bool varies_layout = false;   // crosses its levels with layouts_for(mode); else Layout::held alone
  // Why the simulator (--backend sim) cannot apply it, as "<subject> not apply under
  // simulation: <why>"; empty when it can.
  std::string_view sim_subject, sim_why;
  Attach attach = Attach::counters_only;
  // Throws as each resolution does (Error(usage|event|target)), before a journal is written.
  Doses (*doses)(const DoseInputs&) = nullptr;
  // The program the check runs when the command line names none or "{out}" (a build's
  // first variant); null for kinds that run the given program.
  std::string (*program)(const ObserverRequest&) = nullptr;
};

// Every kind, one row each, in the order of the enum.
std::span<const ObserverKindInfo> observer_kinds();
// The row of `kind`.
const ObserverKindInfo& observer_info(ObserverKind kind);
// The rates of --sample-freq (read once: plan/observer.h read_frequencies), as the
// check and fidelity both take them: each above 0 at most
// kernel.perf_event_max_sample_rate for `event` now (Error(event), exit 4, before
// anything runs); 0 is kept (the check's unsampled level). Returns `hz`.
const std::vector<std::uint64_t>& sample_frequencies(const std::vector<std::uint64_t>& hz, const EventDesc& event);

}  // namespace obscheck
