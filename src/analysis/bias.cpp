#include "analysis/bias.h"

#include <fmt/core.h>

#include <algorithm>
#include <functional>
#include <boost/math/distributions/fisher_f.hpp>
#include <cmath>
#include <limits>
#include <stdexcept>

#include "stats/descriptive.h"
#include "stats/hypothesis.h"

namespace obscheck {

namespace {

// Mean squares, F, its p-value and the variance components from the sums of squares
// and degrees of freedom; n0 is the number of values per context in the variance
// components (the average, adjusted, for unequal groups).
void finish_anova(OneWayAnova& a, double n0) {
  a.ms_between = a.ss_between / a.df_between;
  a.ms_within = a.ss_within / a.df_within;
  if (a.ms_within > 0) {
    a.f = a.ms_between / a.ms_within;
    boost::math::fisher_f dist(a.df_between, a.df_within);
    a.p_value = boost::math::cdf(boost::math::complement(dist, a.f));
  } else if (a.ms_between > 0) {
    a.f = std::numeric_limits<double>::infinity();
    a.p_value = 0;
  } else {
    a.f = 0;
    a.p_value = 1;
  }
  a.var_within = a.ms_within;
  a.var_between = std::max(0.0, (a.ms_between - a.ms_within) / n0);
  const double var_total = a.var_between + a.var_within;
  a.icc = var_total > 0 ? a.var_between / var_total : 0;
}

}  // namespace

OneWayAnova one_way_anova(std::span<const std::vector<double>> groups) {
  OneWayAnova a;
  a.groups = groups.size();
  if (a.groups < 2) throw std::invalid_argument("one_way_anova: at least 2 groups");
  double total = 0;
  for (const auto& g : groups) {
    if (g.empty()) throw std::invalid_argument("one_way_anova: an empty group");
    for (double x : g) {
      if (!std::isfinite(x)) throw std::invalid_argument("one_way_anova: a value is NaN or infinite");
      total += x;
    }
    a.n += g.size();
  }
  if (a.n <= a.groups) throw std::invalid_argument("one_way_anova: needs more values than groups");
  const double grand = total / static_cast<double>(a.n);
  double sum_n2 = 0;
  for (const auto& g : groups) {
    const double m = stats::mean(g);
    const double ni = static_cast<double>(g.size());
    a.ss_between += ni * (m - grand) * (m - grand);
    for (double x : g) a.ss_within += (x - m) * (x - m);
    sum_n2 += ni * ni;
  }
  a.df_between = static_cast<double>(a.groups - 1);
  a.df_within = static_cast<double>(a.n - a.groups);
  const double N = static_cast<double>(a.n);
  finish_anova(a, (N - sum_n2 / N) / a.df_between);
  return a;
}

OneWayAnova blocked_anova(std::span<const std::vector<double>> cells) {
  OneWayAnova a;
  a.groups = cells.size();
  const std::size_t r = a.groups > 0 ? cells.front().size() : 0;
  if (a.groups < 2 || r < 2) throw std::invalid_argument("blocked_anova: at least 2 contexts and 2 rounds");
  std::vector<double> round_sum(r, 0.0);
  double total = 0;
  for (const auto& row : cells) {
    if (row.size() != r) throw std::invalid_argument("blocked_anova: every context needs one value per round");
    for (std::size_t j = 0; j < r; ++j) {
      if (!std::isfinite(row[j])) throw std::invalid_argument("blocked_anova: a value is NaN or infinite");
      round_sum[j] += row[j];
      total += row[j];
    }
  }
  const double k = static_cast<double>(a.groups), rounds = static_cast<double>(r);
  a.n = a.groups * r;
  const double grand = total / (k * rounds);
  double ss_total = 0;
  for (const auto& row : cells) {
    const double m = stats::mean(row);
    a.ss_between += rounds * (m - grand) * (m - grand);
    for (double x : row) ss_total += (x - grand) * (x - grand);
  }
  for (double sum : round_sum) a.ss_blocks += k * (sum / k - grand) * (sum / k - grand);
  // Rounding can leave a residual of -1e-17 where the fit is exact.
  a.ss_within = std::max(0.0, ss_total - a.ss_between - a.ss_blocks);
  a.blocked = true;
  a.df_between = k - 1;
  a.df_blocks = rounds - 1;
  a.df_within = (k - 1) * (rounds - 1);
  finish_anova(a, rounds);
  return a;
}

namespace {

// The geometric mean and the back-transformed t interval of mean ln x.
void summarise_on_logs(const std::vector<double>& values, double alpha, ContextStat& s) {
  std::vector<double> logs;
  for (double x : values) logs.push_back(std::log(x));
  const bool varies = std::adjacent_find(values.begin(), values.end(), std::not_equal_to<>()) != values.end();
  // Runs that agree give their value itself, not exp(ln x), which may differ in the last bit.
  s.mean = varies ? std::exp(stats::mean(logs)) : values.front();
  if (s.n >= 2 && varies) {
    const stats::Interval ci = stats::one_sample_t(logs, 0.0, 1 - alpha).ci;
    s.mean_ci = stats::Interval{std::exp(ci.lo), std::exp(ci.hi)};
  } else if (s.n >= 2) {
    s.mean_ci = stats::Interval{s.mean, s.mean};  // every run the same: exact
  }
}

}  // namespace

namespace {

// ln of every analysed context's value per round, rounds in order, when each such
// context has exactly one value in each of the same two or more rounds; else empty
// (rounds unknown, a run failed, more than one run a round): the one-way test applies.
std::vector<std::vector<double>> by_round(std::span<const ContextSeries> contexts) {
  std::vector<std::vector<double>> cells;
  std::vector<std::size_t> rounds;
  for (const ContextSeries& c : contexts) {
    if (!c.failure.empty() || c.values.empty()) continue;
    if (c.rounds.size() != c.values.size()) return {};
    std::vector<std::size_t> order(c.values.size());
    for (std::size_t i = 0; i < order.size(); ++i) order[i] = i;
    std::sort(order.begin(), order.end(), [&](std::size_t x, std::size_t y) { return c.rounds[x] < c.rounds[y]; });
    std::vector<std::size_t> these;
    std::vector<double> row;
    for (std::size_t i : order) {
      these.push_back(c.rounds[i]);
      row.push_back(std::log(c.values[i]));
    }
    if (std::adjacent_find(these.begin(), these.end()) != these.end()) return {};
    if (cells.empty()) rounds = these;
    else if (these != rounds) return {};
    cells.push_back(std::move(row));
  }
  if (cells.size() < 2 || rounds.size() < 2) return {};
  return cells;
}

// Each context's summary on the log scale, in b.contexts; a failed or empty context in
// b.failed. Returns the contexts' geometric means.
std::vector<double> summarise_contexts(std::span<const ContextSeries> contexts, double alpha, BiasAnalysis& b) {
  std::vector<double> means;
  for (const ContextSeries& c : contexts) {
    if (!c.failure.empty() || c.values.empty()) {
      b.failed.push_back(c);
      if (b.failed.back().failure.empty()) b.failed.back().failure = "no successful run";
      continue;
    }
    for (double x : c.values)
      if (!std::isfinite(x) || x <= 0)
        throw std::invalid_argument("analyse_bias: values must be finite and > 0 (context " + c.label + ")");
    ContextStat s;
    s.id = c.id;
    s.label = c.label;
    s.n = c.values.size();
    s.median = stats::median(c.values);
    summarise_on_logs(c.values, alpha, s);
    means.push_back(s.mean);
    b.contexts.push_back(std::move(s));
  }
  return means;
}

// Each context's ratio to the median of the means, their five numbers, the extremes
// and the swing.
void ratios_to_median(const std::vector<double>& means, BiasAnalysis& b) {
  b.median_of_means = stats::median(means);
  std::vector<double> ratios;
  for (ContextStat& s : b.contexts) {
    s.ratio = s.mean / b.median_of_means;
    if (s.mean_ci) s.ratio_ci = stats::Interval{s.mean_ci->lo / b.median_of_means, s.mean_ci->hi / b.median_of_means};
    ratios.push_back(s.ratio);
  }
  const stats::FiveNumber five = stats::five_number(ratios);
  b.ratio_min = five.min;
  b.ratio_q1 = five.q1;
  b.ratio_median = five.median;
  b.ratio_q3 = five.q3;
  b.ratio_max = five.max;
  for (std::size_t i = 0; i < b.contexts.size(); ++i) {
    if (b.contexts[i].ratio < b.contexts[b.lowest].ratio) b.lowest = i;
    if (b.contexts[i].ratio > b.contexts[b.highest].ratio) b.highest = i;
  }
  b.swing = b.ratio_max / b.ratio_min - 1;

}

// Whether the spread across contexts exceeds run-to-run noise: exact values against the
// margin; else the blocked ANOVA when the rounds make a complete design, else one-way.
void judge_spread(const std::string& metric, std::span<const ContextSeries> contexts, double alpha, double margin,
                  BiasAnalysis& b) {
  std::vector<std::vector<double>> logs;
  std::size_t n = 0;
  for (const ContextSeries& c : contexts) {
    if (!c.failure.empty() || c.values.empty()) continue;
    std::vector<double> l;
    for (double x : c.values) l.push_back(std::log(x));
    n += l.size();
    logs.push_back(std::move(l));
  }
  const std::vector<std::vector<double>> cells = by_round(contexts);
  if (logs.size() < 2) {
    b.method = "one context: nothing to compare it with";
  } else if (n <= logs.size()) {
    b.method = "one run per context: no run-to-run noise to compare the spread with (use --runs 2 or more)";
  } else if (std::all_of(logs.begin(), logs.end(), [](const std::vector<double>& l) {
               return std::adjacent_find(l.begin(), l.end(), std::not_equal_to<>()) == l.end();
             })) {
    // No run differs from the others of its context: exact values, no noise.
    b.exact = true;
    b.exceeds_noise = b.swing > margin;
    b.method = fmt::format(
        "exact: every run of a context gives the same {}, so there is no run-to-run noise to test against (no F, "
        "no p); the contexts differ by {:.4g}% at most, {} the ±{:g}% margin",
        metric, 100 * b.swing, b.exceeds_noise ? "beyond" : "within", 100 * margin);
  } else if (!cells.empty()) {
    b.spread = blocked_anova(cells);
    b.exceeds_noise = b.spread->p_value < alpha;
    b.method = fmt::format(
        "two-way ANOVA on ln({}), contexts crossed with rounds (the rounds as blocks: drift between rounds is "
        "taken out of the noise): F({:g}, {:g}) = {:.3g}, p = {:.3g} (alpha {:g}); between-context share of the "
        "variance {:.0f}%",
        metric, b.spread->df_between, b.spread->df_within, b.spread->f, b.spread->p_value, alpha,
        100 * b.spread->icc);
  } else {
    b.spread = one_way_anova(logs);
    b.exceeds_noise = b.spread->p_value < alpha;
    b.method = fmt::format(
        "one-way random-effects ANOVA on ln({}), contexts as groups: F({:g}, {:g}) = {:.3g}, p = {:.3g} "
        "(alpha {:g}); between-context share of the variance {:.0f}%",
        metric, b.spread->df_between, b.spread->df_within, b.spread->f, b.spread->p_value, alpha,
        100 * b.spread->icc);
  }
}

}  // namespace

namespace {

// The running fractions of the runs analysed (failed contexts' runs are not).
ScaledCounter bias_scaling(const std::string& metric, std::span<const ContextSeries> contexts, bool allow_multiplex) {
  std::vector<double> running;
  for (const ContextSeries& s : contexts) {
    if (!s.failure.empty() || s.values.empty()) continue;
    for (std::size_t i = 0; i < s.values.size(); ++i) running.push_back(i < s.running.size() ? s.running[i] : 1.0);
  }
  return scaled_counter(metric, running, allow_multiplex);
}

}  // namespace

BiasAnalysis analyse_bias(const std::string& metric, std::span<const ContextSeries> contexts, double alpha,
                          double margin, bool allow_multiplex) {
  BiasAnalysis b;
  b.metric = metric;
  b.alpha = alpha;
  b.margin = margin;
  const std::vector<double> means = summarise_contexts(contexts, alpha, b);
  if (b.contexts.empty()) throw std::invalid_argument("analyse_bias: no context has a value");
  ratios_to_median(means, b);
  judge_spread(metric, contexts, alpha, margin, b);
  b.scaled = bias_scaling(metric, contexts, allow_multiplex);
  if (b.scaled.incomparable()) b.exceeds_noise = false;
  return b;
}

}  // namespace obscheck
