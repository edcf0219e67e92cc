#include "analysis/check.h"
#include "analysis/counter_validity.h"

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

#include "analysis/host_load.h"
#include "stats/changepoint.h"
#include "stats/descriptive.h"
#include "stats/hypothesis.h"
#include "stats/magnitude.h"
#include "stats/sequential.h"
#include "stats/special_values.h"
#include "util/error.h"
#include "util/timeval.h"

namespace obscheck {
namespace {

// The driver metric that belongs to the primary family: the time the user waits.
constexpr std::string_view kWallTimeMetric = "wall-time";

using stats::kNaN;
using stats::kInf;
constexpr std::size_t kNone = std::numeric_limits<std::size_t>::max();

// The largest block count a prediction names ("about N blocks would decide").
constexpr std::size_t kPredictionCap = 1000000;

// rusage times are timevals: a microsecond is the finest step they can show.
constexpr double kRusageStepNs = 1000;

// Measured blocks in order; per block the row of each configuration (kNone: did not run).
struct BlockRows {
  std::vector<std::size_t> blocks;                 // block numbers, ascending
  std::vector<std::vector<std::size_t>> rows;      // [k][config]
};

// One comparison's paired data, beside its Comparison.
// Kept small on purpose: a journal of a million runs has over a hundred thousand blocks,
// and the analysis keeps, per comparison, only what a later pass reads (see
// compute_comparisons).
struct Series {
  std::vector<std::uint32_t> joint;   // positions in BlockRows where both configurations ran
  std::vector<std::uint32_t> blocks;  // ... and both have the metric: the pairs (block numbers)
  std::vector<double> x, y;         // config, baseline: raw values
  std::vector<double> d;            // on the comparison's scale
};

std::string layout_name(const Comparison& c) { return std::string(to_string(c.layout)); }

// ---- metrics -----------------------------------------------------------------------

// The check's driver metrics: those of record/run_table.h with a RunTable column.
const std::vector<DriverMetric>& check_driver_metrics() {
  static const std::vector<DriverMetric> metrics = [] {
    std::vector<DriverMetric> out;
    for (const DriverMetric& d : driver_metrics())
      if (d.column != nullptr) out.push_back(d);
    return out;
  }();
  return metrics;
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

std::vector<MetricInfo> order_metrics(const Plan& plan, const std::vector<std::string>& names,
                                      std::map<std::string, std::optional<std::size_t>>& item) {
  std::vector<MetricInfo> out;
  for (const std::string& name : names) {
    std::optional<std::size_t> counter = item[name];
    if (!counter) counter = counter_by_name(plan, name);
    out.push_back({name, counter_unit(name), false, counter, counter.has_value()});
  }
  // By counter item (unmatched last); first appearance within an item.
  std::stable_sort(out.begin(), out.end(), [](const MetricInfo& a, const MetricInfo& b) {
    const auto key = [](const MetricInfo& m) { return m.counter.value_or(std::numeric_limits<std::size_t>::max()); };
    return key(a) < key(b);
  });
  // Under a profiler command the run's wall time is the target's own (run/measurer.h),
  // while the reaped process's rusage is the profiler's and the target's together.
  const bool command = plan.spec.doses_wrap_a_command();
  for (const DriverMetric& d : check_driver_metrics())
    out.push_back({d.name, d.unit, true, std::nullopt, d.name == kWallTimeMetric,
                   command && d.name != kWallTimeMetric ? kTargetAndProfiler : ""});
  return out;
}

// The column of a metric in the table (a driver metric's, or a reading's values).
const std::vector<double>* column_of(const MetricInfo& m, const RunTable& t) {
  if (m.driver) {
    for (const DriverMetric& d : check_driver_metrics())
      if (m.name == d.name) return &(t.*d.column);
    return nullptr;
  }
  const RunTable::Readings* r = t.find(m.name);
  return r ? &r->value : nullptr;
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

void require_config_in_plan(const Plan& plan, std::size_t config, std::size_t index) {
  if (config >= plan.configs.size())
    throw Error(ErrorKind::io,
                fmt::format("run {} names configuration {}, but the plan has {}", index, config, plan.configs.size()),
                "the journal was written for another plan");
}

BlockRows index_runs(const Plan& plan, const RunTable& t, Findings& f) {
  std::map<std::size_t, std::vector<std::size_t>> by_block;
  std::size_t duplicates = 0;
  for (std::size_t row = 0; row < t.size(); ++row) {
    require_config_in_plan(plan, t.config[row], t.index[row]);
    if (t.warmup[row]) {
      ++f.warmup_runs_dropped;
      continue;
    }
    ++f.runs;
    auto& slot = by_block.try_emplace(t.block[row], plan.configs.size(), kNone).first->second;
    if (slot[t.config[row]] != kNone) {
      ++duplicates;  // the first run of a trial is the one analysed
      continue;
    }
    slot[t.config[row]] = row;
  }
  BlockRows out;
  for (auto& [block, slot] : by_block) {
    const auto ran = static_cast<std::size_t>(std::count_if(slot.begin(), slot.end(), [](std::size_t r) { return r != kNone; }));
    // A block is complete when every configuration it ran ran (plan/ Retirement: a
    // settled configuration stops running).
    if (ran >= configs_in_block(plan, block)) {
      ++f.measured_blocks;
    } else {
      f.notes.push_back(fmt::format("block {} is incomplete ({} of {} configurations ran): its pairs are used "
                                    "where both sides ran",
                                    block, ran, slot.size()));
    }
    out.blocks.push_back(block);
    out.rows.push_back(std::move(slot));
  }
  if (f.warmup_runs_dropped > 0)
    f.notes.push_back(fmt::format("{} warm-up runs (the first {} block{}) not analysed", f.warmup_runs_dropped,
                                  plan.spec.warmup_blocks, plan.spec.warmup_blocks == 1 ? "" : "s"));
  if (duplicates > 0)
    f.notes.push_back(fmt::format("{} runs repeat a trial already recorded; the first of each was used", duplicates));
  return out;
}

Series pair_series(const std::vector<double>* column, const BlockRows& b, std::size_t config, std::size_t base) {
  Series s;
  // At most one pair a block: reserved, the kept vectors carry no growth slack (and
  // are fitted below where a configuration ran in fewer blocks).
  s.joint.reserve(b.blocks.size());
  if (column) {
    s.blocks.reserve(b.blocks.size());
    s.x.reserve(b.blocks.size());
    s.y.reserve(b.blocks.size());
  }
  for (std::size_t k = 0; k < b.blocks.size(); ++k) {
    const std::size_t rx = b.rows[k][config], ry = b.rows[k][base];
    if (rx == kNone || ry == kNone) continue;
    s.joint.push_back(static_cast<std::uint32_t>(k));
    if (!column) continue;
    const double vx = (*column)[rx], vy = (*column)[ry];
    if (!std::isfinite(vx) || !std::isfinite(vy)) continue;
    s.blocks.push_back(static_cast<std::uint32_t>(b.blocks[k]));
    s.x.push_back(vx);
    s.y.push_back(vy);
  }
  s.joint.shrink_to_fit();
  s.blocks.shrink_to_fit();
  return s;
}

// ---- one comparison's statistics ---------------------------------------------------

// Below this many comparisons per thread, starting a thread costs more than it saves.
constexpr std::size_t kMinComparisonsPerThread = 16;

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

// The finest step the values show: the smallest positive gap between two distinct
// values (a clock's tick, a count's one event), at least `floor`.
double resolution_of(const Series& s, double floor) {
  std::vector<double> v(s.x);
  v.insert(v.end(), s.y.begin(), s.y.end());
  std::sort(v.begin(), v.end());
  double step = kInf;
  for (std::size_t i = 1; i < v.size(); ++i)
    if (v[i] > v[i - 1]) step = std::min(step, v[i] - v[i - 1]);
  return std::isfinite(step) ? std::max(step, floor) : floor;
}

// One scale per metric, for all its comparisons (a table that mixed "+3%" and "+2 µs per
// run" for one metric could not be read down a column): the difference scale when any
// measured run has a value <= 0, or the median of all measured runs is below the
// metric's floor (analysis/check.h).
Scale scale_of(const MetricInfo& m, const std::vector<double>* column, const BlockRows& b) {
  if (!column) return Scale::ratio;
  std::vector<double> v;
  for (const auto& slot : b.rows)
    for (std::size_t r : slot)
      if (r != kNone && std::isfinite((*column)[r])) v.push_back((*column)[r]);
  if (v.empty()) return Scale::ratio;
  if (std::any_of(v.begin(), v.end(), [](double x) { return x <= 0; })) return Scale::difference;
  const double floor = m.unit == "ns" ? kRareTimeFloorNs : m.unit == "count" ? kRareCountFloor : 0;
  return stats::median(v) >= floor ? Scale::ratio : Scale::difference;
}

// The pairs' d on the comparison's scale, the raw medians and the margin (before any inference).
void fill_differences(Comparison& c, Series& s, const MetricInfo& m, Scale scale, double margin) {
  c.n = s.x.size();
  c.effect = kNaN;
  c.ci_lo = c.range_lo = -kInf;
  c.ci_hi = c.range_hi = kInf;
  c.bound = kInf;
  c.sequence_half_width = kInf;
  c.median_config = c.n ? stats::median(s.x) : kNaN;
  c.median_baseline = c.n ? stats::median(s.y) : kNaN;
  c.margin = margin;
  c.primary = m.primary;
  if (c.n == 0) return;
  c.scale = scale;
  s.d.resize(c.n);
  if (c.scale == Scale::ratio) {
    for (std::size_t i = 0; i < c.n; ++i) s.d[i] = std::log(s.x[i]) - std::log(s.y[i]);
  } else {
    for (std::size_t i = 0; i < c.n; ++i) s.d[i] = s.x[i] - s.y[i];
    const bool rusage_clock = m.driver && m.unit == "ns" && m.name != "wall-time";
    const double step = resolution_of(s, rusage_clock ? kRusageStepNs : 1);
    c.margin = std::max(margin * std::fabs(c.median_baseline), step / 2);
  }
}

// The sample standard deviation of d (0 below two pairs).
double spread_of(const std::vector<double>& d) {
  if (d.size() < 2 || std::all_of(d.begin(), d.end(), [&](double v) { return v == d.front(); })) return 0.0;
  return std::sqrt(stats::variance(d));
}

// The blocks from which the running range is a confidence sequence, and the interval's
// 2 alpha left to the other methods after it (check.h kRangeShare).
std::size_t range_blocks(double alpha) { return stats::range_first_blocks(kRangeShare * 2 * alpha); }
double interval_rest(double alpha) { return 2 * alpha - std::ldexp(1.0, 1 - static_cast<int>(range_blocks(alpha))); }

// One method's interval for d's location and p-value for "no effect", combined below.
struct Inference {
  double lo = -kInf, hi = kInf;
  double p = 1;
};

Inference intersect(Inference a, const Inference& b) {
  a.lo = std::max(a.lo, b.lo);
  a.hi = std::min(a.hi, b.hi);
  return a;
}

// The sequential methods at one look (check.h): sign sequence, t-test sequence, range.
std::pair<Inference, Inference> sequential_inference(Comparison& c, const std::vector<double>& d, double alpha,
                                                     double floor) {
  const std::size_t n0 = range_blocks(alpha);
  const stats::MedianSequence sign = stats::median_sequence(d, sequence_alpha(alpha));
  const stats::MeanSequence mag = stats::mean_sequence(d, interval_rest(alpha) * kMagnitudeShare, floor);
  c.sequence_half_width = (sign.hi - sign.lo) / 2;
  Inference free{sign.lo, sign.hi, std::min(1.0, sign.p_value / kSignShare)};
  if (d.size() >= n0) free = intersect(free, {c.range_lo, c.range_hi, 1});
  c.p_method = fmt::format("always-valid sign test (Beta({0:g},{0:g}) mixture) and sequential t-test (g = {1:g})",
                           stats::kMixturePrior, stats::kMagnitudePriorG);
  c.ci_method = fmt::format(
      "{:.0f}% confidence sequence: sign (Beta({:g},{:g}) mixture) ∩ sequential t (g = {:g}){}", 100 * c.level,
      stats::kMixturePrior, stats::kMixturePrior, stats::kMagnitudePriorG,
      d.size() >= n0 ? " ∩ range of all blocks" : "");
  return {free, {mag.lo, mag.hi, std::min(1.0, mag.p_value / kMagnitudeShare)}};
}

// The fixed design's methods at its one look: exact sign test and interval, t-test.
std::pair<Inference, Inference> fixed_inference(Comparison& c, const std::vector<double>& d, double alpha,
                                                double floor) {
  const double a2 = 2 * alpha;
  std::size_t above = 0, below = 0;
  for (double v : d) above += v > 0, below += v < 0;
  const stats::OrderInterval exact = stats::exact_median_interval(d, kSignShare * a2);
  const stats::MeanSequence mag = stats::mean_sequence(d, kMagnitudeShare * a2, floor);
  const stats::MedianSequence sign = stats::median_sequence(d, sequence_alpha(alpha));
  c.sequence_half_width = (sign.hi - sign.lo) / 2;  // for "about N blocks would decide" only
  c.p_method = fmt::format("exact sign test and sequential t-test (g = {:g}), one look", stats::kMagnitudePriorG);
  c.ci_method = fmt::format("{:.0f}% interval, one look: exact order statistics for the median ∩ sequential t (g = {:g})",
                            100 * c.level, stats::kMagnitudePriorG);
  return {{exact.lo, exact.hi, std::min(1.0, stats::sign_test_p(above, below) / kSignShare)},
          {mag.lo, mag.hi, std::min(1.0, mag.p_value / kMagnitudeShare)}};
}

// The comparison's statistics from its d (fill_differences) and the metric's pooled
// spread `floor` (the t-test's scale floor).
void infer(Comparison& c, const Series& s, double alpha, double floor, bool fixed, std::size_t max_blocks) {
  c.level = 1 - 2 * alpha;
  if (c.n == 0) return;
  const auto [lo_d, hi_d] = std::minmax_element(s.d.begin(), s.d.end());
  const auto to_scale = [&](double v) {
    if (!std::isfinite(v)) return v;
    return c.scale == Scale::ratio ? std::exp(v) - 1 : v;
  };
  c.range_lo = *lo_d;  // on d's scale until the end
  c.range_hi = *hi_d;
  c.equal_blocks = *lo_d == 0 && *hi_d == 0 ? c.n : 0;
  auto [free, mag] = fixed ? fixed_inference(c, s.d, alpha, floor) : sequential_inference(c, s.d, alpha, floor);
  Inference both = intersect(free, mag);
  both.p = std::min(free.p, mag.p);
  // The methods' intervals hold together with probability 1 - 2 alpha when the noise is
  // as the t-test assumes; disjoint intervals show it is not, and the assumption-free
  // methods alone are kept (still valid: they only lose the t-test's share).
  if (both.lo > both.hi) {
    both = free;
    c.p_method += " (t-test set aside: its interval misses the median's)";
  }
  const double median = stats::median(s.d);
  c.effect = to_scale(std::clamp(median, both.lo, both.hi));  // never outside its own interval
  c.p_value = c.p_holm = both.p;
  c.ci_lo = to_scale(both.lo);
  c.ci_hi = to_scale(both.hi);
  c.range_lo = to_scale(c.range_lo);
  c.range_hi = to_scale(c.range_hi);
  c.bound = std::max(std::fabs(c.ci_lo), std::fabs(c.ci_hi));
  c.equivalent = c.ci_lo > -c.margin && c.ci_hi < c.margin;
  c.outside_margin = c.ci_lo > c.margin || c.ci_hi < -c.margin;
  // How many blocks would decide at this noise: the sign sequence must come to fit
  // between the estimate and the nearer side of the margin (both on d's scale).
  if (!c.equivalent && !c.outside_margin && std::isfinite(c.sequence_half_width)) {
    const double m_d = c.scale == Scale::ratio ? std::log1p(c.margin) : c.margin;
    const double room = std::fabs(std::fabs(median) - m_d);
    c.blocks_needed = stats::blocks_for_half_width(c.sequence_half_width, c.n, room, sequence_alpha(alpha), max_blocks);
  }
}

bool ci_excludes_zero(const Comparison& c) { return c.n >= 2 && (c.ci_lo > 0 || c.ci_hi < 0); }

// A change in d's level (Pettitt's rank test, at kDriftAlpha over `family` tests)
// matters when the effect on either side would read differently: opposite signs, or
// one side within ±margin and the other beyond it, and the two more than the margin
// apart. Returns the drift text, or a note when a change is found but ignored.
std::pair<std::string, std::string> drift_of(const Comparison& c, const Series& s, std::size_t family,
                                             const std::string& unit) {
  if (s.d.size() < kMinDriftBlocks) return {};
  const stats::ChangeTest t = stats::pettitt_test(s.d);
  if (!(t.p_value < kDriftAlpha / static_cast<double>(std::max<std::size_t>(family, 1)))) return {};
  const auto seg = [&](std::size_t from, std::size_t to) {
    const double med = stats::median(std::span<const double>(s.d.data() + from, to - from));
    return c.scale == Scale::ratio ? std::exp(med) - 1 : med;
  };
  const double before = seg(0, t.at), after = seg(t.at, s.d.size());
  Comparison a = c, b = c;
  a.effect = before;
  b.effect = after;
  const auto text = [&](const Comparison& x) {
    if (x.scale == Scale::ratio) return fmt::format("{:+.1f}%", 100 * x.effect);
    const std::string full = effect_text(x, unit);
    return full.substr(0, full.find(" ["));
  };
  const bool sign = before * after < 0;
  const bool side = (std::fabs(before) <= c.margin) != (std::fabs(after) <= c.margin);
  if (std::fabs(before - after) > c.margin && (sign || side))
    return {fmt::format("effect moved from {} to {} at block {} (Pettitt p = {:.2g})", text(a), text(b),
                        s.blocks[t.at], t.p_value),
            {}};
  return {{}, fmt::format("a change in the difference series at block {} ({} then {}) does not change the "
                          "conclusion; ignored",
                          s.blocks[t.at], text(a), text(b))};
}

// ---- incomparable runs -------------------------------------------------------------

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

struct Named {
  std::vector<IncomparableRun> runs;
  std::set<std::pair<std::size_t, std::string>> seen;
  void add(const RunTable& t, std::size_t row, std::string why) {
    if (seen.emplace(t.index[row], why).second) runs.push_back({t.index[row], t.config[row], std::move(why)});
  }
};

// Exit status and output of `config` against `base` over the blocks where both ran.
// Empty: comparable.
std::string check_pair(const Plan& plan, const RunTable& t, const BlockRows& b, std::size_t config, std::size_t base,
                       Named& named) {
  std::vector<std::size_t> xs, ys;
  for (const auto& slot : b.rows)
    if (slot[config] != kNone && slot[base] != kNone) xs.push_back(slot[config]), ys.push_back(slot[base]);
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
                              const BlockRows& b, bool allow_scaled, Named& named) {
  const RunTable::Readings* col = t.find(m.name);
  if (!col) return {};
  std::size_t count = 0, never_ran = 0;
  double max_scale = 1;
  for (std::size_t k : s.joint) {
    for (std::size_t r : {b.rows[k][c.config], b.rows[k][c.baseline]}) {
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
                         const BlockRows& b, Named& named) {
  const RunTable::Readings* col = t.find(m.name);
  if (!col) return {};
  std::size_t count = 0;
  for (std::size_t k : s.joint)
    for (std::size_t r : {b.rows[k][c.config], b.rows[k][c.baseline]}) {
      const double scale = col->scale[r];
      if (!(std::isfinite(scale) && scale > 0) || std::isfinite(col->value[r])) continue;
      ++count;
      named.add(t, r, fmt::format("{} fault: it ran but read zero or negative, no value", m.name));
    }
  if (count == 0) return {};
  return fmt::format("{}: {} read zero or negative in {} run{} (a fault, not a value)", layout_name(c), m.name, count,
                     count == 1 ? "" : "s");
}

// ---- verdicts ----------------------------------------------------------------------

struct Context {
  const Findings& f;
  const std::vector<std::string>& incomparable;   // per comparison
  const std::vector<std::string>& aa_failed;      // per metric: non-empty = the reason
  const std::vector<double>& aa_discrepancy;      // per metric: the failed A/A's largest |bound|
  const std::map<std::size_t, std::string>& level_incomparable;  // instructions moved
  std::size_t max_blocks;                         // the plan's cap on measured blocks
};

bool decisive_effect(const Comparison& c) { return c.significant && c.outside_margin; }

std::string effect_with_p(const Comparison& c, const std::string& unit) {
  return fmt::format("{}: {}, Holm p = {:.2g}", layout_name(c), effect_text(c, unit), c.p_holm);
}

// The level's judgement when its metric's A/A control failed.
LevelJudgement failed_aa_judgement(const Context& x, std::size_t metric, const std::vector<std::size_t>& idx) {
  const auto& cs = x.f.comparisons;
  const std::string& unit = x.f.metrics[metric].unit;
  // A failed A/A measures a systematic error between identical configurations (order,
  // drift). It voids every claim that error could produce, but not an effect that
  // lies wholly beyond it: a held effect whose interval clears ±(margin + the A/A's
  // largest bound) cannot be that error. Only where nothing else would leave the level
  // inconclusive: the exception must not skip those rules.
  const bool sound = std::all_of(idx.begin(), idx.end(), [&](std::size_t i) {
    return cs[i].n >= kMinPairedBlocks && cs[i].drift.empty();
  });
  for (std::size_t i : idx) {
    const double floor = cs[i].margin + x.aa_discrepancy[metric];
    if (sound && cs[i].layout == Layout::held && cs[i].significant && (cs[i].ci_lo > floor || cs[i].ci_hi < -floor))
      return {Verdict::perturbed,
              fmt::format("{}; beyond the failed A/A control's own ±{:.3g}", effect_with_p(cs[i], unit), floor)};
  }
  return {Verdict::inconclusive, x.aa_failed[metric]};
}

// The level's judgement when no rule decided it.
LevelJudgement undecided_judgement(const Context& x, const std::string& unit, const std::vector<std::size_t>& idx) {
  const auto& cs = x.f.comparisons;
  // Undecided: say what does hold, held first, and what deciding would take.
  std::vector<std::size_t> order = idx;
  std::stable_partition(order.begin(), order.end(), [&](std::size_t i) { return cs[i].layout == Layout::held; });
  for (std::size_t i : order) {
    const Comparison& c = cs[i];
    if (c.equivalent || decisive_effect(c)) continue;
    if (c.outside_margin)  // the size is settled, the family-wise test not yet: more blocks will decide
      return {Verdict::inconclusive,
              fmt::format("{}: {} — beyond {}, but not yet significant over the family (Holm p = {:.2g})",
                          layout_name(c), effect_text(c, unit), margin_text(c, unit), c.p_holm)};
    const std::string bound = bound_text(c, unit);
    std::string text =
        bound.empty() ? fmt::format("{}: {} — too few blocks to bound the effect", layout_name(c), effect_text(c, unit))
                      : fmt::format("{}: {} — no effect beyond {} ({:.0f}%), not shown within {}", layout_name(c),
                                    effect_text(c, unit), bound, 100 * c.level, margin_text(c, unit));
    if (c.blocks_needed > 0) text += fmt::format("; about {} blocks would decide at this noise", c.blocks_needed);
    // More runs can change this answer only if the blocks it needs are within the
    // plan's cap; a bounded interval that no block count up to the cap would narrow
    // enough is as far as this check can go, and must not keep the sweep running.
    return {Verdict::inconclusive, text, !more_blocks_could_decide(c, x.max_blocks)};
  }
  return {Verdict::inconclusive,
          fmt::format("{} beyond {}, but no held comparison tells layout from measurement",
                      effect_with_p(cs[idx[0]], unit), margin_text(cs[idx[0]], unit))};
}

// The first rule that applies, in the order of the header's table.
LevelJudgement judge_level(const Context& x, std::size_t metric, std::size_t level,
                           const std::vector<std::size_t>& idx) {
  const auto& cs = x.f.comparisons;
  const std::string& unit = x.f.metrics[metric].unit;
  for (std::size_t i : idx)
    if (!x.incomparable[i].empty()) return {Verdict::incomparable, x.incomparable[i]};
  if (auto it = x.level_incomparable.find(level); it != x.level_incomparable.end())
    return {Verdict::incomparable, it->second};

  if (!x.aa_failed[metric].empty()) return failed_aa_judgement(x, metric, idx);
  for (std::size_t i : idx)
    if (cs[i].n < kMinPairedBlocks)
      return {Verdict::inconclusive,
              fmt::format("too few runs: {} blocks, need at least {} ({})", cs[i].n, kMinPairedBlocks,
                          layout_name(cs[i]))};
  for (std::size_t i : idx)
    if (!cs[i].drift.empty())
      return {Verdict::inconclusive, fmt::format("drift: {}: {}", layout_name(cs[i]), cs[i].drift)};

  const Comparison* held = nullptr;
  for (std::size_t i : idx)
    if (cs[i].layout == Layout::held) held = &cs[i];
  if (held && decisive_effect(*held)) return {Verdict::perturbed, effect_with_p(*held, unit)};

  for (std::size_t i : idx)
    if (cs[i].layout != Layout::held && decisive_effect(cs[i]) && held && held->equivalent)
      return {Verdict::explained_by_layout,
              fmt::format("{}; held: {} within {}", effect_with_p(cs[i], unit), effect_text(*held, unit),
                          margin_text(*held, unit))};

  if (std::all_of(idx.begin(), idx.end(), [&](std::size_t i) { return cs[i].equivalent; })) {
    std::string list;
    for (std::size_t i : idx) {
      list += fmt::format("{}{} {}", list.empty() ? "" : ", ", layout_name(cs[i]), effect_text(cs[i], unit));
      if (cs[i].equal_blocks > 0) list += fmt::format(", equal in all {} blocks", cs[i].equal_blocks);
    }
    return {Verdict::not_perturbed, fmt::format("within {} under {}", margin_text(cs[idx[0]], unit), list)};
  }

  return undecided_judgement(x, unit, idx);
}

// A judgement decided on scaled values (AnalysisOptions::allow_multiplex) says so.
LevelJudgement label_scaled(const Findings& f, const std::vector<std::size_t>& idx, LevelJudgement j) {
  if (j.verdict == Verdict::incomparable) return j;
  std::size_t runs = 0;
  double max_scale = 1;
  for (std::size_t i : idx) runs += f.comparisons[i].scaled_runs, max_scale = std::max(max_scale, f.comparisons[i].max_scale);
  if (runs == 0) return j;
  j.scaled = true;
  j.reason += fmt::format("; scaled: multiplexed in {} run{} (up to x{:.2f}), compared as estimates (--allow-multiplex)",
                          runs, runs == 1 ? "" : "s", max_scale);
  return j;
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

std::optional<Trend> trend_of(const Plan& plan, const RunTable&, const BlockRows& blocks,
                              const std::vector<double>* column, std::size_t metric, Layout layout,
                              const std::vector<std::size_t>& levels) {
  if (!column) return std::nullopt;
  std::vector<std::size_t> configs;
  for (std::size_t li : levels)
    for (const Configuration& c : plan.configs)
      if (!c.aa_duplicate && c.level_index == li && c.layout == layout) configs.push_back(c.index);
  const std::size_t k = configs.size();
  if (k < kMinTrendLevels) return std::nullopt;
  std::vector<double> up, down;
  std::size_t n = 0;
  std::vector<double> row;
  for (const auto& slot : blocks.rows) {
    row.clear();
    for (std::size_t c : configs) {
      if (slot[c] == kNone || !std::isfinite((*column)[slot[c]])) break;
      row.push_back((*column)[slot[c]]);
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

// The host's load (analysis/host_load.h): when it changed during the check, a note says
// when, and every verdict whose held comparison has pairs in the busy blocks says how
// many. The search for a busy phase is quadratic in the blocks, so it runs up to
// kHostLoadMaxBlocks (past the live check's cap); a longer journal gets a note instead.
constexpr std::size_t kHostLoadMaxBlocks = 2500;

void note_host_load(const RunTable& t, const std::vector<Series>& series, Findings& f) {
  const bool any = std::any_of(t.host_other_cpu_ns.begin(), t.host_other_cpu_ns.end(),
                               [](double v) { return std::isfinite(v); });
  if (!any) return;
  if (f.measured_blocks > kHostLoadMaxBlocks) {
    f.notes.push_back(fmt::format("the host's load is not searched for busy phases beyond {} blocks",
                                  kHostLoadMaxBlocks));
    return;
  }
  const HostLoad load = analyse_host_load(t);
  if (!load.recorded || load.busy_blocks.empty()) return;
  f.notes.push_back(describe_host_load(load));
  const std::set<std::size_t> busy(load.busy_blocks.begin(), load.busy_blocks.end());
  for (LevelVerdict& v : f.verdicts)
    for (std::size_t i : v.comparisons) {
      const Comparison& c = f.comparisons[i];
      if (c.layout != Layout::held || series[i].blocks.empty()) continue;
      const auto n = static_cast<std::size_t>(std::count_if(series[i].blocks.begin(), series[i].blocks.end(),
                                                            [&](std::uint32_t b) { return busy.count(b) > 0; }));
      if (n > 0)
        v.reason += fmt::format(" ({} of its {} blocks ran while the host was busy)", n, series[i].blocks.size());
      break;
    }
}

// ---- the check's passes ------------------------------------------------------------

// Every metric against its baseline, for every configuration that has one.
void list_comparisons(const Plan& plan, Findings& f) {
  for (std::size_t mi = 0; mi < f.metrics.size(); ++mi) {
    const MetricInfo& m = f.metrics[mi];
    if (!m.driver && !m.counter) {
      f.notes.push_back(fmt::format("{}: no counter of the plan yields this reading; not compared", m.name));
      continue;
    }
    const Metric metric = m.driver ? Metric::driver() : Metric::of_counter(*m.counter);
    for (const Configuration& c : plan.configs) {
      const auto base = comparison_baseline(plan, metric, c.index);
      if (base) f.comparisons.push_back(comparison_of(plan, mi, c, *base));
    }
  }
}

// Per metric, the pooled standard deviation of d over its comparisons (the A/A control's
// included): sqrt(sum (n - 1) s^2 / sum (n - 1)). The sequential t-test's scale is
// floored by it, so that a comparison whose few blocks happen to agree closely (on a
// bimodal host: every pair from the same two modes, d near +0.45 four times in a row,
// probability (2/9)^4 per comparison) cannot claim a tiny variance the metric does not
// have. docs/statistics.md, "Magnitudes", measures what it buys.
std::vector<double> pooled_spreads(const std::vector<Series>& series, const Findings& f) {
  std::vector<double> ss(f.metrics.size(), 0.0), df(f.metrics.size(), 0.0);
  for (std::size_t i = 0; i < series.size(); ++i) {
    const std::vector<double>& d = series[i].d;
    if (d.size() < 2) continue;
    const double s = spread_of(d);
    const double k = static_cast<double>(d.size() - 1);
    ss[f.comparisons[i].metric] += k * s * s;
    df[f.comparisons[i].metric] += k;
  }
  std::vector<double> out(f.metrics.size(), 0.0);
  for (std::size_t m = 0; m < out.size(); ++m)
    if (df[m] > 0) out[m] = std::sqrt(ss[m] / df[m]);
  return out;
}

// Every comparison's statistics from its pairs; returns each one's pairs, cut down to what later passes read.
std::vector<Series> compute_comparisons(const RunTable& t, const BlockRows& blocks, const AnalysisOptions& o,
                                        Findings& f) {
  // Each comparison's pairs are built, analysed and cut down to what the later passes
  // read: the block positions for the multiplexing check (counters), d and its blocks
  // for the drift test (held and A/A). The raw values go at once.
  std::vector<Scale> scales;
  for (const MetricInfo& m : f.metrics) scales.push_back(scale_of(m, column_of(m, t), blocks));
  std::vector<Series> series(f.comparisons.size());
  for_each_index(f.comparisons.size(), o.threads, [&](std::size_t i) {
    Comparison& c = f.comparisons[i];
    const MetricInfo& m = f.metrics[c.metric];
    Series& s = series[i];
    s = pair_series(column_of(m, t), blocks, c.config, c.baseline);
    fill_differences(c, s, m, scales[c.metric], o.margin);
    std::vector<double>().swap(s.x);
    std::vector<double>().swap(s.y);
    // What no later pass reads goes now, before every comparison's pairs are held at
    // once: infer() reads d alone.
    if (m.driver) std::vector<std::uint32_t>().swap(s.joint);
    if (!(c.aa || c.layout == Layout::held)) std::vector<std::uint32_t>().swap(s.blocks);
  });
  const std::vector<double> floors = pooled_spreads(series, f);
  for_each_index(f.comparisons.size(), o.threads, [&](std::size_t i) {
    Comparison& c = f.comparisons[i];
    Series& s = series[i];
    infer(c, s, o.alpha, floors[c.metric], o.fixed_design, kPredictionCap);
    if (!(c.aa || c.layout == Layout::held)) std::vector<double>().swap(s.d);
  });
  return series;
}

// A note for each metric that some comparison compares as a difference per run.
void note_difference_metrics(Findings& f) {
  std::set<std::string> difference_metrics;
  for (const Comparison& c : f.comparisons)
    if (c.n > 0 && c.scale == Scale::difference) difference_metrics.insert(f.metrics[c.metric].name);
  for (const std::string& name : difference_metrics)
    f.notes.push_back(fmt::format("{}: small or zero values, so it is compared as a difference per run", name));
}

// Each comparison's Holm-adjusted p-value and whether it is significant at alpha.
void apply_holm(double alpha, Findings& f) {
  // Three families: the primary metrics (the question asked), the other metrics
  // (rusage), and the A/A control over all its metrics. Each holds alpha on its own;
  // the overall answer rests on the primary family alone.
  enum Family { primary, other, aa };
  const auto family_of = [](const Comparison& c) { return c.aa ? aa : c.primary ? primary : other; };
  for (Family family : {primary, other, aa}) {
    std::vector<std::size_t> members;
    std::vector<double> ps;
    for (std::size_t i = 0; i < f.comparisons.size(); ++i)
      if (family_of(f.comparisons[i]) == family && f.comparisons[i].n >= 2)
        members.push_back(i), ps.push_back(f.comparisons[i].p_value);
    const std::vector<double> adjusted = stats::holm_adjust(ps);
    for (std::size_t k = 0; k < members.size(); ++k) f.comparisons[members[k]].p_holm = adjusted[k];
  }
  for (Comparison& c : f.comparisons) c.significant = c.n >= 2 && c.p_holm < alpha && ci_excludes_zero(c);
}

// Drift, under held layout (there the dose is the only thing that differs) and in
// the A/A control, at kDriftAlpha over all of them.
void test_drift(const std::vector<Series>& series, Findings& f) {
  std::size_t drift_family = 0;
  for (const Comparison& c : f.comparisons)
    if ((c.aa || c.layout == Layout::held) && c.n >= kMinDriftBlocks) ++drift_family;
  for (std::size_t i = 0; i < f.comparisons.size(); ++i) {
    Comparison& c = f.comparisons[i];
    if (!(c.aa || c.layout == Layout::held)) continue;
    auto [drift, note] = drift_of(c, series[i], drift_family, f.metrics[c.metric].unit);
    c.drift = std::move(drift);
    if (!note.empty())
      f.notes.push_back(fmt::format("{} {}/{}: {}", f.metrics[c.metric].name, c.level_label, layout_name(c), note));
  }
}

// What a failed A/A control leaves for each metric's verdicts.
struct AaOutcome {
  std::vector<std::string> failed;  // per metric: non-empty = the reason
  std::vector<double> discrepancy;  // per metric: the failed A/A's largest |bound|
};

// The A/A control. It fails when identical configurations differ *significantly*
// (Holm over the A/A's metrics) or drift apart; it is not required to show
// equivalence, which a low-powered A/A would fail at every level while masking
// nothing: an A/A that is only noisy already keeps each level's interval wide.
AaOutcome judge_aa_control(Findings& f) {
  AaOutcome aa{std::vector<std::string>(f.metrics.size()), std::vector<double>(f.metrics.size(), 0.0)};
  for (std::size_t i = 0; i < f.comparisons.size(); ++i) {
    const Comparison& c = f.comparisons[i];
    if (!c.aa) continue;
    f.aa.comparisons.push_back(i);
    const std::string& unit = f.metrics[c.metric].unit;
    std::string why;
    if (c.significant) why = fmt::format("differ by {}, Holm p = {:.2g}", effect_text(c, unit), c.p_holm);
    else if (!c.drift.empty()) why = "drift: " + c.drift;
    if (why.empty()) continue;
    aa.discrepancy[c.metric] = c.significant ? std::max(std::fabs(c.ci_lo), std::fabs(c.ci_hi)) : 0.0;
    aa.failed[c.metric] = "A/A control failed: baseline vs its duplicate " + why;
    f.aa.ok = false;
    f.aa.reason += fmt::format("{}{}: {}", f.aa.reason.empty() ? "" : "; ", f.metrics[c.metric].name, why);
  }
  return aa;
}

// What makes comparisons incomparable, beside the runs it names.
struct Comparability {
  std::vector<std::string> incomparable;                  // per comparison: the reason, or empty
  std::map<std::size_t, std::string> level_incomparable;  // per level: instructions moved
};

// What breaks comparability: exit status, output, multiplexing, faults, instructions.
Comparability check_comparability(const Plan& plan, const RunTable& t, const BlockRows& blocks,
                                  const std::vector<Series>& series, bool allow_scaled, Findings& f) {
  Named named;
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
    if (!m.driver && out.incomparable[i].empty())
      out.incomparable[i] = check_multiplexed(m, f.comparisons[i], series[i], t, blocks, allow_scaled, named);
    if (!m.driver && out.incomparable[i].empty()) out.incomparable[i] = check_faults(m, c, series[i], t, blocks, named);
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

// Page's trend over the prefix levels, per metric and layout.
void find_trends(const Plan& plan, const RunTable& t, const BlockRows& blocks, Findings& f) {
  const std::vector<std::size_t> prefixes = prefix_levels(plan);
  for (std::size_t mi = 0; mi < f.metrics.size(); ++mi) {
    const MetricInfo& m = f.metrics[mi];
    if (!m.driver && !m.counter) continue;
    const std::size_t first = m.driver ? 0 : *m.counter;
    if (first >= prefixes.size()) continue;
    const std::vector<std::size_t> levels(prefixes.begin() + static_cast<std::ptrdiff_t>(first), prefixes.end());
    for (Layout layout : plan.spec.layouts)
      if (auto tr = trend_of(plan, t, blocks, column_of(m, t), mi, layout, levels)) f.trends.push_back(*tr);
  }
}

}  // namespace

bool more_blocks_could_decide(const Comparison& c, std::size_t blocks) {
  if (c.equivalent || (c.significant && c.outside_margin)) return false;
  if (!std::isfinite(c.ci_lo) || !std::isfinite(c.ci_hi) || !c.drift.empty() || c.outside_margin) return true;
  if (blocks <= c.n) return false;
  // Not the point estimate: early on it sits near the margin by chance as often as not,
  // and a check that gave up on "+1.1%, so ±1% can never be shown" after 80 blocks of a
  // true null would give up on most nulls. Any effect the interval still admits may be
  // the true one; more blocks can decide if, at the interval's width `blocks` would
  // give, one of them would be shown within the margin or beyond it.
  const auto on_d = [&](double v) { return c.scale == Scale::ratio ? std::log1p(v) : v; };
  const double lo = on_d(c.ci_lo), hi = on_d(c.ci_hi), margin = on_d(c.margin);
  // The sign sequence's width scales with the blocks; the t-test's narrows faster, so
  // this errs towards running on.
  const double half = std::isnan(c.sequence_half_width) ? (hi - lo) / 2 : c.sequence_half_width;
  const double width = stats::projected_half_width(half, c.n, blocks, sequence_alpha((1 - c.level) / 2));
  if (!std::isfinite(width)) return true;
  const double nearest = lo <= 0 && hi >= 0 ? 0.0 : std::min(std::fabs(lo), std::fabs(hi));
  const double farthest = std::max(std::fabs(lo), std::fabs(hi));
  return nearest + width < margin || farthest - width > margin;
}

bool more_blocks_could_decide(const Findings& f, std::size_t blocks, bool all_metrics) {
  // An inconclusive verdict whose comparisons are all decided (a failed A/A, say) waits
  // on nothing more runs would change.
  for (const LevelVerdict& v : f.verdicts)
    if (v.verdict == Verdict::inconclusive && (all_metrics || f.metrics[v.metric].primary))
      for (std::size_t i : v.comparisons)
        if (more_blocks_could_decide(f.comparisons[i], blocks)) return true;
  return false;
}

double sequence_alpha(double alpha) { return kSignShare * interval_rest(alpha); }

void require_run_in_plan(const Plan& plan, const RunRecord& run) { require_config_in_plan(plan, run.config, run.index); }

std::optional<double> metric_value(const MetricInfo& metric, const RunRecord& run) {
  if (!metric.driver) {
    for (const Reading& r : run.readings)
      if (r.name == metric.name) return std::isfinite(r.value) ? std::optional<double>(r.value) : std::nullopt;
    return std::nullopt;
  }
  for (const DriverMetric& d : check_driver_metrics())
    if (metric.name == d.name) return d.of(run.exit);
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
  return order_metrics(plan, names, item);
}

std::vector<MetricInfo> check_metrics(const Plan& plan, const RunTable& t) {
  // The reading columns are in order of first appearance, as the RunRecord form
  // collects them; a reading's counter item is the solo_of of its first row that has it.
  std::vector<std::string> names;
  std::map<std::string, std::optional<std::size_t>> item;
  for (const RunTable::Readings& col : t.readings) {
    names.push_back(col.name);
    auto& slot = item[col.name];
    for (std::size_t row = 0; row < t.size() && !slot; ++row) {
      if (std::isnan(col.scale[row])) continue;  // no such reading in this run
      const std::size_t cfg = t.config[row];
      if (cfg < plan.configs.size() && plan.configs[cfg].solo_of) slot = plan.configs[cfg].solo_of;
    }
  }
  return order_metrics(plan, names, item);
}

namespace {
std::size_t count_family(const Plan& plan, bool primary_only) {
  std::size_t n = 0;
  const auto count = [&](Metric metric, std::size_t members) {
    for (const Configuration& c : plan.configs)
      if (!c.aa_duplicate && comparison_baseline(plan, metric, c.index)) n += members;
  };
  for (std::size_t i = 0; i < plan.spec.counters.size(); ++i) {
    const std::string& item = plan.spec.counters[i];
    count(Metric::of_counter(i), static_cast<std::size_t>(std::count(item.begin(), item.end(), ',')) + 1);
  }
  count(Metric::driver(), primary_only ? 1 : check_driver_metrics().size());  // wall time alone is primary
  return n;
}
}  // namespace

std::size_t planned_family(const Plan& plan) { return count_family(plan, false); }

std::size_t planned_primary_family(const Plan& plan) { return count_family(plan, true); }

std::size_t first_look(const Plan& plan, double alpha) {
  const std::size_t family = std::max<std::size_t>(planned_primary_family(plan), 1);
  return std::max(kMinPairedBlocks,
                  stats::magnitude_blocks_to_decide(kMagnitudeShare * alpha / static_cast<double>(family)));
}

Findings analyse_check(const Plan& plan, const std::vector<RunRecord>& runs, const AnalysisOptions& o) {
  return analyse_check(plan, run_table_of(runs), o);
}

Findings analyse_check(const Plan& plan, const RunTable& t, const AnalysisOptions& o) {
  validate(o);
  Findings f;
  f.margin = o.margin;
  f.alpha = o.alpha;
  f.looks_planned = o.looks_planned;
  f.metrics = check_metrics(plan, t);
  const BlockRows blocks = index_runs(plan, t, f);

  list_comparisons(plan, f);
  const std::vector<Series> series = compute_comparisons(t, blocks, o, f);
  note_difference_metrics(f);
  apply_holm(o.alpha, f);
  test_drift(series, f);
  const AaOutcome aa = judge_aa_control(f);
  const Comparability comparability = check_comparability(plan, t, blocks, series, o.allow_multiplex, f);

  // One verdict per metric and level that has comparisons.
  const Context ctx{f, comparability.incomparable, aa.failed, aa.discrepancy, comparability.level_incomparable,
                    plan.spec.fixed_blocks ? *plan.spec.fixed_blocks : plan.spec.max_blocks};
  judge_levels(plan, f, [&](std::size_t mi, std::size_t li, const std::vector<std::size_t>& idx) {
    return label_scaled(f, idx, judge_level(ctx, mi, li, idx));
  });
  f.counters = counter_validity(plan, t, f.metrics);

  note_host_load(t, series, f);
  find_trends(plan, t, blocks, f);
  return f;
}

}  // namespace obscheck
