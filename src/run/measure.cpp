#include "run/measure.h"

#include <fmt/core.h>

#include <csignal>
#include <cstring>

#include "launch/descendants.h"
#include "observe/counters.h"
#include "run/signals.h"
#include "util/error.h"

namespace obscheck {

std::string describe_exit(const ExitInfo& e, double timeout_s) {
  if (e.timed_out) return fmt::format("timed out after {:g} s and was killed", timeout_s);
  if (e.signal != 0) return fmt::format("was killed by signal {} ({})", e.signal, strsignal(e.signal));
  return fmt::format("exited with code {}", e.exit_code);
}

std::string trap_hint(const ExitInfo& e) {
  if (e.timed_out || e.signal != SIGTRAP) return "";
  // Seen on a KVM guest: about one run in 60 of a uprobe and a hardware breakpoint on
  // one function ended so, none in 200 with the breakpoint alone. A program that is
  // not debugged rarely traps itself.
  return "; a trap the program did not catch: where a hardware breakpoint or a uprobe is set, most likely the "
         "observer's own trap reaching it (seen on virtual machines), an effect of the observation";
}

SimRun run_sim_interruptible(const LaunchSpec& target, const SimGeometry& geometry,
                             const std::vector<SimEvent>& wanted) {
  struct ClearGroup {
    ~ClearGroup() { InterruptGuard::set_current_group(-1); }
  } clear_group;
  return run_sim(target, geometry, wanted, [](pid_t pid) { InterruptGuard::set_current_group(pid); });
}

RunOutcome measure_with_counters(const LaunchSpec& launch, const EventSet& events) {
  CorkedChild child = CorkedChild::spawn(launch);
  InterruptGuard::set_current_group(child.pid());
  struct ClearGroup {
    ~ClearGroup() { InterruptGuard::set_current_group(-1); }
  } clear_group;
  CounterSet counters = CounterSet::open(child.pid(), events);
  RunOutcome out;
  out.exit = child.release_and_wait();  // nothing to do between the two: one wake-up less
  out.readings = counters.read(out.exit.wall_ns);
  return out;
}

std::string measure_failure(const ExitInfo& e, int index, int warmup, int total, double timeout_s) {
  return fmt::format("the target {} in run {} of {}{}{}", describe_exit(e, timeout_s), index + 1, total,
                     index < warmup ? " (a warm-up run)" : "", trap_hint(e));
}

MeasureResult run_measure(const MeasureSpec& spec, const Progress& progress, const RunDone& done) {
  const RunMeasurer measure = spec.measurer ? spec.measurer : RunMeasurer(measure_with_counters);
  MeasureResult result;
  result.env_bytes = spec.launch.env.size_bytes();
  const int total = spec.warmup + spec.runs;
  // The runs' indexes in order; -1: a warm-up run again on resume, not recorded.
  std::vector<int> schedule;
  if (spec.first_run > 0)
    for (int w = 0; w < spec.warmup; ++w) schedule.push_back(-1);
  for (int i = spec.first_run; i < total; ++i) schedule.push_back(i);
  // What a run leaves running is killed before the next starts (launch/descendants.h).
  DescendantGuard descendants;
  InterruptGuard guard;
  // Every run is spawned under the guard's handlers (see non_default_signals).
  LaunchSpec launch = spec.launch;
  launch.reset_signals = non_default_signals();
  for (const int i : schedule) {
    if (InterruptGuard::interrupted()) break;
    MeasuredRun run;
    run.index = i;
    run.warmup = i < spec.warmup;
    try {
      RunOutcome out = measure(launch, spec.events);
      run.exit = std::move(out.exit);
      run.readings = std::move(out.readings);
    } catch (const Error&) {
      if (InterruptGuard::interrupted()) break;  // killed by us (valgrind too): no counts
      throw;
    }
    if (InterruptGuard::interrupted()) break;  // killed by us: not a measurement
    run.left_behind = kill_descendants();
    const bool failed = !run.exit.ok();
    if (failed && !spec.ignore_failure && i < 0) {
      result.failure = fmt::format("the target {} in a warm-up run before run {} of {}",
                                   describe_exit(run.exit, spec.launch.timeout_s), spec.first_run + 1, total);
      break;
    }
    if (i < 0) continue;
    if (done) done(run);
    result.runs.push_back(std::move(run));
    if (progress) progress(i + 1, total);
    if (failed && !spec.ignore_failure) {
      result.failure = measure_failure(result.runs.back().exit, i, spec.warmup, total, spec.launch.timeout_s);
      break;
    }
  }
  result.interrupted = InterruptGuard::interrupted();
  return result;
}

}  // namespace obscheck
