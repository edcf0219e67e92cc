// job/: obscheck fidelity's profiles, in rounds: each round one run sampled for the
// reference (CPU time at a low prime rate, a different one each round; see
// analysis/fidelity.h for why that measures time per function) and one run at each
// --sample-freq not yet decided, in an order that rotates round by round, every
// profile of a kind pooled; after rounds 1, 2, 3, 5, 7, 11, 17, ... (each about 1.5
// times the last) and after the last round the pooled profiles are assessed, a dose
// decided is settled (analysis/fidelity.h keep_settled: not profiled again, its
// verdict kept), and the rounds stop when every dose is settled, when the time budget would be passed by one more round, or on
// SIGINT, SIGTERM or SIGHUP (the running tools' process group is killed; what was
// pooled is kept). The program runs corked as every measuring command runs it
// (launch/launcher.h), as --run-as's user when given; perf keeps obscheck's privileges
// and writes only into one private directory (util/temp_dir.h), removed at the end.
// cli/cmd_fidelity.cpp prints the table and picks the exit code.
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "analysis/fidelity.h"
#include "report/fidelity_report.h"

namespace obscheck {

// What fidelity is asked.
struct FidelityRequest {
  std::vector<std::string> target;  // PROG ARGS, PROG as written
  std::vector<std::uint64_t> frequencies;  // --sample-freq, read once (none: 99,999)
  std::string event;                // --sample-event ("": cpu-clock, any host has it)
  double tolerance = 0.05;          // --tolerance
  std::size_t top = 5;              // --top
  double confidence = 0.95;         // --confidence
  double time_budget = 60;          // --time-budget, seconds of rounds; 0: until decided (at most kMaxFidelityRounds)
  bool time_budget_auto = false;    // --time-budget auto: the check's, refused here (Error(usage))
  std::string run_as;               // --run-as USER ("": as obscheck runs)
};

// The most rounds one invocation runs, whatever the budget.
inline constexpr std::size_t kMaxFidelityRounds = 1000;

// The reference's rates, one per round in turn: primes near 500 Hz — an eighth of perf
// record's default 4000 Hz, a sampling interrupt every 2 ms of CPU time — none a
// multiple of another or a divisor of a timer tick's common rates (100, 250, 1000 Hz).
inline constexpr std::uint64_t kReferenceRates[] = {499, 487, 503, 491, 509, 479, 521, 467, 523, 461};

// The run as the report names it, and what the profiles say.
struct FidelityOutcome {
  FidelityRun run;
  FidelityResult result;  // when run.rounds > 0
};

// Resolves the program on PATH (Error(target) when missing or not executable, or when
// it has no function symbols: "cannot compare: no symbols"), checks every rate as the
// check does (Error(usage) for a rate that is not a whole number or is 0, Error(event)
// above kernel.perf_event_max_sample_rate), profiles it in rounds and assesses each
// rate against the reference. Error(target) also when, after the first round, most of
// the program's samples have no function name. `progress` hears of each round.
// A signal during the first round: run.rounds 0 and no result.
FidelityOutcome run_fidelity(const FidelityRequest& r, const std::function<void(const std::string&)>& progress);

// The exit code of a fidelity run: 128 + the signal's number when one stopped it
// (job/common/exit_codes.h), 1 (findings) when a rate's profile differs from the reference,
// else 0.
int fidelity_exit_code(const FidelityOutcome& f);

}  // namespace obscheck
