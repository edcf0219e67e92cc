// Calibration support: the one place the replays call the verdicts' analysis and read
// what it decided. When the analysis changes its inputs or where it keeps a drift flag
// or an effect, only this file and adapter.cpp change; the replays, the test and the
// benchmark stay as they are.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "analysis/findings.h"
#include "plan/plan.h"
#include "record/run_record.h"
#include "record/run_table.h"

namespace obscheck::calibration {

// One look of a replayed check.
struct LookInput {
  std::size_t look = 0;           // 0-based: which look of the schedule this is
  std::size_t looks_planned = 1;  // how many looks the schedule has
  std::uint64_t seed = 0;         // the analysis's own randomness (sign flips, bootstraps)
  double margin = 0.01;
  double alpha = 0.05;
  std::size_t threads = 0;        // as AnalysisOptions::threads
};

// The check's findings on the runs recorded so far (measured blocks only).
Findings analyse_look(const Plan& plan, const std::vector<RunRecord>& runs, const LookInput& in);
// The same on the runs' table (record/run_table.h run_table_of), which a replayed check
// extends block by block from one look to the next instead of rebuilding it.
Findings analyse_look(const Plan& plan, const RunTable& table, const LookInput& in);

// The first look the live check takes for this plan (its Holm family cannot decide
// anything sooner).
std::size_t first_look_of(const Plan& plan);

// The name of a verdict's metric ("task-clock", "wall-time", ...).
const std::string& metric_name(const Findings& f, std::size_t metric);

// Whether the findings let the check stop (every verdict decided).
bool decisive(const Findings& f);

// The verdict's estimated effect (ratio − 1) under held layout, if it has one.
std::optional<double> verdict_effect(const Findings& f, const LevelVerdict& v);

// The analysis's drift test flagged the comparison behind the verdict (whether or not
// that voided it).
bool drift_flagged(const Findings& f, const LevelVerdict& v);

}  // namespace obscheck::calibration
