#include "analysis/check.h"

#include <fmt/core.h>

#include <algorithm>
#include <atomic>
#include <cmath>
#include <exception>
#include <limits>
#include <map>
#include <mutex>
#include <set>
#include <string_view>
#include <thread>
#include <tuple>
#include <utility>

#include "stats/changepoint.h"
#include "stats/descriptive.h"
#include "stats/hypothesis.h"
#include "stats/pipeline.h"
#include "util/error.h"

namespace obscheck {
namespace {

// A Monte Carlo sign-flip p-value is never below 1/(B+1), so with F comparisons in the
// Holm family the smallest adjusted p is F/(B+1): with DESIGN's B = 10,000 and the ~50
// comparisons of the default four counters, at alpha/4 per look nothing could ever be
// significant. B is raised until that floor is a tenth of the per-look alpha, capped
// (100,000 flips of 80 blocks take ~40 ms). Only comparisons whose p at DESIGN's B is
// already below the per-look alpha are resampled further: any other cannot become
// Holm-significant, since Holm only ever multiplies p. The larger run uses the same
// seed, so its first B patterns are the smaller run's: it refines, never redraws.
constexpr double kSignFlipResolutionFactor = 10;
constexpr std::size_t kMaxSignFlipResamples = 100000;

// The counter whose count the counter observer's dose must not move (DESIGN.md
// "incomparable": "instruction count moved where the dose adds none").
constexpr std::string_view kInstructionsMetric = "instructions";

constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();

// measured block -> the run of each configuration in it (nullptr: did not run).
using BlockRuns = std::map<std::size_t, std::vector<const RunRecord*>>;

// One comparison's paired data, beside its Comparison.
struct Series {
  std::vector<std::size_t> joint_blocks;  // both configurations ran (metric value or not)
  std::vector<std::size_t> blocks;        // ... and both have the metric: the pairs
  std::vector<double> x, y;               // config, baseline: raw values
  std::vector<double> d;                  // ln(x) - ln(y), or ln(x+1) - ln(y+1) (log1p)
};

// ---- formatting of the one-line reasons -------------------------------------------

std::string pct(double ratio_minus_one) {
  if (!std::isfinite(ratio_minus_one)) return "n/a";
  std::string s = fmt::format("{:+.1f}%", 100.0 * ratio_minus_one);
  return s == "-0.0%" ? "+0.0%" : s;
}

std::string estimate_text(const Comparison& c) {
  return fmt::format("{} [{}, {}]", pct(c.effect), pct(c.ci_lo), pct(c.ci_hi));
}

std::string margin_text(double margin) { return fmt::format("±{:g}%", 100.0 * margin); }

std::string layout_name(const Comparison& c) { return std::string(to_string(c.layout)); }

// ---- metrics -----------------------------------------------------------------------

struct DriverMetric {
  const char* name;
  const char* unit;
};
constexpr DriverMetric kDriverMetrics[] = {
    {"wall-time", "ns"},         {"user-time", "ns"},        {"system-time", "ns"},
    {"max-rss", "KiB"},          {"minor-faults(ru)", "count"}, {"vol-ctx-switches(ru)", "count"},
    {"invol-ctx-switches(ru)", "count"},
};

// perf's software clocks count nanoseconds.
std::string counter_unit(const std::string& name) {
  return (name == "task-clock" || name == "cpu-clock" || name == "duration_time") ? "ns" : "count";
}

double timeval_ns(const struct timeval& t) {
  return static_cast<double>(t.tv_sec) * 1e9 + static_cast<double>(t.tv_usec) * 1e3;
}

std::string trim(std::string_view s) {
  while (!s.empty() && (s.front() == ' ' || s.front() == '{')) s.remove_prefix(1);
  while (!s.empty() && (s.back() == ' ' || s.back() == '}')) s.remove_suffix(1);
  return std::string(s);
}

// The plan counter item named `name`, or a {group} item with `name` as a member.
std::optional<std::size_t> counter_by_name(const Plan& plan, const std::string& name) {
  for (std::size_t i = 0; i < plan.spec.counters.size(); ++i) {
    std::string_view item = plan.spec.counters[i];
    if (trim(item) == name) return i;
    while (!item.empty()) {
      const std::size_t comma = item.find(',');
      if (trim(item.substr(0, comma)) == name) return i;
      if (comma == std::string_view::npos) break;
      item.remove_prefix(comma + 1);
    }
  }
  return std::nullopt;
}

const Reading* find_reading(const RunRecord& run, const std::string& name) {
  for (const Reading& r : run.readings)
    if (r.name == name) return &r;
  return nullptr;
}

// ---- runs --------------------------------------------------------------------------

void validate(const AnalysisOptions& o) {
  if (!(o.margin > 0 && o.margin < 1))
    throw Error(ErrorKind::usage, fmt::format("margin {:g} is outside (0, 1)", o.margin),
                "give --margin as a fraction, e.g. 0.01 for ±1%");
  if (!(o.alpha > 0 && o.alpha < 1))
    throw Error(ErrorKind::usage, fmt::format("alpha {:g} is outside (0, 1)", o.alpha));
  if (o.looks_planned == 0) throw Error(ErrorKind::usage, "looks_planned must be at least 1");
}

BlockRuns index_runs(const Plan& plan, const std::vector<RunRecord>& runs, Findings& f) {
  BlockRuns blocks;
  std::size_t duplicates = 0;
  for (const RunRecord& r : runs) {
    require_run_in_plan(plan, r);
    if (r.warmup) {
      ++f.warmup_runs_dropped;
      continue;
    }
    ++f.runs;
    auto& slot = blocks.try_emplace(r.block, plan.configs.size(), nullptr).first->second;
    if (slot[r.config]) {
      ++duplicates;  // the first run of a trial is the one analysed
      continue;
    }
    slot[r.config] = &r;
  }
  for (const auto& [block, slot] : blocks) {
    const auto ran = static_cast<std::size_t>(std::count_if(slot.begin(), slot.end(), [](auto* p) { return p; }));
    if (ran == slot.size()) {
      ++f.measured_blocks;
    } else {
      f.notes.push_back(fmt::format("block {} is incomplete ({} of {} configurations ran): its pairs are used "
                                    "where both sides ran",
                                    block, ran, slot.size()));
    }
  }
  if (f.warmup_runs_dropped > 0)
    f.notes.push_back(fmt::format("{} warm-up runs (the first {} block{}) not analysed", f.warmup_runs_dropped,
                                  plan.spec.warmup_blocks, plan.spec.warmup_blocks == 1 ? "" : "s"));
  if (duplicates > 0)
    f.notes.push_back(fmt::format("{} runs repeat a trial already recorded; the first of each was used", duplicates));
  return blocks;
}

Series pair_series(const MetricInfo& m, const BlockRuns& blocks, std::size_t config, std::size_t base) {
  Series s;
  for (const auto& [block, slot] : blocks) {
    const RunRecord* rx = slot[config];
    const RunRecord* ry = slot[base];
    if (!rx || !ry) continue;
    s.joint_blocks.push_back(block);
    const auto vx = metric_value(m, *rx);
    const auto vy = metric_value(m, *ry);
    if (!vx || !vy) continue;
    s.blocks.push_back(block);
    s.x.push_back(*vx);
    s.y.push_back(*vy);
  }
  return s;
}

// ---- one comparison's statistics ---------------------------------------------------

// Below this many comparisons per thread, starting a thread costs more than it saves
// (one comparison's bootstrap and sign flips take ~0.15 ms at 20 blocks).
constexpr std::size_t kMinComparisonsPerThread = 4;

// Calls body(i) for i in [0, count), spread over up to `threads` threads (0: one per
// hardware thread). The first exception thrown by any call is rethrown here, after
// every thread has finished.
template <typename Body>
void for_each_index(std::size_t count, std::size_t threads, const Body& body) {
  if (threads == 0) threads = std::max(1u, std::thread::hardware_concurrency());
  threads = std::min(threads, count / kMinComparisonsPerThread);
  if (threads <= 1) {
    for (std::size_t i = 0; i < count; ++i) body(i);
    return;
  }
  std::atomic<std::size_t> next{0};
  std::exception_ptr failure;
  std::mutex failure_lock;
  const auto work = [&] {
    for (std::size_t i; (i = next.fetch_add(1)) < count;) {
      try {
        body(i);
      } catch (...) {
        const std::lock_guard<std::mutex> hold(failure_lock);
        if (!failure) failure = std::current_exception();
        next = count;  // the others stop after their current comparison
      }
    }
  };
  std::vector<std::thread> pool;
  for (std::size_t t = 1; t < threads; ++t) pool.emplace_back(work);
  work();
  for (std::thread& t : pool) t.join();
  if (failure) std::rethrow_exception(failure);
}

// Returns true when the sign flips were refined to fine_resamples.
bool compute(Comparison& c, Series& s, stats::PairedOptions po, std::size_t fine_resamples) {
  c.n = s.x.size();
  c.effect = c.ci_lo = c.ci_hi = kNaN;
  c.median_config = c.n ? stats::median(s.x) : kNaN;
  c.median_baseline = c.n ? stats::median(s.y) : kNaN;
  if (c.n < 2) return false;  // paired_log_effect needs two pairs; the verdict says "too few runs"
  const auto nonpositive = [](double v) { return v <= 0; };
  c.log1p = std::any_of(s.x.begin(), s.x.end(), nonpositive) || std::any_of(s.y.begin(), s.y.end(), nonpositive);
  std::vector<double> x = s.x, y = s.y;
  if (c.log1p) {
    for (double& v : x) v += 1;
    for (double& v : y) v += 1;
  }
  for (std::size_t i = 0; i < x.size(); ++i) s.d.push_back(std::log(x[i]) - std::log(y[i]));
  po.sign_flip_resamples = stats::kSignFlipResamples;
  stats::PairedEffect e = stats::paired_log_effect(x, y, po);
  const bool refine = !e.p_exact && e.p_value < po.alpha && fine_resamples > po.sign_flip_resamples;
  if (refine) {
    // Only the p-value changes with more flips: the same test on the same d and seed
    // paired_log_effect used, without recomputing its bootstrap and t intervals.
    stats::SignFlipOptions so;
    so.exact_max_n = po.sign_flip_exact_max_n;
    so.resamples = fine_resamples;
    so.seed = po.seed;
    const stats::SignFlipResult sf = stats::sign_flip_test(s.d, so);
    e.p_value = sf.p_value;
    e.p_method = fmt::format("sign-flip Monte Carlo (B={})", sf.patterns);
  }
  c.effect = e.effect;
  c.ci_lo = e.ci_ratio.lo - 1;
  c.ci_hi = e.ci_ratio.hi - 1;
  c.ci_method = e.ci_method;
  c.p_value = c.p_holm = e.p_value;
  c.p_method = e.p_method;
  c.equivalent = e.tost.equivalent;
  return refine;
}

bool ci_excludes_zero(const Comparison& c) { return c.n >= 2 && (c.ci_lo > 0 || c.ci_hi < 0); }

// A changepoint in d matters when the effect on either side would read differently:
// opposite signs, or one side within ±margin and the other beyond it, and the two
// sides more than the margin apart. Returns the drift text, or a note when ignored.
std::pair<std::string, std::string> drift_of(const Series& s, double margin) {
  stats::ChangepointOptions co;
  co.model = stats::ChangeModel::mean;
  const stats::Changepoints cp = stats::detect_changepoints(s.d, co);
  if (cp.starts.empty()) return {};
  std::vector<std::size_t> bounds{0};
  bounds.insert(bounds.end(), cp.starts.begin(), cp.starts.end());
  bounds.push_back(s.d.size());
  std::vector<double> eff;
  for (std::size_t j = 0; j + 1 < bounds.size(); ++j) {
    const std::span<const double> seg(s.d.data() + bounds[j], bounds[j + 1] - bounds[j]);
    eff.push_back(std::exp(stats::mean(seg)) - 1);
  }
  for (std::size_t i = 0; i < eff.size(); ++i)
    for (std::size_t j = i + 1; j < eff.size(); ++j) {
      const bool sign = eff[i] * eff[j] < 0;
      const bool side = (std::fabs(eff[i]) <= margin) != (std::fabs(eff[j]) <= margin);
      if (std::fabs(eff[i] - eff[j]) > margin && (sign || side))
        return {fmt::format("effect moved from {} to {} at block {}", pct(eff[i]), pct(eff[j]), s.blocks[bounds[j]]),
                {}};
    }
  return {{}, fmt::format("a changepoint in the difference series at block {} ({} then {}) does not change the "
                          "conclusion; ignored",
                          s.blocks[bounds[1]], pct(eff.front()), pct(eff[1]))};
}

// ---- incomparable runs -------------------------------------------------------------

using ExitSig = std::tuple<bool, int, int>;  // timed out, signal, exit code

ExitSig exit_sig(const ExitInfo& e) {
  return {e.timed_out, e.signal, e.signal || e.timed_out ? 0 : e.exit_code};
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

struct Named {
  std::vector<IncomparableRun> runs;
  std::set<std::pair<std::size_t, std::string>> seen;
  void add(const RunRecord& r, std::string why) {
    if (seen.emplace(r.index, why).second) runs.push_back({r.index, r.config, std::move(why)});
  }
};

// Exit status and output of `config` against `base` over the blocks where both ran.
// Empty: comparable.
std::string check_pair(const Plan& plan, const BlockRuns& blocks, std::size_t config, std::size_t base,
                       Named& named) {
  std::vector<const RunRecord*> xs, ys;
  for (const auto& [block, slot] : blocks)
    if (slot[config] && slot[base]) xs.push_back(slot[config]), ys.push_back(slot[base]);
  if (xs.empty()) return {};
  const std::string& id = plan.configs[config].id;

  std::vector<ExitSig> base_sigs;
  for (const RunRecord* r : ys) base_sigs.push_back(exit_sig(r->exit));
  const ExitSig ref = modal(base_sigs, ExitSig{false, 0, 0});
  std::string reason;
  std::size_t odd = 0;
  for (const RunRecord* r : xs) {
    const ExitSig s = exit_sig(r->exit);
    if (s == ref) continue;
    const std::string why = fmt::format("{} (baseline runs {})", exit_past(s), exit_plural(ref));
    if (!odd++) reason = fmt::format("{}: run {} {}", id, r->index, why);
    named.add(*r, why);
  }
  for (const RunRecord* r : ys) {
    const ExitSig s = exit_sig(r->exit);
    if (s == ref) continue;
    const std::string why = fmt::format("{} (the baseline's other runs {})", exit_past(s), exit_plural(ref));
    if (!odd++) reason = fmt::format("baseline {}: run {} {}", plan.configs[base].id, r->index, why);
    named.add(*r, why);
  }
  if (odd > 1) reason += fmt::format(" ({} runs in all)", odd);
  if (!reason.empty()) return reason;

  std::vector<std::string> dx, dy;
  for (const RunRecord* r : xs)
    if (!r->exit.output_digest.empty()) dx.push_back(r->exit.output_digest);
  for (const RunRecord* r : ys)
    if (!r->exit.output_digest.empty()) dy.push_back(r->exit.output_digest);
  if (dx.empty() || dy.empty()) return {};
  const std::string mx = modal(dx, dx.front()), my = modal(dy, dy.front());
  if (mx == my) return {};
  for (const RunRecord* r : xs)
    if (!r->exit.output_digest.empty() && r->exit.output_digest != my)
      named.add(*r, fmt::format("output digest differs from the baseline's (sha256 {}…)",
                                r->exit.output_digest.substr(0, 12)));
  return fmt::format("{}: output differs from the baseline's (sha256 {}… vs {}…)", id, mx.substr(0, 12),
                     my.substr(0, 12));
}

// Multiplexed readings of a counter metric in the runs of both sides. Empty: none.
std::string check_multiplexed(const MetricInfo& m, const Comparison& c, const Series& s,
                              const BlockRuns& blocks, Named& named) {
  std::size_t count = 0;
  double max_scale = 1;
  for (std::size_t block : s.joint_blocks) {
    const auto& slot = blocks.at(block);
    for (const RunRecord* r : {slot[c.config], slot[c.baseline]}) {
      const Reading* reading = find_reading(*r, m.name);
      if (!reading || !reading->multiplexed) continue;
      ++count;
      const bool ran = std::isfinite(reading->scale) && reading->scale > 0;
      if (ran) max_scale = std::max(max_scale, reading->scale);
      named.add(*r, ran ? fmt::format("{} multiplexed (x{:.2f})", m.name, reading->scale)
                        : fmt::format("{} never ran (multiplexed out)", m.name));
    }
  }
  if (count == 0) return {};
  return fmt::format("{}: {} multiplexed in {} run{} (scaled up to x{:.2f})", layout_name(c), m.name, count,
                     count == 1 ? "" : "s", max_scale);
}

// ---- verdicts ----------------------------------------------------------------------

struct Judged {  // per comparison, what the verdict rules need beside the Comparison
  std::string incomparable;
  bool rare = false;
};

struct Context {
  const Findings& f;
  const std::vector<Judged>& judged;
  const std::vector<std::string>& aa_failed;      // per metric: non-empty = the reason
  const std::vector<double>& aa_discrepancy;      // per metric: the failed A/A's largest |CI bound|
  const std::map<std::size_t, std::string>& level_incomparable;  // instructions moved
  double margin;
};

bool decisive_effect(const Comparison& c) { return c.significant && c.outside_margin; }

std::string effect_with_p(const Comparison& c) {
  return fmt::format("{}: {}, Holm p = {:.2g}", layout_name(c), estimate_text(c), c.p_holm);
}

// The first rule that applies, in the order of the header's table.
LevelJudgement judge_level(const Context& x, std::size_t metric, std::size_t level,
                                            const std::vector<std::size_t>& idx) {
  const auto& cs = x.f.comparisons;
  for (std::size_t i : idx)
    if (!x.judged[i].incomparable.empty()) return {Verdict::incomparable, x.judged[i].incomparable};
  if (auto it = x.level_incomparable.find(level); it != x.level_incomparable.end())
    return {Verdict::incomparable, it->second};

  if (!x.aa_failed[metric].empty()) {
    // A failed A/A measures a systematic error between identical configurations (order,
    // drift). It voids every claim that error could produce, but not an effect that
    // lies wholly beyond it: a held effect whose CI clears ±(ε + the A/A's largest
    // bound) cannot be that error.
    // Only where nothing else would leave the level inconclusive (too few runs, a rare
    // metric, drift): the exception must not skip those rules.
    const bool sound = std::all_of(idx.begin(), idx.end(), [&](std::size_t i) {
      return cs[i].n >= kMinPairedBlocks && !x.judged[i].rare && cs[i].drift.empty();
    });
    const double floor = x.margin + x.aa_discrepancy[metric];
    for (std::size_t i : idx)
      if (sound && cs[i].layout == Layout::held && cs[i].significant && (cs[i].ci_lo > floor || cs[i].ci_hi < -floor))
        return {Verdict::perturbed,
                fmt::format("{}; beyond the failed A/A control's own ±{:.1f}%", effect_with_p(cs[i]), 100 * floor)};
    return {Verdict::inconclusive, x.aa_failed[metric]};
  }
  for (std::size_t i : idx)
    if (cs[i].n < kMinPairedBlocks)
      return {Verdict::inconclusive,
              fmt::format("too few runs: {} blocks, need at least {} ({})", cs[i].n, kMinPairedBlocks,
                          layout_name(cs[i]))};
  for (std::size_t i : idx)
    if (x.judged[i].rare) {
      const MetricInfo& m = x.f.metrics[metric];
      return {Verdict::inconclusive,
              fmt::format("too few events to compare as a ratio (median {:g}{}{})", cs[i].median_baseline,
                          m.unit == "count" ? "" : " ", m.unit == "count" ? "" : m.unit),
              true};
    }
  for (std::size_t i : idx)
    if (!cs[i].drift.empty())
      return {Verdict::inconclusive, fmt::format("drift: {}: {}", layout_name(cs[i]), cs[i].drift)};

  const Comparison* held = nullptr;
  for (std::size_t i : idx)
    if (cs[i].layout == Layout::held) held = &cs[i];
  if (held && decisive_effect(*held)) return {Verdict::perturbed, effect_with_p(*held)};

  const std::string m = margin_text(x.margin);
  for (std::size_t i : idx)
    if (cs[i].layout != Layout::held && decisive_effect(cs[i]) && held && held->equivalent)
      return {Verdict::explained_by_layout,
              fmt::format("{}; held: {} within {}", effect_with_p(cs[i]), estimate_text(*held), m)};

  if (std::all_of(idx.begin(), idx.end(), [&](std::size_t i) { return cs[i].equivalent; })) {
    std::string list;
    for (std::size_t i : idx)
      list += fmt::format("{}{} {}", list.empty() ? "" : ", ", layout_name(cs[i]), estimate_text(cs[i]));
    return {Verdict::not_perturbed, fmt::format("within {} under {}", m, list)};
  }

  // Undecided: name the comparison that is neither, held first.
  std::vector<std::size_t> order = idx;
  std::stable_partition(order.begin(), order.end(), [&](std::size_t i) { return cs[i].layout == Layout::held; });
  for (std::size_t i : order)
    if (!cs[i].equivalent && !decisive_effect(cs[i]))
      return {Verdict::inconclusive,
              fmt::format("{}: {} — neither within {} nor beyond it; more runs would tell", layout_name(cs[i]),
                          estimate_text(cs[i]), m)};
  return {Verdict::inconclusive,
          fmt::format("{} beyond {}, but no held comparison tells layout from measurement", effect_with_p(cs[idx[0]]),
                      m)};
}

// ---- trends ------------------------------------------------------------------------

// The counter observer's prefix levels: levels[k-1] programs counters {0..k-1}.
std::vector<std::size_t> prefix_levels(const Plan& plan) {
  std::vector<std::size_t> out;
  for (std::size_t k = 1;; ++k) {
    std::vector<std::size_t> want(k);
    for (std::size_t i = 0; i < k; ++i) want[i] = i;
    std::optional<std::size_t> found;
    for (std::size_t li = 0; li < plan.spec.levels.size() && !found; ++li)
      if (plan.spec.levels[li].programmed == want) found = li;
    if (!found) return out;
    out.push_back(*found);
  }
}

// Page's test needs at least three ordered treatments to say more than a paired test,
// and three blocks for its normal approximation or exact table to mean anything.
constexpr std::size_t kMinTrendLevels = 3;
constexpr std::size_t kMinTrendBlocks = 3;

std::optional<Trend> trend_of(const Plan& plan, const BlockRuns& blocks, const MetricInfo& m, std::size_t metric,
                              Layout layout, const std::vector<std::size_t>& levels) {
  std::vector<std::size_t> configs;
  for (std::size_t li : levels)
    for (const Configuration& c : plan.configs)
      if (!c.aa_duplicate && c.level_index == li && c.layout == layout) configs.push_back(c.index);
  const std::size_t k = configs.size();
  if (k < kMinTrendLevels) return std::nullopt;
  std::vector<double> up, down;
  std::size_t n = 0;
  for (const auto& [block, slot] : blocks) {
    std::vector<double> row;
    for (std::size_t c : configs) {
      const auto v = slot[c] ? metric_value(m, *slot[c]) : std::nullopt;
      if (!v) break;
      row.push_back(*v);
    }
    if (row.size() != k) continue;
    ++n;
    up.insert(up.end(), row.begin(), row.end());
    down.insert(down.end(), row.rbegin(), row.rend());
  }
  if (n < kMinTrendBlocks) return std::nullopt;
  const stats::PageResult inc = stats::page_trend_test(up, k);
  const stats::PageResult dec = stats::page_trend_test(down, k);
  Trend t;
  t.metric = metric;
  t.layout = layout;
  t.levels = k;
  t.blocks = n;
  t.L = inc.l;
  t.p_value = inc.p_value;
  t.p_decreasing = dec.p_value;
  t.method = inc.exact && dec.exact ? "Page's L, exact" : "Page's L, normal approximation";
  return t;
}

}  // namespace

void require_run_in_plan(const Plan& plan, const RunRecord& run) {
  if (run.config >= plan.configs.size())
    throw Error(ErrorKind::io,
                fmt::format("run {} names configuration {}, but the plan has {}", run.index, run.config,
                            plan.configs.size()),
                "the journal was written for another plan");
}

std::optional<double> metric_value(const MetricInfo& metric, const RunRecord& run) {
  if (!metric.driver) {
    const Reading* r = find_reading(run, metric.name);
    if (!r || !std::isfinite(r->value)) return std::nullopt;
    return r->value;
  }
  const struct rusage& u = run.exit.usage;
  if (metric.name == "wall-time") return static_cast<double>(run.exit.wall_ns);
  if (metric.name == "user-time") return timeval_ns(u.ru_utime);
  if (metric.name == "system-time") return timeval_ns(u.ru_stime);
  if (metric.name == "max-rss") return static_cast<double>(u.ru_maxrss);
  if (metric.name == "minor-faults(ru)") return static_cast<double>(u.ru_minflt);
  if (metric.name == "vol-ctx-switches(ru)") return static_cast<double>(u.ru_nvcsw);
  if (metric.name == "invol-ctx-switches(ru)") return static_cast<double>(u.ru_nivcsw);
  return std::nullopt;
}

std::vector<MetricInfo> check_metrics(const Plan& plan, const std::vector<RunRecord>& runs) {
  std::vector<std::string> names;
  std::map<std::string, std::optional<std::size_t>> item;
  for (const RunRecord& r : runs) {
    const Configuration* c = r.config < plan.configs.size() ? &plan.configs[r.config] : nullptr;
    for (const Reading& reading : r.readings) {
      auto [it, added] = item.try_emplace(reading.name);
      if (added) names.push_back(reading.name);
      if (!it->second && c && c->solo_of) it->second = c->solo_of;
    }
  }
  std::vector<MetricInfo> out;
  for (const std::string& name : names) {
    std::optional<std::size_t> counter = item[name];
    if (!counter) counter = counter_by_name(plan, name);
    out.push_back({name, counter_unit(name), false, counter});
  }
  // By counter item (unmatched last); first appearance within an item.
  std::stable_sort(out.begin(), out.end(), [](const MetricInfo& a, const MetricInfo& b) {
    const auto key = [](const MetricInfo& m) { return m.counter.value_or(std::numeric_limits<std::size_t>::max()); };
    return key(a) < key(b);
  });
  for (const DriverMetric& d : kDriverMetrics) out.push_back({d.name, d.unit, true, std::nullopt});
  return out;
}

Findings analyse_check(const Plan& plan, const std::vector<RunRecord>& runs, const AnalysisOptions& o) {
  validate(o);
  Findings f;
  f.margin = o.margin;
  f.alpha = o.alpha;
  f.looks_planned = o.looks_planned;
  f.metrics = check_metrics(plan, runs);
  const BlockRuns blocks = index_runs(plan, runs, f);
  // stats/sequential.h: Bonferroni across the planned looks.
  const double alpha_look = o.alpha / static_cast<double>(o.looks_planned);

  // Every metric against its baseline, for every configuration that has one.
  std::vector<Series> series;
  for (std::size_t mi = 0; mi < f.metrics.size(); ++mi) {
    const MetricInfo& m = f.metrics[mi];
    if (!m.driver && !m.counter) {
      f.notes.push_back(fmt::format("{}: no counter of the plan yields this reading; not compared", m.name));
      continue;
    }
    const Metric metric = m.driver ? Metric::driver() : Metric::of_counter(*m.counter);
    for (const Configuration& c : plan.configs) {
      const auto base = comparison_baseline(plan, metric, c.index);
      if (!base) continue;
      f.comparisons.push_back(comparison_of(plan, mi, c, *base));
      series.push_back(pair_series(m, blocks, c.index, *base));
    }
  }

  std::size_t family = 0;
  for (std::size_t i = 0; i < f.comparisons.size(); ++i)
    if (!f.comparisons[i].aa && series[i].x.size() >= 2) ++family;
  stats::PairedOptions po;
  po.alpha = alpha_look;
  po.margin = o.margin;
  const std::size_t fine_resamples = std::clamp<std::size_t>(
      static_cast<std::size_t>(std::ceil(kSignFlipResolutionFactor * static_cast<double>(family) / alpha_look)),
      stats::kSignFlipResamples, kMaxSignFlipResamples);
  std::vector<char> was_refined(f.comparisons.size(), 0);
  for_each_index(f.comparisons.size(), o.threads, [&](std::size_t i) {
    Comparison& c = f.comparisons[i];
    stats::PairedOptions own = po;
    own.seed = splitmix64(splitmix64(splitmix64(o.seed) + c.metric) + c.config);
    was_refined[i] = compute(c, series[i], own, fine_resamples);
  });
  std::set<std::string> log1p_metrics;
  std::size_t refined = 0;
  for (std::size_t i = 0; i < f.comparisons.size(); ++i) {
    if (was_refined[i]) ++refined;
    if (f.comparisons[i].log1p) log1p_metrics.insert(f.metrics[f.comparisons[i].metric].name);
  }
  if (refined > 0)
    f.notes.push_back(fmt::format("{} comparison{} with p < {:.2g} at {} sign flips refined to {}, so that Holm "
                                  "over {} comparisons can reach that alpha",
                                  refined, refined == 1 ? "" : "s", alpha_look, stats::kSignFlipResamples, fine_resamples, family));
  for (const std::string& name : log1p_metrics)
    f.notes.push_back(fmt::format("{}: some runs counted 0, so it is compared as ln(x+1)", name));

  // Holm over every comparison but the A/A control, which is judged on its own.
  std::vector<std::size_t> in_family;
  std::vector<double> ps;
  for (std::size_t i = 0; i < f.comparisons.size(); ++i)
    if (!f.comparisons[i].aa && f.comparisons[i].n >= 2) in_family.push_back(i), ps.push_back(f.comparisons[i].p_value);
  const std::vector<double> adjusted = stats::holm_adjust(ps);
  for (std::size_t k = 0; k < in_family.size(); ++k) f.comparisons[in_family[k]].p_holm = adjusted[k];
  for (Comparison& c : f.comparisons) {
    c.significant = c.n >= 2 && c.p_holm < alpha_look && ci_excludes_zero(c);
    c.outside_margin = c.n >= 2 && (c.ci_lo > o.margin || c.ci_hi < -o.margin);
  }

  // Drift, under held layout only: there the dose is the only thing that differs.
  for (std::size_t i = 0; i < f.comparisons.size(); ++i) {
    Comparison& c = f.comparisons[i];
    if (c.aa || c.layout != Layout::held || c.n < 2) continue;
    auto [drift, note] = drift_of(series[i], o.margin);
    c.drift = std::move(drift);
    if (!note.empty())
      f.notes.push_back(fmt::format("{} {}/{}: {}", f.metrics[c.metric].name, c.level_label, layout_name(c), note));
  }

  // The A/A control. It fails when identical configurations differ *significantly*,
  // not when it has merely not yet been shown equivalent: DESIGN.md's "A/A not
  // equivalent" would let a low-powered A/A mask a large real effect at every level,
  // while an A/A that is only noisy already keeps every level's TOST from claiming
  // equivalence, so no verdict it should veto can be reached anyway.
  std::vector<std::string> aa_failed(f.metrics.size());
  std::vector<double> aa_discrepancy(f.metrics.size(), 0.0);
  for (std::size_t i = 0; i < f.comparisons.size(); ++i) {
    const Comparison& c = f.comparisons[i];
    if (!c.aa) continue;
    f.aa.comparisons.push_back(i);
    if (!c.significant) continue;
    aa_discrepancy[c.metric] = std::max(std::fabs(c.ci_lo), std::fabs(c.ci_hi));
    aa_failed[c.metric] =
        fmt::format("A/A control failed: baseline vs its duplicate differ by {}, p = {:.2g}", estimate_text(c), c.p_value);
    f.aa.ok = false;
    f.aa.reason += fmt::format("{}{}: {}, p = {:.2g}", f.aa.reason.empty() ? "" : "; ", f.metrics[c.metric].name,
                               estimate_text(c), c.p_value);
  }

  // What breaks comparability: exit status, output, multiplexing, instructions.
  Named named;
  std::map<std::pair<std::size_t, std::size_t>, std::string> pair_checks;
  std::vector<Judged> judged(f.comparisons.size());
  std::map<std::size_t, std::string> level_incomparable;
  for (std::size_t i = 0; i < f.comparisons.size(); ++i) {
    const Comparison& c = f.comparisons[i];
    const MetricInfo& m = f.metrics[c.metric];
    const auto key = std::make_pair(c.config, c.baseline);
    auto it = pair_checks.find(key);
    if (it == pair_checks.end()) it = pair_checks.emplace(key, check_pair(plan, blocks, c.config, c.baseline, named)).first;
    judged[i].incomparable = it->second;
    if (!m.driver && judged[i].incomparable.empty())
      judged[i].incomparable = check_multiplexed(m, c, series[i], blocks, named);
    const double floor = m.unit == "ns" ? kRareTimeFloorNs : kRareCountFloor;
    judged[i].rare = c.n > 0 && c.median_baseline < floor;
    if (plan.spec.observer == "counters" && m.name == kInstructionsMetric && !c.aa && c.layout == Layout::held &&
        decisive_effect(c) && !level_incomparable.count(c.level_index))
      level_incomparable[c.level_index] = fmt::format(
          "instruction count moved by {} where the dose adds no instructions (held: {} [{}, {}])", pct(c.effect),
          pct(c.effect), pct(c.ci_lo), pct(c.ci_hi));
  }
  f.incomparable = std::move(named.runs);
  std::sort(f.incomparable.begin(), f.incomparable.end(),
            [](const IncomparableRun& a, const IncomparableRun& b) { return a.run_index < b.run_index; });

  // One verdict per metric and level that has comparisons.
  const Context ctx{f, judged, aa_failed, aa_discrepancy, level_incomparable, o.margin};
  judge_levels(plan, f, [&](std::size_t mi, std::size_t li, const std::vector<std::size_t>& idx) {
    return judge_level(ctx, mi, li, idx);
  });

  // Page's trend over the prefix levels, per metric and layout.
  const std::vector<std::size_t> prefixes = prefix_levels(plan);
  for (std::size_t mi = 0; mi < f.metrics.size(); ++mi) {
    const MetricInfo& m = f.metrics[mi];
    if (!m.driver && !m.counter) continue;
    const std::size_t first = m.driver ? 0 : *m.counter;
    if (first >= prefixes.size()) continue;
    const std::vector<std::size_t> levels(prefixes.begin() + static_cast<std::ptrdiff_t>(first), prefixes.end());
    for (Layout layout : plan.spec.layouts)
      if (auto t = trend_of(plan, blocks, m, mi, layout, levels)) f.trends.push_back(*t);
  }
  return f;
}

}  // namespace obscheck
