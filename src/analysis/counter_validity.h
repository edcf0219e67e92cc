// analysis/: how far each counter's readings can be trusted, per configuration
// (findings.h CounterValidity). Pure: the plan and the run table in, the facts out;
// no I/O, no clocks.
//
// A count is only as good as the time it was counted: the kernel multiplexes counters
// when more are asked for than the PMU has, and then a reading is its raw count scaled
// by time_enabled / time_running, an estimate (observe/reading.h). And a counter that
// counts exactly may still differ from run to run of the same program: Weaver,
// Terpstra and Moore, "Non-determinism and overcount on modern hardware performance
// counter implementations", find only a few events deterministic. So every report
// says, per counter and per configuration, how much of each run it ran, whether it
// was scaled, and whether it gave the same count in every run of the A/A control (or,
// where the A/A copy counts nothing, of the counter's reference configuration).
#pragma once

#include <vector>

#include "analysis/findings.h"
#include "plan/plan.h"
#include "record/run_table.h"

namespace obscheck {

// One entry per counter metric of `metrics` (MetricInfo::driver false) that some
// measured run read, in metric order. The A/A runs are those of plan.baselines[0] and
// plan.aa (none when the plan has no A/A control); the reference is the configuration
// whose solo_of is the metric's counter, held layout first.
std::vector<CounterValidity> counter_validity(const Plan& plan, const RunTable& t,
                                              const std::vector<MetricInfo>& metrics);

}  // namespace obscheck
