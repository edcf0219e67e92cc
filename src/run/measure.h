// run/: the `measure` runner — one configuration, repeated. Walks warm-ups then
// measured runs; for each, corks a child (launch/), attaches the counters
// (observe/), releases it, waits, and keeps the readings. Never prints; progress
// goes through a callback so cli/ decides whether and how to show it.
#pragma once

#include <cstddef>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "events/event.h"
#include "launch/launcher.h"
#include "observe/reading.h"
#include "observe/sim.h"

namespace obscheck {

// How one run of one configuration is measured, for measure and the context sweeps
// (a check's runs go through run/measurer.h, whose measurer also knows the plan's
// configurations). The backend is chosen once (run/backend.h); the runners call the
// measurer it gives and never ask which it is.
struct RunOutcome {
  ExitInfo exit;
  std::vector<Reading> readings;
};
using RunMeasurer = std::function<RunOutcome(const LaunchSpec&, const EventSet&)>;
// perf_event: the events opened as counters on the corked child, read after it exits.
// The child's process group is registered with the InterruptGuard while it runs.
RunOutcome measure_with_counters(const LaunchSpec& launch, const EventSet& events);

struct MeasureSpec {
  LaunchSpec launch;
  EventSet events;
  int runs = 10;
  int warmup = 1;
  bool ignore_failure = false;  // record failing runs and go on (else stop at the first)
  RunMeasurer measurer;         // the backend's (Backend::run_measurer); empty: measure_with_counters
  // A resumed measure: runs [0, first_run) are in its journal already. The warm-ups
  // are run again first, unrecorded (the host settles again after the break), then
  // runs first_run... as planned.
  int first_run = 0;
};

struct MeasuredRun {
  int index = 0;        // 0-based over all runs, warm-ups first
  bool warmup = false;
  ExitInfo exit;
  std::vector<Reading> readings;
  std::size_t left_behind = 0;  // processes the run left running, killed after it
};

struct MeasureResult {
  std::vector<MeasuredRun> runs;  // warm-ups included, marked; from first_run on
  std::size_t env_bytes = 0;
  bool interrupted = false;
  // Set when a run failed and ignore_failure was off: the run's index and why.
  std::string failure;
};

using Progress = std::function<void(int done, int total)>;
// Called with each recorded run as soon as it ended, before the next starts (the
// journal's line).
using RunDone = std::function<void(const MeasuredRun&)>;

// Throws Error(event) when a counter cannot be opened on the first run (once, not
// per run), Error(target) when the target cannot be executed.
MeasureResult run_measure(const MeasureSpec& spec, const Progress& progress = {}, const RunDone& done = {});

// observe/'s run_sim with the simulation's process group registered with the
// InterruptGuard while it runs (Ctrl-C kills valgrind and the program), cleared however
// it ends. Throws as run_sim; after Ctrl-C the caller sees interrupted() and an Error.
SimRun run_sim_interruptible(const LaunchSpec& target, const SimGeometry& geometry,
                             const std::vector<SimEvent>& wanted);

// "exited with code 3", "killed by signal 11 (Segmentation fault)", "timed out after 2 s"
std::string describe_exit(const ExitInfo& e, double timeout_s);

// What a run that ended by SIGTRAP most likely means when the target is observed by a
// hardware breakpoint or a uprobe (both trap the program): "; " and the explanation, or
// "" for any other end.
std::string trap_hint(const ExitInfo& e);

// Why a measure stopped at run `index` (0-based over all runs, warm-ups first):
// "the target exited with code 1 in run 3 of 11", with " (a warm-up run)" for one.
std::string measure_failure(const ExitInfo& e, int index, int warmup, int total, double timeout_s);

}  // namespace obscheck
