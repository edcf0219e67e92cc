#include "run/check.h"

#include <algorithm>
#include <optional>
#include <stdexcept>

#include "launch/descendants.h"
#include "run/backend.h"
#include "run/measure.h"
#include "run/measurer.h"
#include "run/observers.h"
#include "run/signals.h"
#include "util/error.h"

namespace obscheck {
namespace {

// The padding variable's own bytes beyond its value: "OBSCHECK_PAD=" and the NUL.
constexpr std::size_t kPadOverhead = sizeof("OBSCHECK_PAD=");
// Enough for a line of numbers or an address; a journal line must stay small.
constexpr std::size_t kOutputHeadBytes = 200;

EnvBlock natural_environment(const CheckSpec& spec, const Configuration& c) {
  EnvBlock env = spec.base.env;
  if (spec.mode != CountingMode::inprocess) return env;
  spec.backend->announce(env, spec, event_indexes(spec, c.level.announced),
                         event_indexes(spec, c.level.programmed).size());
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
    rec.output_head = rec.exit.output.substr(0, std::min(rec.exit.output.find('\n'), kOutputHeadBytes));
  // What the target left running is killed before the next run starts, and named.
  const std::size_t left = kill_descendants();
  rec.left_behind = left;
  journal.append(rec);
  const bool failed = !rec.exit.ok() || (left > 0 && spec.fail_on_leftovers);
  const ExitInfo exit = rec.exit;
  result.appended.push_back(std::move(rec));
  if (!failed || spec.ignore_failure) return false;
  const std::string how = exit.ok() ? "left " + std::to_string(left) + " process" + (left == 1 ? "" : "es") +
                                          " running after it exited (--leftovers fail)"
                                    : describe_exit(exit, spec.base.timeout_s);
  result.failure = "the target " + how + " in run " + std::to_string(t.index) + " (" + c.id + ")" + trap_hint(exit);
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

std::vector<std::size_t> event_indexes(const CheckSpec& spec, const std::vector<std::size_t>& items) {
  std::vector<std::size_t> out;
  for (std::size_t item : items)
    for (std::size_t e : spec.item_events.at(item)) out.push_back(e);
  return out;
}

std::string left_behind_warning(const std::vector<RunRecord>& runs) {
  std::size_t n_runs = 0, processes = 0;
  std::string first;
  for (const RunRecord& r : runs) {
    const std::uint64_t n = r.left_behind;
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

SweepResult run_trials(const Plan& plan, const CheckSpec& spec, const std::vector<Trial>& trials,
                       JournalWriter& journal, const SweepProgressFn& progress,
                       const MeasurerFactory& make_measurer) {
  // The backend measures, and tells an in-process target what it counts.
  if (!spec.backend && (!make_measurer || spec.mode == CountingMode::inprocess))
    throw std::logic_error("run_trials: the check's spec has no backend (run/backend.h)");
  SweepResult result;
  const std::unique_ptr<Observer> observer = make_observer(spec.observer);
  // Per-configuration work done once, not per run: how the level starts the target,
  // in the environment of its layout, and what it counts (the measurer's).
  const std::size_t held_total = held_env_total(plan, spec);
  std::vector<LaunchSpec> launches;
  for (const Configuration& c : plan.configs) {
    launches.push_back(observer->launch(spec.base, c.level));
    launches.back().env = environment_for(plan, spec, c, held_total);
  }
  const std::unique_ptr<Measurer> measurer =
      make_measurer ? make_measurer(plan, spec, *observer) : spec.backend->check_measurer(plan, spec, *observer);

  // Declared before every child: what a run leaves behind is killed when the sweep
  // ends, however it ends.
  DescendantGuard descendants;
  InterruptGuard guard;
  // Every run is spawned under the guard's handlers: the signals a child must reset
  // are read once, not by each child (see non_default_signals).
  const std::vector<int> resets = non_default_signals();
  for (LaunchSpec& l : launches) l.reset_signals = resets;
  for (std::size_t i = 0; i < trials.size(); ++i) {
    if (InterruptGuard::interrupted()) break;
    const Trial& t = trials[i];
    const Configuration& c = plan.configs.at(t.config);
    if (progress) progress({i, trials.size(), &c});
    RunRecord rec = run_record_for(plan, t);
    if (!measurer->measure(t.config, launches[t.config], rec)) break;
    if (finish_run(spec, c, t, launches[t.config], std::move(rec), journal, result)) break;
  }
  if (progress) progress({result.appended.size(), trials.size(), nullptr});
  result.interrupted = InterruptGuard::interrupted();
  return result;
}

}  // namespace obscheck
