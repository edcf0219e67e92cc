// report/: `obscheck fidelity` as text and as JSON — per dose, each compared function's
// share of the pooled samples with its interval beside the reference's share and its
// interval, the difference's interval and the verdict, the hot list, the spread across
// doses, why the rounds stopped, and the answer in one line. Reporters return bytes;
// the numbers come from analysis/fidelity.h.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "analysis/fidelity.h"

namespace obscheck {

// What ran, for the report's header and JSON.
struct FidelityRun {
  std::vector<std::string> target;  // PROG ARGS
  std::string event;                // the sampled event
  std::vector<std::uint64_t> hz;    // per dose, in the result's order
  std::string reference_tool = "CPU time per function: perf record -e cpu-clock at a prime rate of 461-523 Hz, "
                               "a different one each round, pooled";
  std::string run_as;               // --run-as ("": as obscheck ran)
  bool as_root = false;             // the target ran as root (no --run-as, obscheck as root)
  double time_budget = 0;           // seconds; 0: none
  std::size_t rounds = 0;           // rounds done (one profile of the reference and of each dose each)
  bool complete = false;            // every dose decided
  bool interrupted = false;         // a signal stopped the rounds
};

// The one-line answer: agrees (with the fewest samples of a dose), differs (the worst
// function, its share and the reference's), or undecided (the doses with too few
// samples, and those that agree).
std::string fidelity_answer(const FidelityResult& r);
// Why the rounds stopped: every dose decided, the budget, the round cap, or a signal.
std::string fidelity_stop(const FidelityRun& run);
std::string fidelity_text(const FidelityRun& run, const FidelityResult& r);
// {"schema": "obscheck-fidelity", "version": kFidelityJsonVersion, ...} (docs/report-schema.md).
std::string fidelity_json(const FidelityRun& run, const FidelityResult& r);
inline constexpr int kFidelityJsonVersion = 2;

}  // namespace obscheck
