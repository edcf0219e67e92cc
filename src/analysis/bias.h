// analysis/: measurement bias across contexts (Mytkowicz et al., "Observer Effect and Measurement Bias in Performance Analysis" §4.2) — how far one
// program's metric swings when only its measurement context changes, and whether
// that swing is larger than run-to-run noise. Pure: values in, values out.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "analysis/scaled_counter.h"
#include "stats/bootstrap.h"

namespace obscheck {

// One-way analysis of variance with contexts as the groups (the random-effects
// reading: contexts are a sample of all possible contexts). With k groups, N values,
// group means m_i, grand mean m:
//   SSB = sum n_i (m_i - m)^2, df_b = k - 1;  SSW = sum sum (x_ij - m_i)^2, df_w = N - k
//   F = (SSB / df_b) / (SSW / df_w), p = P(F(df_b, df_w) >= F)  (Boost.Math)
// and the variance components of the random-effects model (ANOVA estimators):
//   n0 = (N - sum n_i^2 / N) / (k - 1);  s2_between = max(0, (MSB - MSW) / n0);  s2_within = MSW
// Edge cases: MSW = 0 and MSB > 0 -> F = inf, p = 0; MSW = MSB = 0 -> F = 0, p = 1.
// Requires k >= 2, every n_i >= 1, N > k, finite values; else std::invalid_argument.
struct OneWayAnova {
  std::size_t groups = 0, n = 0;
  // Set by blocked_anova: rounds entered as blocks, their sum of squares taken out of
  // the error term (ss_within, df_within are then the residual's).
  bool blocked = false;
  double ss_blocks = 0, df_blocks = 0;
  double ss_between = 0, ss_within = 0;
  double df_between = 0, df_within = 0;
  double ms_between = 0, ms_within = 0;
  double f = 0, p_value = 1;
  double var_between = 0, var_within = 0;  // variance components
  double icc = 0;                          // var_between / (var_between + var_within); 0 when both are 0
};
OneWayAnova one_way_anova(std::span<const std::vector<double>> groups);

// The same question with the rounds as blocks: a randomised complete block design, as
// the sweep runs it (each round visits every context once, in a fresh order), analysed
// by a two-way ANOVA without interaction. Drift between rounds (a host getting busier,
// a frequency change) then leaves the error term instead of inflating it and hiding a
// bias (Montgomery, "Design and Analysis of Experiments", the randomized complete
// block design). cells[i][j]: context i's value in round j. With k contexts, r rounds:
//   SS_context = r sum_i (m_i. - m)^2, SS_round = k sum_j (m_.j - m)^2,
//   SS_error = SS_total - SS_context - SS_round, df (k - 1), (r - 1), (k - 1)(r - 1);
//   F = MS_context / MS_error; variance components s2_between = max(0, (MS_context -
//   MS_error) / r), s2_within = MS_error. Requires k >= 2, r >= 2, every row of length r,
//   finite values; else std::invalid_argument.
OneWayAnova blocked_anova(std::span<const std::vector<double>> cells);

// One context's runs of the metric (failed runs excluded by the caller; a context
// with a failure is passed with `failure` set and is not analysed).
struct ContextSeries {
  std::size_t id = 0;
  std::string label;
  std::vector<double> values;
  std::string failure;
  // The round of each value (parallel to `values`), when known: with one value per
  // round in every context the spread test takes the rounds as blocks.
  std::vector<std::size_t> rounds;
  // The counter's time_running / time_enabled in each run (parallel to `values`), when
  // it is a counter: below 1 the value was scaled up from part of the run. Empty: exact
  // (wall time, or a backend that never multiplexes).
  std::vector<double> running;
};

// A context's values are positive (a duration, a count), so it is summarised on the
// log scale: `mean` is the geometric mean exp(mean ln x) and `mean_ci` the t interval
// of mean ln x, back-transformed. Both are always positive, whatever n; with n = 2 the
// interval is wide but never below zero (an arithmetic t interval of two runs gave
// "241.931 ms [-299.870 ms, 783.732 ms]"). The spread test works on the same logs.
struct ContextStat {
  std::size_t id = 0;
  std::string label;
  std::size_t n = 0;
  double mean = 0, median = 0;             // geometric mean; median
  std::optional<stats::Interval> mean_ci;  // t interval on logs, back-transformed; n >= 2 and runs differ
  double ratio = 0;                        // mean / (median of the context means)
  std::optional<stats::Interval> ratio_ci; // mean_ci / that median
};

struct BiasAnalysis {
  std::string metric;
  std::vector<ContextStat> contexts;        // analysed contexts, in id order
  std::vector<ContextSeries> failed;        // not analysed, with why
  double median_of_means = 0;               // the reference "median context"
  // Distribution of the ratios over contexts (definition-7 quartiles).
  double ratio_min = 0, ratio_q1 = 0, ratio_median = 0, ratio_q3 = 0, ratio_max = 0;
  std::size_t lowest = 0, highest = 0;      // indexes into `contexts` of the extremes
  double swing = 0;                         // ratio_max / ratio_min - 1
  std::optional<OneWayAnova> spread;        // on ln(values): needs >= 2 contexts and a run to spare
  bool exceeds_noise = false;               // spread->p_value < alpha; exact: swing beyond the margin
  double alpha = 0.05;
  // Every run of every context gave the same value as the other runs of its context
  // (the simulated PMU; a count the context fixes): there is no noise to test against,
  // so there is no F and no p. The per-context values are exact and the swing is the
  // answer: bias when it exceeds `margin` (a swing of a fraction of a percent in an
  // exact count is real but says nothing a performance analyst acts on).
  bool exact = false;
  double margin = 0.01;
  std::string method;                       // one line: how the verdict was reached
  // The metric's counter multiplexed in some analysed run (scaled_counter.h). Without
  // --allow-multiplex the metric is then incomparable: exceeds_noise is false whatever
  // the numbers say (scaled_counter_verdict says why); with it the analysis stands,
  // labelled scaled.
  ScaledCounter scaled;
  bool incomparable() const { return scaled.incomparable(); }
};

// Contexts with no values are treated as failed. Values must be finite and > 0 (a
// duration or a count; the spread test works on logs so a context that is 3% slower
// weighs the same at any scale). Throws std::invalid_argument when no context has
// values. With one context, or one run per context, the spread test is absent and
// exceeds_noise is false (method says why). `allow_multiplex`: a metric whose counter
// was multiplexed is analysed on its scaled values (labelled) instead of being
// incomparable.
BiasAnalysis analyse_bias(const std::string& metric, std::span<const ContextSeries> contexts,
                          double alpha = 0.05, double margin = 0.01, bool allow_multiplex = false);

}  // namespace obscheck
