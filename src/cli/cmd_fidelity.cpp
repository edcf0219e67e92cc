// obscheck fidelity: is a sampling profiler's profile right, at each rate? perf record
// at each --sample-freq against a reference of CPU time per function, in rounds
// (job/commands/fidelity_job.h), then the table.
#include <fmt/core.h>

#include "cli/commands.h"
#include "job/commands/fidelity_job.h"
#include "report/fidelity_report.h"
#include "util/error.h"

namespace obscheck {

int cmd_fidelity(const Options& o) {
  const ObserverRequest& obs = o.request.observer;
  const FidelityRequest request{
      o.target, obs.frequencies, obs.sample_event, o.tolerance, static_cast<std::size_t>(o.top),
      o.confidence, o.request.time_budget, o.time_budget_auto, o.request.launch.run_as};
  const FidelityOutcome f = run_fidelity(request, [&o](const std::string& what) {
    if (o.progress) fmt::print(stderr, "obscheck fidelity: {}\n", what);
  });
  if (f.run.rounds > 0)
    emit(o, o.json ? fidelity_json(f.run, f.result) : fidelity_text(f.run, f.result));
  return fidelity_exit_code(f);
}

}  // namespace obscheck
