// job/: obscheck fidelity's profiles: the reference (cachegrind's instructions per
// function, once) and perf record's samples at each rate, each tool run on its own
// (observe/profile.h), then their agreement (analysis/fidelity.h). cli/cmd_fidelity.cpp
// prints the table and picks the exit code.
#pragma once

#include <cstddef>
#include <functional>
#include <string>
#include <vector>

#include "analysis/fidelity.h"
#include "report/fidelity_report.h"

namespace obscheck {

// What fidelity is asked.
struct FidelityRequest {
  std::vector<std::string> target;  // PROG ARGS, PROG as written
  std::string frequencies;          // --sample-freq ("": 99,999)
  std::string event;                // --sample-event ("": cpu-clock, any host has it)
  double tolerance = 0.05;          // --tolerance
  std::size_t top = 5;              // --top
  double confidence = 0.95;         // --confidence
};

// The run as the report names it, and what the profiles say.
struct FidelityOutcome {
  FidelityRun run;
  FidelityResult result;
};

// Resolves the program on PATH (Error(target) when missing or not executable, before
// any tool starts), profiles it and assesses each rate against the reference.
// `progress` hears of each tool as it starts. Error(usage) for a rate of 0.
FidelityOutcome run_fidelity(const FidelityRequest& r, const std::function<void(const std::string&)>& progress);

}  // namespace obscheck
