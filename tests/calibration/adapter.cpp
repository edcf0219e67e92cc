#include "calibration/adapter.h"

#include "analysis/check.h"
#include "record/run_table.h"

namespace obscheck::calibration {

Findings analyse_look(const Plan& plan, const std::vector<RunRecord>& runs, const LookInput& in) {
  return analyse_look(plan, run_table_of(runs), in);
}

Findings analyse_look(const Plan& plan, const RunTable& table, const LookInput& in) {
  AnalysisOptions o;
  o.margin = in.margin;
  o.alpha = in.alpha;
  o.looks_planned = in.looks_planned;
  o.seed = in.seed;
  o.threads = in.threads;
  return analyse_check(plan, table, o);
}

std::size_t first_look_of(const Plan& plan) { return first_look(plan); }

const std::string& metric_name(const Findings& f, std::size_t metric) { return f.metrics.at(metric).name; }

bool decisive(const Findings& f) { return f.decisive; }

std::optional<double> verdict_effect(const Findings& f, const LevelVerdict& v) {
  for (std::size_t i : v.comparisons) {
    const Comparison& c = f.comparisons.at(i);
    if (c.layout == Layout::held && !c.aa) return c.effect;
  }
  return std::nullopt;
}

bool drift_flagged(const Findings& f, const LevelVerdict& v) {
  for (std::size_t i : v.comparisons)
    if (!f.comparisons.at(i).drift.empty()) return true;
  return false;
}

}  // namespace obscheck::calibration
