// run/: how one run of a check is measured, chosen once per check by its backend
// (run/backend.h):
//   perf_event from outside (external): the configuration's counters, and the
//     observer's events beside them, opened on the corked child;
//   perf_event from inside (inprocess): the preloaded library counts the announced
//     list in the target and reports over a pipe;
//   the simulated PMU: cachegrind runs the target and counts.
// The runner (run/check.h run_trials) walks the trials and journals the runs; the
// measurer runs one and fills its record.
#pragma once

#include <memory>

#include "launch/launcher.h"
#include "observe/sim.h"
#include "plan/plan.h"
#include "record/run_record.h"
#include "run/check.h"
#include "run/observers.h"

namespace obscheck {

class Measurer {
 public:
  virtual ~Measurer() = default;
  // Runs configuration `config` once from its prepared `launch` and fills rec.exit,
  // rec.readings, the host's load around the run and what the observer recorded.
  // False: the run was cut short by an interrupt, so it is not a measurement and is
  // not journalled. Throws Error(event) when a counter cannot be opened, Error(target)
  // when the target cannot be executed.
  virtual bool measure(std::size_t config, LaunchSpec& launch, RunRecord& rec) = 0;
};

// perf_event: the observer's own measurer for a profiler command, else counters from
// outside or inside. `observer` must outlive the measurer.
std::unique_ptr<Measurer> make_native_measurer(const Plan& plan, const CheckSpec& spec, const Observer& observer);
// The simulated PMU with this cache geometry.
std::unique_ptr<Measurer> make_sim_measurer(const Plan& plan, const CheckSpec& spec, const SimGeometry& geometry);

}  // namespace obscheck
