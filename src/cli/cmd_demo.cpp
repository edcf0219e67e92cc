// obscheck demo: the check on a bundled workload, with whatever this host counts —
// the paper's own set-up (Mytkowicz et al., "Observer Effect and Measurement Bias in Performance Analysis" §4.1.1): counters programmed in process by a
// preloaded wrapper told its events through the environment, crossed with the
// padding intervention (§5.1), so natural, held and sham are all shown.
#include <algorithm>
#include <fmt/core.h>
#include <unistd.h>

#include <filesystem>

#include "cli/commands.h"
#include "cli/install_paths.h"
#include "cli/sim_backend.h"
#include "events/event.h"
#include "util/error.h"

namespace obscheck {
namespace {

// The demo is the sequential check with a shorter budget: it stops as soon as every
// verdict is decided, and after 20 s of runs at the latest (about 300 blocks of its 22
// configurations), long enough for the verdicts a quiet machine can reach, short
// enough for a first look at the tool.
constexpr double kDemoSeconds = 20;
// compute 300 runs for about 2 ms: short enough that a block of 22 configurations
// takes well under a second.
constexpr const char* kDemoScale = "300";
constexpr const char* kDemoHtml = "obscheck-demo.html";
// The demo's counters where kernel counting is not allowed: the check's default
// software events without the TSC (see cmd_demo).
constexpr const char* kDemoUserCounters = "task-clock,page-faults,ctx-switches";

}  // namespace

int cmd_demo(const Options& given) {
  Options o = given;
  o.command = Command::check;
  if (o.target.empty()) o.target = {bundled_workload("compute"), kDemoScale};
  if (std::find(o.given.begin(), o.given.end(), "time-budget") == o.given.end()) o.time_budget = kDemoSeconds;
  if (given.mode == "external") o.mode = "inprocess";
  // The TSC comes from the msr PMU, which only counts all levels: where this user may
  // not count the kernel (a student at perf_event_paranoid 2), the demo counts the
  // software events alone, user level only, and says so.
  const HostPerfFacts host = read_host_perf_facts();
  const bool user_only = o.counters.empty() && !sim_backend(o) && !kernel_counting_allowed(host);
  if (user_only) o.counters = kDemoUserCounters;
  // The demo leaves its figures behind as one page a browser opens without a network.
  if (o.html.empty()) o.html = kDemoHtml;
  if (!o.json && !o.csv)
    fmt::print(stderr,
               "obscheck demo: does counting more events change {}?\n"
               "  The counters are programmed inside the program by a preloaded wrapper that reads its\n"
               "  event list from the environment, as in the paper; 'held' pads the environment to one\n"
               "  size, 'sham' announces the events but programs one.\n\n",
               o.target.front());
  if (user_only && !o.json && !o.csv)
    fmt::print(stderr,
               "  perf_event_paranoid is {} and you have no CAP_PERFMON: counting {} at user level only\n"
               "  (tsc needs kernel-level counting; sudo sysctl kernel.perf_event_paranoid=1 allows it).\n\n",
               host.paranoid, kDemoUserCounters);
  return cmd_check(o);
}

}  // namespace obscheck
