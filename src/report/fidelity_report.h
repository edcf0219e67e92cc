// report/: `obscheck fidelity` as text and as JSON — per dose, each compared function's
// share of the samples with its interval beside the reference's share and the verdict,
// the hot list, the spread across doses, and the answer in one line. Reporters return
// bytes; the numbers come from analysis/fidelity.h.
#pragma once

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
  std::string reference_tool = "valgrind --tool=cachegrind (instructions per function)";
};

// The one-line answer: agrees (with the fewest samples of a dose), differs (the worst
// function, its share and the reference's), or undecided (the doses with too few
// samples, and those that agree).
std::string fidelity_answer(const FidelityResult& r);
std::string fidelity_text(const FidelityRun& run, const FidelityResult& r);
// {"schema": "obscheck-fidelity", "version": kFidelityJsonVersion, ...} (docs/report-schema.md).
std::string fidelity_json(const FidelityRun& run, const FidelityResult& r);
inline constexpr int kFidelityJsonVersion = 1;

}  // namespace obscheck
