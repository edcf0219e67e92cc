// obscheck demo: the check on a bundled workload, with whatever this host counts, then
// (where valgrind is installed) the paper's layout effect on the simulated PMU —
// the paper's own set-up (Mytkowicz et al., "Observer Effect and Measurement Bias in Performance Analysis" §4.1.1): counters programmed in process by a
// preloaded wrapper told its events through the environment, crossed with the
// padding intervention (§5.1), so natural, held and sham are all shown.
#include <algorithm>
#include <fmt/core.h>
#include <unistd.h>

#include <filesystem>

#include "cli/commands.h"
#include "host/install_paths.h"
#include "cli/sim_backend.h"
#include "events/event.h"
#include "launch/launcher.h"
#include "observe/sim.h"
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
// The second part: the paper's layout effect on the simulated PMU (experiments/
// fig12-padding does the same). The `layout` workload's two half-cache buffers in a
// direct-mapped L1d miss by how far their sets overlap, so the counter list's bytes in
// the environment move l1d whenever they move the stack by a cache line.
constexpr const char* kLayoutHtml = "obscheck-demo-layout.html";
constexpr const char* kLayoutCounters = "l1d,instructions,branch-misses,cycles";
constexpr const char* kLayoutCache = "D1=2048,1,32";
// The environment is padded to this before the list is added (more when the user's is
// larger), so that the user's own environment's size does not decide the result.
constexpr std::size_t kLayoutEnvPad = 8192;
// The verdict the second part was built to show (a --fail-on outcome).
constexpr const char* kLayoutFinding = "layout";

// Where the simulated backend would find it (observe/sim.h find_valgrind).
bool has_valgrind() {
  try {
    find_valgrind();
    return true;
  } catch (const Error&) {
    return false;
  }
}

// The layout part runs for the bundled demo only: a user's own target or options asked
// a question of their own.
bool own_question(const Options& given) {
  return !given.target.empty() || !given.counters.empty() || sim_backend(given) || given.json || given.csv;
}

// The second part's check exits 1 exactly when some metric was explained by layout:
// the finding the part was built to show.
int layout_part(const Options& given, std::uint64_t seed) {
  Options o = given;
  o.command = Command::check;
  o.backend = BackendKind::sim;
  o.sim_cache = kLayoutCache;
  o.mode = CountingMode::inprocess;
  o.counters = kLayoutCounters;
  const std::size_t have = EnvBlock::for_target().size_bytes();
  o.env_pad = std::max(kLayoutEnvPad, (have / 4096 + 2) * 4096);
  o.target = {bundled_workload("layout"), "2000", "1024"};
  o.seed = seed;
  o.seed_given = true;
  o.html = kLayoutHtml;
  o.summary_only = true;
  o.demo_part = true;
  o.fail_on = {kLayoutFinding};
  fmt::print(stderr,
             "\nobscheck demo, part 2: the paper's layout effect, on the simulated PMU (valgrind's cachegrind,\n"
             "  {}): the same counters announced to a program whose cache misses depend only on where\n"
             "  its stack lands. 'natural' moves it with the list's bytes, 'held' does not.\n\n",
             kLayoutCache);
  return cmd_check(o);
}

bool finished(int code) { return code == static_cast<int>(ExitCode::ok) || code == static_cast<int>(ExitCode::findings); }

// The first part's own code: its verdicts decide only when the user named outcomes
// with --fail-on; a check that ran to the end otherwise showed what it found.
int first_part_code(const Options& given, int native) {
  return given.fail_on.empty() ? static_cast<int>(ExitCode::ok) : native;
}

// The demo's code once the first part ran to the end: whether the second part could
// run and showed its finding.
int second_part_code(const Options& given, const Options& first, int native) {
  if (own_question(given)) return first_part_code(given, native);
  if (!has_valgrind()) {
    fmt::print(stderr, "\nobscheck demo: the second part (the layout effect on the simulated PMU) needs valgrind: "
                       "sudo apt-get install valgrind (exit {})\n", static_cast<int>(ExitCode::host));
    return static_cast<int>(ExitCode::host);
  }
  const int layout = layout_part(given, first.seed_given ? first.seed : 1);
  if (!finished(layout)) return layout;  // interrupted
  if (layout != static_cast<int>(ExitCode::findings)) {
    fmt::print(stderr, "\nobscheck demo: the layout effect did not appear (no metric explained by layout); exit {}\n",
               static_cast<int>(ExitCode::findings));
    return static_cast<int>(ExitCode::findings);
  }
  const int code = first_part_code(given, native);
  fmt::print(stderr, "\nobscheck demo: both parts ran and the layout effect appeared, as built to show; exit {}\n", code);
  return code;
}

}  // namespace

// Exits 0 when the demo showed what it was built to show: the first part ran to the
// end (whatever this host's verdicts), and the second part found a metric explained by
// layout. Non-zero only when it could not run (an error's code; 7 without valgrind;
// 129/130/143 when stopped) or the layout effect did not appear (1). --fail-on makes
// the first part's verdicts count as in a check.
int cmd_demo(const Options& given) {
  Options o = given;
  o.command = Command::check;
  o.demo_part = true;
  if (o.target.empty()) o.target = {bundled_workload("compute"), kDemoScale};
  if (std::find(o.given.begin(), o.given.end(), "time-budget") == o.given.end()) o.time_budget = kDemoSeconds;
  if (given.mode == CountingMode::external) o.mode = CountingMode::inprocess;
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
  const int native = cmd_check(o);
  if (!finished(native)) return native;  // interrupted
  return second_part_code(given, o, native);
}

}  // namespace obscheck
