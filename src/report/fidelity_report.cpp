#include "report/fidelity_report.h"

#include <fmt/core.h>

#include <algorithm>
#include <cmath>
#include <nlohmann/json.hpp>

namespace obscheck {
namespace {

// The function column's least width; a longer name widens it for its dose.
constexpr std::size_t kFidelityNameColumn = 28;

std::string share_pct(double share) { return fmt::format("{:.1f}%", 100 * share); }
std::string share_points(double share) { return fmt::format("{:g}", 100 * share); }
std::string share_points1(double share) { return fmt::format("{:.1f}", 100 * share); }
std::string signed_points1(double share) { return fmt::format("{:+.1f}", 100 * share); }
std::string runs_of(std::size_t n) { return fmt::format("{} run{}", n, n == 1 ? "" : "s"); }

std::string fidelity_join(const std::vector<std::string>& parts, const std::string& sep) {
  std::string out;
  for (const std::string& p : parts) out += (out.empty() ? "" : sep) + p;
  return out;
}

// The compared function furthest from its reference at a dose that differs.
const ShareCheck* worst_share(const DoseFidelity& d) {
  const ShareCheck* w = nullptr;
  for (const ShareCheck& s : d.functions)
    if (s.agreement == Agreement::differs &&
        (!w || std::abs(s.share - s.reference) > std::abs(w->share - w->reference)))
      w = &s;
  return w;
}

std::string fidelity_dose_block(const DoseFidelity& d, double tolerance) {
  std::size_t width = kFidelityNameColumn;
  for (const ShareCheck& s : d.functions) width = std::max(width, s.function.size());
  std::string out = fmt::format(
      "  {}: {}, {:.0f} samples ({:.0f} in functions the reference never sampled); hot list {}; {}\n", d.dose,
      runs_of(d.runs), d.samples, d.outside, to_string(d.hot_list), to_string(d.agreement));
  for (const ShareCheck& s : d.functions)
    out += fmt::format("    {:<{}} reference {:>6} [{}, {}]   profile {:>6} [{}, {}]   difference {} [{}, {}]   {}\n",
                       s.function, width, share_pct(s.reference), share_points1(s.ref_lo), share_points1(s.ref_hi),
                       share_pct(s.share), share_points1(s.lo), share_points1(s.hi), signed_points1(s.share - s.reference),
                       signed_points1(s.diff_lo), signed_points1(s.diff_hi),
                       s.agreement == Agreement::agrees    ? fmt::format("within ±{} points", share_points(tolerance))
                       : s.agreement == Agreement::differs ? fmt::format("beyond ±{} points", share_points(tolerance))
                                                           : "undecided: too few samples yet");
  return out;
}

}  // namespace

std::string fidelity_answer(const FidelityResult& r) {
  const std::string tol = share_points(r.options.tolerance);
  if (r.agreement == Agreement::agrees) {
    double fewest = r.doses.empty() ? 0 : r.doses.front().samples;
    for (const DoseFidelity& d : r.doses) fewest = std::min(fewest, d.samples);
    return fmt::format("the profile agrees with the reference within ±{} share points at every dose ({:.0f} samples "
                       "at the fewest)",
                       tol, fewest);
  }
  std::vector<std::string> which;
  for (const DoseFidelity& d : r.doses) {
    if (d.agreement != r.agreement) continue;
    const ShareCheck* w = r.agreement == Agreement::differs ? worst_share(d) : nullptr;
    which.push_back(w ? fmt::format("{} ({} {} against {})", d.dose, w->function, share_pct(w->share), share_pct(w->reference))
                      : d.dose);
  }
  if (r.agreement == Agreement::differs)
    return fmt::format("the profile differs from the reference beyond ±{} share points at {}", tol, fidelity_join(which, ", "));
  std::vector<std::string> agreeing;
  for (const DoseFidelity& d : r.doses)
    if (d.agreement == Agreement::agrees) agreeing.push_back(d.dose);
  return fmt::format("undecided: too few samples at {} to tell within ±{} share points{}", fidelity_join(which, ", "), tol,
                     agreeing.empty() ? "" : "; agrees at " + fidelity_join(agreeing, ", "));
}

std::string fidelity_stop(const FidelityRun& run) {
  const std::string rounds = fmt::format("{} round{}", run.rounds, run.rounds == 1 ? "" : "s");
  if (run.interrupted) return fmt::format("interrupted after {}: the table covers them", rounds);
  if (run.complete) return fmt::format("every dose decided after {}", rounds);
  if (run.time_budget > 0 && run.rounds > 0)
    return fmt::format("the time budget ({:g} s) stopped them after {}, with a dose undecided (more time: "
                       "--time-budget)",
                       run.time_budget, rounds);
  return fmt::format("{}, the most one invocation runs, with a dose undecided", rounds);
}

std::string fidelity_text(const FidelityRun& run, const FidelityResult& r) {
  std::string out = fmt::format("obscheck fidelity: {}\n", fidelity_join(run.target, " "));
  std::vector<std::string> hot;
  if (!r.doses.empty())  // every dose compares the reference's hot list, with its shares
    for (const ShareCheck& s : r.doses.front().functions)
      if (std::find(r.reference_hot.begin(), r.reference_hot.end(), s.function) != r.reference_hot.end())
        hot.push_back(fmt::format("{} {}", s.function, share_pct(s.reference)));
  out += fmt::format("  reference: {}; {}, {:.0f} samples; hot list: {}\n", run.reference_tool, runs_of(r.reference_runs),
                     r.reference_total, hot.empty() ? fidelity_join(r.reference_hot, ", ") : fidelity_join(hot, ", "));
  out += fmt::format("  profiles: perf record -e {} -F <dose>, one run per dose each round, pooled; {}\n", run.event,
                     !run.run_as.empty() ? "the target ran as " + run.run_as
                     : run.as_root       ? "warning: the target ran as root (--run-as USER runs it as USER)"
                                         : "the target ran as obscheck's user");
  out += fmt::format("  tolerance ±{} share points; intervals: Wilson per share, Newcombe for the difference, {:g}% "
                     "for the whole table over every look (Bonferroni, z = {:.3f} at look {})\n",
                     share_points(r.options.tolerance), 100 * r.options.confidence, r.z, r.look);
  out += "  stopped: " + fidelity_stop(run) + "\n\n";
  for (const DoseFidelity& d : r.doses) out += fidelity_dose_block(d, r.options.tolerance);
  if (r.doses.size() < 2)
    out += "\n  across doses: one dose, nothing to compare\n";
  else
    out += fmt::format("\n  across doses: the largest spread of a share is {} points{}: {}\n", share_points1(r.spread),
                       r.spread_function.empty() ? "" : " (" + r.spread_function + ")",
                       r.stable ? fmt::format("stable within ±{} points, the same hot functions",
                                              share_points(r.options.tolerance))
                                : "not stable");
  out += "  answer: " + fidelity_answer(r) + "\n";
  out += "note: shares are of every sample (the kernel's, [k], and code without a symbol, [unknown], included); the "
         "reference samples CPU time at low rates that share no period, so no loop of the program keeps step with it\n";
  return out;
}

std::string fidelity_json(const FidelityRun& run, const FidelityResult& r) {
  using nlohmann::json;
  json doses = json::array();
  for (std::size_t i = 0; i < r.doses.size(); ++i) {
    const DoseFidelity& d = r.doses[i];
    json fns = json::array();
    for (const ShareCheck& s : d.functions)
      fns.push_back({{"function", s.function}, {"reference", s.reference},
                     {"reference_ci", {{"lo", s.ref_lo}, {"hi", s.ref_hi}}}, {"samples", s.samples},
                     {"share", s.share}, {"ci", {{"lo", s.lo}, {"hi", s.hi}}},
                     {"difference_ci", {{"lo", s.diff_lo}, {"hi", s.diff_hi}}}, {"agreement", to_string(s.agreement)}});
    doses.push_back({{"dose", d.dose}, {"hz", i < run.hz.size() ? json(run.hz[i]) : json(nullptr)}, {"runs", d.runs},
                     {"samples", d.samples}, {"outside", d.outside}, {"hot", d.hot},
                     {"hot_list", to_string(d.hot_list)}, {"agreement", to_string(d.agreement)}, {"functions", fns}});
  }
  const json j = {{"schema", "obscheck-fidelity"}, {"version", kFidelityJsonVersion}, {"target", run.target},
                  {"event", run.event}, {"run_as", run.run_as.empty() ? json(nullptr) : json(run.run_as)},
                  {"target_as_root", run.as_root},
                  {"reference", {{"tool", run.reference_tool}, {"runs", r.reference_runs}, {"samples", r.reference_total},
                                 {"hot", r.reference_hot}}},
                  {"tolerance", r.options.tolerance}, {"top", r.options.top}, {"min_share", r.options.min_share},
                  {"confidence", r.options.confidence}, {"look", r.look}, {"z", r.z},
                  {"rounds", run.rounds}, {"complete", run.complete}, {"interrupted", run.interrupted},
                  {"time_budget", run.time_budget}, {"stopped", fidelity_stop(run)}, {"doses", doses},
                  {"spread", r.spread}, {"spread_function", r.spread_function}, {"stable", r.stable},
                  {"agreement", to_string(r.agreement)}, {"answer", fidelity_answer(r)}};
  return j.dump(2) + "\n";
}

}  // namespace obscheck
