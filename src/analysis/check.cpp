// analysis/check: the check's passes over its comparisons: list them, compute each one's
// statistics (check_inference.cpp) on up to AnalysisOptions::threads threads, Holm, drift,
// the A/A control and the verdicts (by the rule book, rules.h), comparability
// (check_comparability.cpp), the host's load and Page's trends: analyse_check.
#include "analysis/check.h"
#include "analysis/check_internal.h"
#include "analysis/counter_validity.h"

#include <fmt/core.h>

#include <algorithm>
#include <atomic>
#include <cmath>
#include <exception>
#include <map>
#include <mutex>
#include <set>
#include <string>
#include <thread>
#include <utility>
#include <vector>

#include "analysis/host_load.h"
#include "stats/descriptive.h"
#include "stats/hypothesis.h"
#include "util/error.h"

namespace obscheck {
namespace check_detail {

// IQR / 1.349 (check_internal.h). The sign sequence's width follows the density of d
// near its median; on a host whose runs fall in two modes d is peaked there with far
// shoulders, and a mean absolute deviation (read as sigma sqrt(2 / pi)) counted the
// shoulders: the forecast it fed was 1.8x the interval compute's replays reached
// (docs/statistics.md, "The forecast").
double central_scale(const std::vector<double>& d) {
  constexpr double kNormalIqr = 1.3489795003921634;  // 2 z(0.75)
  return stats::iqr(d) / kNormalIqr;
}

namespace {

// The largest block count a prediction names ("about N blocks would decide").
constexpr std::size_t kPredictionCap = 1000000;

void validate(const AnalysisOptions& o) {
  if (!(o.margin > 0 && o.margin < 1))
    throw Error(ErrorKind::usage, fmt::format("margin {:g} is outside (0, 1)", o.margin),
                "give --margin as a fraction, e.g. 0.01 for ±1%");
  if (!(o.alpha > 0 && o.alpha < 1))
    throw Error(ErrorKind::usage, fmt::format("alpha {:g} is outside (0, 1)", o.alpha));
  if (o.looks_planned == 0) throw Error(ErrorKind::usage, "looks_planned must be at least 1");
}

// Below this many comparisons per thread, starting a thread costs more than it saves;
// from kLargeBlocks measured blocks on, one comparison's passes (selections, sorts for
// Pettitt's ranks, logarithms over every pair) outweigh a thread's start.
constexpr std::size_t kMinComparisonsPerThread = 16;
constexpr std::size_t kLargeBlocks = 2000;

std::size_t min_per_thread(const BlockRows& blocks) {
  return blocks.size() >= kLargeBlocks ? 1 : kMinComparisonsPerThread;
}

// Calls body(i) for i in [0, count), spread over up to `threads` threads (0: one per
// hardware thread), each with at least `per_thread` indexes. The first exception
// thrown by any call is rethrown here, after every thread has finished. Every call
// writes its own index's results only, so the threads change no value.
template <typename Body>
void for_each_index(std::size_t count, std::size_t threads, std::size_t per_thread, const Body& body) {
  if (threads == 0) threads = std::max(1u, std::thread::hardware_concurrency());
  threads = std::min(threads, count / std::max<std::size_t>(per_thread, 1));
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
                              const NumberColumn* column, std::size_t metric, Layout layout,
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
  for (std::size_t b = 0; b < blocks.size(); ++b) {
    row.clear();
    for (std::size_t c : configs) {
      const std::size_t r = blocks.row(b, c);
      if (r == kNone || !std::isfinite((*column)[r])) break;
      row.push_back((*column)[r]);
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

void note_host_load(const RunTable& t, const BlockRows& blocks, Findings& f) {
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
      if (c.layout != Layout::held) continue;
      const Series s = series_of(t, blocks, f, c);
      if (s.blocks.empty()) continue;
      const auto n = static_cast<std::size_t>(
          std::count_if(s.blocks.begin(), s.blocks.end(), [&](std::uint32_t b) { return busy.count(b) > 0; }));
      if (n > 0) v.reason += fmt::format(" ({} of its {} blocks ran while the host was busy)", n, s.blocks.size());
      break;
    }
}

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
// included): sqrt(sum (n - 1) s^2 / sum (n - 1)), from each comparison's n and s, and
// its degrees of freedom sum (n - 1). The sequential t-test's scale is floored by it,
// so that a comparison whose few blocks happen to agree closely (on a bimodal host:
// every pair from the same two modes, d near +0.45 four times in a row, probability
// (2/9)^4 per comparison) cannot claim a tiny variance the metric does not have; and
// its degrees of freedom are the t-test's (whichever of the two scales is larger), so
// that a bimodal metric's honest spread (about 0.3 on compute's d) does not also pay
// for being estimated from a comparison's own few blocks. docs/statistics.md,
// "Magnitudes", measures what both buy.
struct PooledSpreads {
  std::vector<double> spread, df;
};
PooledSpreads pooled_spreads(const std::vector<double>& spreads, const Findings& f) {
  std::vector<double> ss(f.metrics.size(), 0.0);
  PooledSpreads out{std::vector<double>(f.metrics.size(), 0.0), std::vector<double>(f.metrics.size(), 0.0)};
  for (std::size_t i = 0; i < spreads.size(); ++i) {
    const Comparison& c = f.comparisons[i];
    if (c.n < 2) continue;
    const double s = spreads[i];
    const double k = static_cast<double>(c.n - 1);
    ss[c.metric] += k * s * s;
    out.df[c.metric] += k;
  }
  for (std::size_t m = 0; m < out.spread.size(); ++m)
    if (out.df[m] > 0) out.spread[m] = std::sqrt(ss[m] / out.df[m]);
  return out;
}

// Per metric, the median of its comparisons' robust spreads (those of two pairs or more).
std::vector<double> median_spreads(const std::vector<double>& centrals, const Findings& f) {
  std::vector<std::vector<double>> by_metric(f.metrics.size());
  for (std::size_t i = 0; i < centrals.size(); ++i)
    if (f.comparisons[i].n >= 2) by_metric[f.comparisons[i].metric].push_back(centrals[i]);
  std::vector<double> out(f.metrics.size(), 0.0);
  for (std::size_t m = 0; m < out.size(); ++m)
    if (!by_metric[m].empty()) out[m] = stats::median(by_metric[m]);
  return out;
}

// Per metric, the levels (doses) at which a comparison with pairs other than the A/A
// control compares it: the doses over which "not perturbed" claims that no
// intermittent effect is hidden (check.h intermittent_cover_blocks splits alpha over
// them). A level compared under several layouts counts once: an effect escapes its
// verdict only if it escapes the runs of every layout.
std::vector<std::size_t> doses_per_metric(const Findings& f) {
  std::vector<std::set<std::size_t>> levels(f.metrics.size());
  for (const Comparison& c : f.comparisons)
    if (!c.aa && c.n > 0) levels[c.metric].insert(c.level_index);
  std::vector<std::size_t> out;
  for (const std::set<std::size_t>& l : levels) out.push_back(l.size());
  return out;
}

// A fixed design's exact median interval's rank for each pair count its comparisons
// have (most share one), on the threads as the comparisons are.
MedianRanks median_ranks(const Findings& f, const AnalysisOptions& o) {
  std::vector<std::size_t> counts;
  for (const Comparison& c : f.comparisons)
    if (c.n > 0) counts.push_back(c.n);
  std::sort(counts.begin(), counts.end());
  counts.erase(std::unique(counts.begin(), counts.end()), counts.end());
  std::vector<stats::MedianRank> found(counts.size());
  for_each_index(counts.size(), o.threads, 1, [&](std::size_t i) { found[i] = fixed_median_rank(counts[i], o.alpha); });
  MedianRanks out;
  for (std::size_t i = 0; i < counts.size(); ++i) out.emplace(counts[i], found[i]);
  return out;
}

// Drift results per comparison: {drift text, ignored change's note} (drift_of).
using DriftFound = std::vector<std::pair<std::string, std::string>>;

// Every comparison's statistics from its pairs. The pairs are built from the table for
// one comparison at a time (one per thread) and dropped after it, in each pass that
// reads them: the first gives each comparison's d, medians and spread, the second (once
// the pooled spreads are known) its interval and, under held layout and in the A/A
// control, its drift test (which reads nothing Holm changes; test_drift applies it).
// Rebuilding them is a pass over the blocks; holding every comparison's at once was
// most of a large journal's report's memory. Sets f.spread, f.spread_df and f.robust_spread.
DriftFound compute_comparisons(const RunTable& t, const BlockRows& blocks, const AnalysisOptions& o,
                               std::size_t magnitude_from, Findings& f) {
  std::vector<Scale> scales;
  for (const MetricInfo& m : f.metrics) scales.push_back(scale_of(m, column_of(m, t), blocks));
  std::vector<double> spreads(f.comparisons.size(), 0.0), centrals(f.comparisons.size(), 0.0);
  std::vector<double> medians(f.comparisons.size(), kNaN);  // d's, kept for the second pass's methods
  for_each_index(f.comparisons.size(), o.threads, min_per_thread(blocks), [&](std::size_t i) {
    Comparison& c = f.comparisons[i];
    const MetricInfo& m = f.metrics[c.metric];
    Series s = pair_series(column_of(m, t), blocks, c.config, c.baseline);
    fill_differences(c, s, m, scales[c.metric], o.margin);
    spreads[i] = spread_of(s.d);
    if (!s.d.empty()) medians[i] = stats::median(s.d);
    if (s.d.size() >= 2) centrals[i] = central_scale(s.d);
  });
  PooledSpreads pooled = pooled_spreads(spreads, f);
  f.spread = std::move(pooled.spread);
  f.spread_df = std::move(pooled.df);
  f.robust_spread = median_spreads(centrals, f);
  // Drift, under held layout (there the dose is the only thing that differs) and in
  // the A/A control, at kDriftAlpha over all of them.
  std::size_t drift_family = 0;
  for (const Comparison& c : f.comparisons)
    if ((c.aa || c.layout == Layout::held) && c.n >= kMinDriftBlocks) ++drift_family;
  const MedianRanks ranks = o.fixed_design ? median_ranks(f, o) : MedianRanks{};
  const std::vector<std::size_t> doses = doses_per_metric(f);
  DriftFound drift(f.comparisons.size());
  for_each_index(f.comparisons.size(), o.threads, min_per_thread(blocks), [&](std::size_t i) {
    Comparison& c = f.comparisons[i];
    const Series s = series_of(t, blocks, f, c);
    infer(c, s, {o.alpha, f.spread[c.metric], o.fixed_design, kPredictionCap, magnitude_from, &ranks, medians[i],
                 f.spread_df[c.metric], doses[c.metric]});
    if (c.aa || c.layout == Layout::held) drift[i] = drift_of(c, s, drift_family, f.metrics[c.metric].unit);
  });
  return drift;
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
  for (Comparison& c : f.comparisons) c.significant = significant_at(c, alpha);
}

// The drift tests' results (compute_comparisons), their notes in the comparisons' order.
void test_drift(DriftFound& found, Findings& f) {
  for (std::size_t i = 0; i < f.comparisons.size(); ++i) {
    Comparison& c = f.comparisons[i];
    auto& [drift, note] = found[i];
    c.drift = std::move(drift);
    if (!note.empty())
      f.notes.push_back(fmt::format("{} {}/{}: {}", f.metrics[c.metric].name, c.level_label, layout_name(c), note));
  }
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
}  // namespace check_detail

Findings analyse_check(const Plan& plan, const std::vector<RunRecord>& runs, const AnalysisOptions& o) {
  return analyse_check(plan, run_table_of(runs), o);
}

Findings analyse_check(const Plan& plan, const RunTable& t, const AnalysisOptions& o) {
  namespace detail = check_detail;
  detail::validate(o);
  Findings f;
  f.margin = o.margin;
  f.alpha = o.alpha;
  f.looks_planned = o.looks_planned;
  f.metrics = check_metrics(plan, t);
  const detail::BlockRows blocks = detail::index_runs(plan, t, f);
  detail::hide_censored_peaks(t, blocks, f);

  detail::list_comparisons(plan, f);
  detail::DriftFound drift =
      detail::compute_comparisons(t, blocks, o, magnitude_first_blocks(plan.block_size(), o.alpha), f);
  detail::note_difference_metrics(f);
  detail::apply_holm(o.alpha, f);
  detail::test_drift(drift, f);
  const AaOutcome aa = judge_aa_control(f);
  const detail::Comparability comparability =
      detail::check_comparability(plan, t, blocks, o.allow_multiplex, f);

  // One verdict per metric and level that has comparisons.
  const VerdictInputs ctx{f, comparability.incomparable, aa.failed, aa.discrepancy,
                                  comparability.level_incomparable,
                                  plan.spec.fixed_blocks ? *plan.spec.fixed_blocks : plan.spec.max_blocks};
  judge_levels(plan, f, [&](std::size_t mi, std::size_t li, const std::vector<std::size_t>& idx) {
    return label_scaled(f, idx, judge_level(ctx, mi, li, idx));
  });
  f.counters = counter_validity(plan, t, f.metrics);

  detail::note_host_load(t, blocks, f);
  detail::find_trends(plan, t, blocks, f);
  return f;
}

}  // namespace obscheck
