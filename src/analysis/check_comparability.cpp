// analysis/check: what makes a comparison incomparable: a run that exited otherwise
// than the baseline's, an output that differs, a multiplexed counter, a counter's fault,
// the instruction count moved by a counter dose; and the runs each reason names.
#include "analysis/check.h"
#include "analysis/check_internal.h"

#include <fmt/core.h>

#include <algorithm>
#include <cmath>
#include <map>
#include <set>
#include <tuple>

namespace obscheck::check_detail {
namespace {

using ExitSig = std::tuple<bool, int, int>;  // timed out, signal, exit code

ExitSig exit_sig(const RunTable& t, std::size_t row) {
  const bool timed_out = t.timed_out[row];
  const int signal = t.signal[row];
  return {timed_out, signal, signal || timed_out ? 0 : t.exit_code[row]};
}

std::string exit_past(const ExitSig& s) {
  if (std::get<0>(s)) return "timed out";
  if (std::get<1>(s)) return fmt::format("was killed by signal {}", std::get<1>(s));
  return fmt::format("exited with code {}", std::get<2>(s));
}

std::string exit_plural(const ExitSig& s) {
  if (std::get<0>(s)) return "time out";
  if (std::get<1>(s)) return fmt::format("are killed by signal {}", std::get<1>(s));
  return fmt::format("exit {}", std::get<2>(s));
}

template <class T>
T modal(const std::vector<T>& xs, const T& preferred) {
  std::map<T, std::size_t> count;
  for (const T& x : xs) ++count[x];
  T best = preferred;
  std::size_t best_n = count.count(preferred) ? count[preferred] : 0;
  for (const auto& [x, n] : count)
    if (n > best_n) best = x, best_n = n;
  return best;
}

// The runs the reasons name (Findings::incomparable), each run and reason once.
struct IncomparableRuns {
  std::vector<IncomparableRun> runs;
  std::set<std::pair<std::size_t, std::string>> seen;
  void add(const RunTable& t, std::size_t row, std::string why) {
    if (seen.emplace(t.index[row], why).second) runs.push_back({t.index[row], t.config[row], std::move(why)});
  }
};

// Exit status and output of `config` against `base` over the blocks where both ran.
// Empty: comparable.
std::string check_pair(const Plan& plan, const RunTable& t, const BlockRows& b, std::size_t config, std::size_t base,
                       IncomparableRuns& named) {
  std::vector<std::size_t> xs, ys;
  for (std::size_t k = 0; k < b.size(); ++k)
    if (b.row(k, config) != kNone && b.row(k, base) != kNone) xs.push_back(b.row(k, config)), ys.push_back(b.row(k, base));
  if (xs.empty()) return {};
  const std::string& id = plan.configs[config].id;

  std::vector<ExitSig> base_sigs;
  for (std::size_t r : ys) base_sigs.push_back(exit_sig(t, r));
  const ExitSig ref = modal(base_sigs, ExitSig{false, 0, 0});
  std::string reason;
  std::size_t odd = 0;
  for (std::size_t r : xs) {
    const ExitSig s = exit_sig(t, r);
    if (s == ref) continue;
    const std::string why = fmt::format("{} (baseline runs {})", exit_past(s), exit_plural(ref));
    if (!odd++) reason = fmt::format("{}: run {} {}", id, t.index[r], why);
    named.add(t, r, why);
  }
  for (std::size_t r : ys) {
    const ExitSig s = exit_sig(t, r);
    if (s == ref) continue;
    const std::string why = fmt::format("{} (the baseline's other runs {})", exit_past(s), exit_plural(ref));
    if (!odd++) reason = fmt::format("baseline {}: run {} {}", plan.configs[base].id, t.index[r], why);
    named.add(t, r, why);
  }
  if (odd > 1) reason += fmt::format(" ({} runs in all)", odd);
  if (!reason.empty()) return reason;

  std::vector<std::uint32_t> dx, dy;
  for (std::size_t r : xs)
    if (t.digest[r]) dx.push_back(t.digest[r]);
  for (std::size_t r : ys)
    if (t.digest[r]) dy.push_back(t.digest[r]);
  if (dx.empty() || dy.empty()) return {};
  const std::uint32_t mx = modal(dx, dx.front()), my = modal(dy, dy.front());
  if (mx == my) return {};
  for (std::size_t r : xs)
    if (t.digest[r] && t.digest[r] != my)
      named.add(t, r, fmt::format("output digest differs from the baseline's (sha256 {}…)",
                                  t.digests[t.digest[r]].substr(0, 12)));
  return fmt::format("{}: output differs from the baseline's (sha256 {}… vs {}…)", id, t.digests[mx].substr(0, 12),
                     t.digests[my].substr(0, 12));
}

// Multiplexed readings of a counter metric in the runs of both sides: the reason the
// comparison is incomparable, or empty. With `allow_scaled`, readings that ran are
// counted into c.scaled_runs instead; one that never ran still breaks it.
std::string check_multiplexed(const MetricInfo& m, Comparison& c, const Series& s, const RunTable& t,
                              const BlockRows& b, bool allow_scaled, IncomparableRuns& named) {
  const RunTable::Readings* col = t.find(m.name);
  if (!col) return {};
  std::size_t count = 0, never_ran = 0;
  double max_scale = 1;
  for (std::size_t k : s.joint) {
    for (std::size_t r : {b.row(k, c.config), b.row(k, c.baseline)}) {
      if (!col->multiplexed[r]) continue;
      const double scale = col->scale[r];
      const bool ran = std::isfinite(scale) && scale > 0;
      if (ran) max_scale = std::max(max_scale, scale);
      ran ? ++count : ++never_ran;
      if (ran && allow_scaled) continue;
      named.add(t, r, ran ? fmt::format("{} multiplexed (x{:.2f})", m.name, scale)
                          : fmt::format("{} never ran (multiplexed out)", m.name));
    }
  }
  if (allow_scaled) {
    c.scaled_runs = count;
    c.max_scale = max_scale;
    if (never_ran == 0) return {};
    return fmt::format("{}: {} never ran in {} run{} (multiplexed out): no value to compare", layout_name(c), m.name,
                       never_ran, never_ran == 1 ? "" : "s");
  }
  count += never_ran;
  if (count == 0) return {};
  return fmt::format("{}: {} multiplexed in {} run{} (scaled up to x{:.2f})", layout_name(c), m.name, count,
                     count == 1 ? "" : "s", max_scale);
}

// Readings of a counter metric in the pairs' runs that ran but hold no value: the
// counter read zero or negative (observe/reading.h `fault`). A fault is never a value,
// and leaving those runs out would compare what is left as if nothing happened: the
// comparison is incomparable. Empty: none.
std::string check_faults(const MetricInfo& m, const Comparison& c, const Series& s, const RunTable& t,
                         const BlockRows& b, IncomparableRuns& named) {
  const RunTable::Readings* col = t.find(m.name);
  if (!col) return {};
  std::size_t count = 0;
  for (std::size_t k : s.joint)
    for (std::size_t r : {b.row(k, c.config), b.row(k, c.baseline)}) {
      const double scale = col->scale[r];
      if (!(std::isfinite(scale) && scale > 0) || std::isfinite(col->value[r])) continue;
      ++count;
      named.add(t, r, fmt::format("{} fault: it ran but read zero or negative, no value", m.name));
    }
  if (count == 0) return {};
  return fmt::format("{}: {} read zero or negative in {} run{} (a fault, not a value)", layout_name(c), m.name, count,
                     count == 1 ? "" : "s");
}

}  // namespace

// What breaks comparability: exit status, output, multiplexing, faults, instructions.
Comparability check_comparability(const Plan& plan, const RunTable& t, const BlockRows& blocks, bool allow_scaled,
                                  Findings& f) {
  IncomparableRuns named;
  std::map<std::pair<std::size_t, std::size_t>, std::string> pair_checks;
  Comparability out{std::vector<std::string>(f.comparisons.size()), {}};
  for (std::size_t i = 0; i < f.comparisons.size(); ++i) {
    const Comparison& c = f.comparisons[i];
    const MetricInfo& m = f.metrics[c.metric];
    const auto key = std::make_pair(c.config, c.baseline);
    auto it = pair_checks.find(key);
    if (it == pair_checks.end())
      it = pair_checks.emplace(key, check_pair(plan, t, blocks, c.config, c.baseline, named)).first;
    out.incomparable[i] = it->second;
    if (!m.driver && out.incomparable[i].empty()) {
      const Series s = series_of(t, blocks, f, c);  // this comparison's pairs, for this pass only
      out.incomparable[i] = check_multiplexed(m, f.comparisons[i], s, t, blocks, allow_scaled, named);
      if (out.incomparable[i].empty()) out.incomparable[i] = check_faults(m, c, s, t, blocks, named);
    }
    if (plan.spec.doses_are_counters() && m.name == kInstructionsMetric && !c.aa && c.layout == Layout::held &&
        decisive_effect(c) && !out.level_incomparable.count(c.level_index))
      out.level_incomparable[c.level_index] = fmt::format(
          "instruction count moved where the dose adds no instructions (held: {})", effect_text(c, m.unit));
  }
  f.incomparable = std::move(named.runs);
  std::sort(f.incomparable.begin(), f.incomparable.end(),
            [](const IncomparableRun& a, const IncomparableRun& b) { return a.run_index < b.run_index; });
  return out;
}

}  // namespace obscheck::check_detail
