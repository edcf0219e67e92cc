// obscheck fidelity: is a sampling profiler's profile right, at each rate? perf record
// at each --sample-freq against a reference of CPU time per function, in rounds
// (job/fidelity_job.h), then the table.
#include <unistd.h>

#include <fmt/core.h>

#include "cli/commands.h"
#include "job/fidelity_job.h"
#include "report/fidelity_report.h"
#include "util/error.h"

namespace obscheck {

int cmd_fidelity(const Options& o) {
  if (o.time_budget_auto)
    throw Error(ErrorKind::usage, "obscheck fidelity: --time-budget auto is the check's; give seconds",
                "e.g. --time-budget 60 (the default), or 0: until every dose is decided");
  FidelityRequest request{o.target, o.request.observer.frequencies, o.request.observer.sample_event, o.tolerance,
                          static_cast<std::size_t>(o.top), o.confidence};
  request.time_budget = o.request.time_budget;
  request.run_as = o.request.launch.run_as;
  if (request.run_as.empty() && ::geteuid() == 0)
    fmt::print(stderr,
               "obscheck fidelity: warning: the target runs as root; add --run-as USER to run it as USER (perf keeps "
               "root's privileges; see docs/security.md)\n");
  const FidelityOutcome f = run_fidelity(request, [&o](const std::string& what) {
    if (o.progress) fmt::print(stderr, "obscheck fidelity: {}\n", what);
  });
  if (f.run.rounds > 0) emit(o, o.json ? fidelity_json(f.run, f.result) : fidelity_text(f.run, f.result));
  if (f.run.interrupted) return interrupted_exit_code();
  return f.result.agreement == Agreement::differs ? static_cast<int>(ExitCode::findings) : 0;
}

}  // namespace obscheck
