// obscheck demo: its two parts (job/commands/demo_job.h) laid over the user's options, each run
// as a check, and what the demo says of them.
#include <fmt/core.h>

#include "cli/commands.h"
#include "job/commands/demo_job.h"
#include "util/error.h"

namespace obscheck {
namespace {

DemoAsk demo_ask(const Options& o) {
  return {o.target, o.request.counters, o.request.mode, o.request.backend,
          o.gave("time-budget"), o.html, o.json || o.csv, !o.fail_on.empty()};
}

// The check the part asks for: the user's options with the part's own. A part's exit
// code is the demo's to decide (cli/cmd_check.cpp).
Options part_options(const Options& given, const DemoPart& p) {
  Options o = given;
  o.command = Command::check;
  o.demo_part = true;
  o.target = p.target;
  o.request = demo_part_request(given.request, p);
  o.html = p.html;
  o.summary_only = p.summary_only;
  if (!p.sizes_budget) o.time_budget_auto = false;  // its own budget, which auto cannot size
  if (!p.fail_on.empty()) o.fail_on = p.fail_on;
  return o;
}

// The part's journal and page in the demo's own directory, where the user named none.
Options in_directory(Options o, const Options& given, const std::string& dir,
                     const char* journal) {
  if (dir.empty()) return o;  // every file named by the user
  if (given.html.empty() || o.html != given.html) o.html = dir + "/" + o.html;
  o.journal = dir + "/" + journal;
  return o;
}

int layout_part(const Options& given, std::uint64_t seed, const std::string& dir) {
  const DemoPart p = demo_layout_part(seed);
  fmt::print(stderr,
             "\nobscheck demo, part 2: the paper's layout effect, on the simulated PMU "
             "(valgrind's cachegrind,\n"
             "  {}): the same counters announced to a program whose cache misses depend only "
             "on where\n"
             "  its stack lands. 'natural' moves it with the list's bytes, 'held' does not.\n\n",
             p.sim_cache);
  return cmd_check(in_directory(part_options(given, p), given, dir, "layout.jsonl"));
}

// The demo's code once the first part ran to the end: whether the second part could
// run and showed its finding.
int second_part_code(const Options& given, const Options& first, int native,
                     const std::string& dir) {
  const DemoAsk ask = demo_ask(given);
  if (!demo_runs_layout_part(ask)) return demo_first_part_code(ask, native);
  if (!demo_can_simulate()) {
    fmt::print(stderr,
               "\nobscheck demo: the second part (the layout effect on the simulated PMU) needs "
               "valgrind: sudo apt-get install valgrind (exit {})\n",
               static_cast<int>(ExitCode::host));
    return static_cast<int>(ExitCode::host);
  }
  const int layout = layout_part(given, first.request.seed_given ? first.request.seed : 1, dir);
  if (!demo_part_finished(layout)) return layout;  // interrupted
  if (layout != static_cast<int>(ExitCode::findings)) {
    fmt::print(stderr,
               "\nobscheck demo: the layout effect did not appear (no metric explained by "
               "layout); exit {}\n",
               static_cast<int>(ExitCode::findings));
    return static_cast<int>(ExitCode::findings);
  }
  const int code = demo_first_part_code(ask, native);
  fmt::print(stderr,
             "\nobscheck demo: both parts ran and the layout effect appeared, as built to show; "
             "exit {}\n",
             code);
  return code;
}

}  // namespace

// Exits 0 when the demo showed what it was built to show: the first part ran to the
// end (whatever this host's verdicts), and the second part found a metric explained by
// layout. Non-zero only when it could not run (an error's code; 7 without valgrind;
// 129/130/143 when stopped) or the layout effect did not appear (1). --fail-on makes
// the first part's verdicts count as in a check.
int cmd_demo(const Options& given) {
  const DemoPart first = demo_first_part(demo_ask(given));
  // A directory of its own only for files the user did not name.
  const bool own_files =
      given.journal.empty() || given.html.empty() || demo_runs_layout_part(demo_ask(given));
  const std::string dir = own_files ? demo_directory() : std::string();
  Options o = in_directory(part_options(given, first), given, dir, "compute.jsonl");
  if (!given.journal.empty()) o.journal = given.journal;
  if (!o.json && !o.csv)
    fmt::print(stderr,
               "obscheck demo: does counting more events change {}?\n"
               "  The counters are programmed inside the program by a preloaded wrapper that "
               "reads its\n"
               "  event list from the environment, as in the paper; 'held' pads the environment "
               "to one\n"
               "  size, 'sham' announces the events but programs one.\n\n",
               o.target.front());
  if (first.user_only && !o.json && !o.csv)
    fmt::print(stderr,
               "  perf_event_paranoid is {} and you have no CAP_PERFMON: counting {} at user "
               "level only\n"
               "  (tsc needs kernel-level counting; sudo sysctl kernel.perf_event_paranoid=1 "
               "allows it).\n\n",
               first.paranoid, first.counters.text());
  if (!o.json && !o.csv && !dir.empty())
    fmt::print(stderr, "  The journals and pages go to {}\n\n", dir);
  const int native = cmd_check(o);
  if (!demo_part_finished(native)) return native;  // interrupted
  return second_part_code(given, o, native, dir);
}

}  // namespace obscheck
