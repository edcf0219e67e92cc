#include "report/fidelity_report.h"

#include <fmt/core.h>

#include <algorithm>
#include <nlohmann/json.hpp>

namespace obscheck {
namespace {

// The function column's least width; a longer name widens it for its dose.
constexpr std::size_t kFidelityNameColumn = 28;

std::string share_pct(double share) { return fmt::format("{:.1f}%", 100 * share); }
std::string share_points(double share) { return fmt::format("{:g}", 100 * share); }
std::string share_points1(double share) { return fmt::format("{:.1f}", 100 * share); }

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
  std::string out = fmt::format("  {}: {:.0f} samples ({:.0f} outside the reference's functions); hot list {}; {}\n",
                                d.dose, d.samples, d.outside, to_string(d.hot_list), to_string(d.agreement));
  for (const ShareCheck& s : d.functions)
    out += fmt::format("    {:<{}} reference {:>6}   profile {:>6} [{}, {}]   {}\n", s.function, width, share_pct(s.reference),
                       share_pct(s.share), share_points1(s.lo), share_points1(s.hi),
                       s.agreement == Agreement::agrees    ? fmt::format("within ±{} points", share_points(tolerance))
                       : s.agreement == Agreement::differs ? fmt::format("beyond ±{} points", share_points(tolerance))
                                                           : "undecided: too few samples");
  return out;
}

}  // namespace

std::string fidelity_answer(const FidelityResult& r) {
  const std::string tol = share_points(r.options.tolerance);
  if (r.agreement == Agreement::agrees) {
    double fewest = r.doses.empty() ? 0 : r.doses.front().samples - r.doses.front().outside;
    for (const DoseFidelity& d : r.doses) fewest = std::min(fewest, d.samples - d.outside);
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

std::string fidelity_text(const FidelityRun& run, const FidelityResult& r) {
  std::string out = fmt::format("obscheck fidelity: {}\n", fidelity_join(run.target, " "));
  std::vector<std::string> hot;
  if (!r.doses.empty())  // every dose compares the reference's hot list, with its shares
    for (const ShareCheck& s : r.doses.front().functions)
      if (std::find(r.reference_hot.begin(), r.reference_hot.end(), s.function) != r.reference_hot.end())
        hot.push_back(fmt::format("{} {}", s.function, share_pct(s.reference)));
  out += fmt::format("  reference: {}, {:.0f} counted in all; hot list: {}\n", run.reference_tool, r.reference_total,
                     hot.empty() ? fidelity_join(r.reference_hot, ", ") : fidelity_join(hot, ", "));
  out += fmt::format("  profiles: perf record -e {} -F <dose>; tolerance ±{} share points; intervals: Wilson, {:g}% "
                     "for the whole table (Bonferroni, z = {:.3f})\n\n",
                     run.event, share_points(r.options.tolerance), 100 * r.options.confidence, r.z);
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
  out += "note: the reference counts instructions, not time: a function's instruction share is its time share only "
         "when the functions run at similar instructions per cycle\n";
  out += "note: a sample outside the reference's functions (the kernel, the profiler's start-up, code the reference "
         "never ran) is left out of the shares; code without a symbol is [unknown] in both\n";
  return out;
}

std::string fidelity_json(const FidelityRun& run, const FidelityResult& r) {
  using nlohmann::json;
  json doses = json::array();
  for (std::size_t i = 0; i < r.doses.size(); ++i) {
    const DoseFidelity& d = r.doses[i];
    json fns = json::array();
    for (const ShareCheck& s : d.functions)
      fns.push_back({{"function", s.function}, {"reference", s.reference}, {"samples", s.samples},
                     {"share", s.share}, {"ci", {{"lo", s.lo}, {"hi", s.hi}}}, {"agreement", to_string(s.agreement)}});
    doses.push_back({{"dose", d.dose}, {"hz", i < run.hz.size() ? json(run.hz[i]) : json(nullptr)},
                     {"samples", d.samples}, {"outside", d.outside}, {"hot", d.hot},
                     {"hot_list", to_string(d.hot_list)}, {"agreement", to_string(d.agreement)}, {"functions", fns}});
  }
  const json j = {{"schema", "obscheck-fidelity"}, {"version", kFidelityJsonVersion}, {"target", run.target},
                  {"event", run.event}, {"reference", {{"tool", run.reference_tool}, {"total", r.reference_total},
                                                       {"hot", r.reference_hot}}},
                  {"tolerance", r.options.tolerance}, {"top", r.options.top}, {"min_share", r.options.min_share},
                  {"confidence", r.options.confidence}, {"z", r.z}, {"doses", doses}, {"spread", r.spread},
                  {"spread_function", r.spread_function}, {"stable", r.stable},
                  {"agreement", to_string(r.agreement)}, {"answer", fidelity_answer(r)}};
  return j.dump(2) + "\n";
}

}  // namespace obscheck
