// run/: the sweep runner of the main job. Walks the plan's trials; for each, builds
// the target's exact environment for the configuration's layout, corks a child
// (launch/), attaches the configuration's counters (observe/: from outside, or in
// process through the preloaded library), releases it, waits, and appends one run
// line to the journal (record/) before the next trial starts. Never prints and never
// decides: progress goes through a callback, verdicts are analysis/'s.
#pragma once

#include <cstddef>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "events/event.h"
#include "launch/launcher.h"
#include "observe/observer_kinds.h"
#include "observe/sim.h"
#include "plan/observer.h"
#include "plan/plan.h"
#include "record/journal.h"
#include "record/run_record.h"

namespace obscheck {

class Backend;   // run/backend.h
class Measurer;  // run/measurer.h
class Observer;  // run/observers.h

struct CheckSpec {
  LaunchSpec base;             // the target in its base context (environment before any observer)
  EventSet events;             // every event of the --counters list, parsed
  // item_events[i]: the events of plan counter item i (one, or a {group}'s members).
  std::vector<std::vector<std::size_t>> item_events;
  CountingMode mode = CountingMode::external;
  std::string probe_library;   // inprocess: libobsprobe.so
  bool ignore_failure = false;
  // The first line (up to 200 bytes) of what the target printed goes into each run
  // line as extra.output_head only when true (--keep-output-head): output can hold
  // what the target prints (tokens, paths). Its digest and size are always kept.
  bool keep_output_head = false;
  // --leftovers fail: a run that leaves processes behind (killed after it, either way:
  // launch/descendants.h) is a failed run, as a non-zero exit is; else it is only
  // marked ("left_behind" in the run line's extra) and reported.
  bool fail_on_leftovers = false;
  ObserverSpec observer;
  // Where the counts come from (run/backend.h choose_backend): it measures every run
  // and tells an in-process target what it counts. Under simulation item_events index
  // sim_events and `events` stays empty.
  std::shared_ptr<const Backend> backend;
  std::vector<SimEvent> sim_events;
};

// The environment block size every held configuration is padded to: the largest
// environment any configuration of the plan gives the target, plus room for the
// padding variable itself. Constant over the sweep, so the stack does not move.
std::size_t held_env_total(const Plan& plan, const CheckSpec& spec);

// The exact environment of one configuration (pure; tests assert sizes).
EnvBlock environment_for(const Plan& plan, const CheckSpec& spec, const Configuration& c,
                         std::size_t held_total);

// The indexes into `events` (or `sim_events`) of these plan items' events, in order.
std::vector<std::size_t> event_indexes(const CheckSpec& spec, const std::vector<std::size_t>& items);

// The report's warning about runs that left processes behind (RunRecord::left_behind),
// or "" when none did.
std::string left_behind_warning(const std::vector<RunRecord>& runs);

struct SweepProgress {
  std::size_t done = 0, total = 0;
  const Configuration* config = nullptr;
};
using SweepProgressFn = std::function<void(const SweepProgress&)>;

struct SweepResult {
  std::vector<RunRecord> appended;  // in run order, each already durable in the journal
  bool interrupted = false;
  std::string failure;              // the run that failed and how (when not ignored)
};

// Makes the measurer of a check's runs (`observer` outlives it). The product always
// takes its backend's (Backend::check_measurer); a test hands in its own to run the
// loop without a host (tests/support/fake_measurer.h).
using MeasurerFactory =
    std::function<std::unique_ptr<Measurer>(const Plan& plan, const CheckSpec& spec, const Observer& observer)>;

// Runs `trials` in order, each measured by `make_measurer`'s measurer (empty: the
// spec's backend's). Throws Error(event) when a counter cannot be opened (on the
// first run that needs it: the message names it once), Error(target) when the target
// cannot be executed. A target that exits non-zero, is killed or times out is
// journalled (analysis names it as incomparable) and, unless ignore_failure, ends the
// sweep with `failure` set. After every run the target's descendants still running
// are killed and reaped (launch/descendants.h) and counted in the run line.
SweepResult run_trials(const Plan& plan, const CheckSpec& spec, const std::vector<Trial>& trials,
                       JournalWriter& journal, const SweepProgressFn& progress = {},
                       const MeasurerFactory& make_measurer = {});

}  // namespace obscheck
