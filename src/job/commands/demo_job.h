// job/: obscheck demo's two parts as requests and its exit code as a decision. The
// first part is the check on a bundled workload, with whatever this host counts; the
// second (where valgrind is installed) the paper's layout effect on the simulated PMU,
// the paper's own set-up (Mytkowicz et al., "Observer Effect and Measurement Bias in
// Performance Analysis" §4.1.1): counters programmed in process by a preloaded wrapper
// told its events through the environment, crossed with the padding intervention
// (§5.1), so natural, held and sham are all shown. cli/cmd_demo.cpp lays each part
// over the user's options, runs it as a check and prints what the demo says.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "plan/plan.h"
#include "record/fail_on.h"
#include "record/request.h"

namespace obscheck {

// The outcome the second part was built to show (a --fail-on outcome of the check).
inline constexpr FindingKind kDemoLayoutFinding = FindingKind::layout;

// What the user's command line said that the demo reads.
struct DemoAsk {
  std::vector<std::string> target;  // empty: the bundled workload
  CounterList counters;             // empty: the check's default
  CountingMode mode = CountingMode::external;
  BackendKind backend = BackendKind::native;
  bool time_budget_given = false;
  std::string html;                 // empty: the demo's own page
  bool json_or_csv = false;
  bool fail_on_given = false;
};

// One part's check, as it differs from the user's options. An unset or empty field
// leaves the user's value.
struct DemoPart {
  std::vector<std::string> target;
  CounterList counters;
  CountingMode mode = CountingMode::inprocess;
  std::optional<BackendKind> backend;
  std::string sim_cache;
  std::optional<std::size_t> env_pad;
  std::optional<double> time_budget;  // seconds
  // Whether --time-budget auto may size this part's budget: not for the simulated
  // part, which is exact (decided at its first look, no warm-up noise to size by).
  bool sizes_budget = true;
  std::optional<std::uint64_t> seed;
  std::string html;
  FailOn fail_on;
  bool summary_only = false;          // the report prints its answer alone
  // The first part where this user may not count the kernel: the software events
  // alone, user level only (the demo says so, with the host's perf_event_paranoid).
  bool user_only = false;
  int paranoid = 0;
};

// The first part: the bundled `compute` workload unless a target was given, in process
// (the paper's set-up) unless a mode was, a 12 s budget unless one was, the demo's
// page. Reads the host's perf_event facts.
DemoPart demo_first_part(const DemoAsk& ask);

// The check's request a part asks for: the user's (`given`) with the part's own mode,
// counters, backend, geometry, environment pad, budget and seed where it sets them.
CheckRequest demo_part_request(CheckRequest given, const DemoPart& p);

// A fresh directory for the demo's journals and pages: demo-YYYYmmdd-HHMMSS (a
// suffix when taken) in the journal directory (util/state_dir.h), mode 0700, so the
// demo leaves nothing in the current directory. Throws Error(io) as journal_directory.
std::string demo_directory();

// Whether the second part runs: only for the bundled demo, since a user's own target
// or options asked a question of their own.
bool demo_runs_layout_part(const DemoAsk& ask);

// Whether the simulated backend would find valgrind (observe/sim.h find_valgrind).
bool demo_can_simulate();

// The second part, its run order drawn from `seed` (the first part's).
DemoPart demo_layout_part(std::uint64_t seed);

// A part ran to its end (its findings decided its code), or stopped (an error, a signal).
bool demo_part_finished(int code);

// The first part's own code: its verdicts decide only when the user named outcomes
// with --fail-on; a check that ran to the end otherwise showed what it found.
int demo_first_part_code(const DemoAsk& ask, int check_code);

}  // namespace obscheck
