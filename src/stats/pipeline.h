// The two entry points the rest of obscheck calls:
//
//   paired_log_effect: the paired pipeline for one configuration against its
//     baseline, block by block;
//   summarize: what `obscheck measure` prints for one series.
//
// Both are pure: (data, options incl. seed) -> value.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <span>
#include <string>

#include "stats/bootstrap.h"
#include "stats/descriptive.h"
#include "stats/hypothesis.h"

namespace obscheck::stats {

// The equivalence margin, default 1% (`--margin`).
inline constexpr double kDefaultMargin = 0.01;

// Block-bootstrap replicates per comparison. The bootstrap is the cross-check of the t
// interval (the wider wins), run for every comparison of a check (about 60
// for four counters) at every look, so it is most of the analysis' cost. With 4,000 the
// Monte Carlo error of a 2.5% limit is sqrt(0.025 * 0.975 / B) / phi(1.96) = 4% of the
// bootstrap SE, under half the tenth kDefaultResamples is chosen for (Efron &
// Tibshirani 1993 advise 1000-2000 for percentile limits), at 40% of the cost of 10,000.
inline constexpr std::size_t kPairedBootstrapResamples = 4000;

struct PairedOptions {
  double alpha = 0.05;             // two-sided test level; CIs at 1 - alpha
  double margin = kDefaultMargin;  // TOST margin eps on the ratio scale, 0 < eps < 1
  std::size_t sign_flip_exact_max_n = kSignFlipExactMaxN;
  std::size_t sign_flip_resamples = kSignFlipResamples;
  std::size_t bootstrap_resamples = kPairedBootstrapResamples;
  std::size_t block_length = 0;    // 0 -> Politis-White automatic
  std::uint64_t seed = 0;          // drives the Monte Carlo sign flips and the bootstrap
};

struct PairedEffect {
  std::size_t n;          // number of blocks (pairs)
  double mean_log;        // mean of d_i = ln(config_i) - ln(baseline_i)
  double effect;          // exp(mean_log) - 1: +0.03 means config is 3% larger

  Interval ci_log;        // the reported CI for mean_log (the wider of ci_t and ci_bootstrap)
  Interval ci_ratio;      // exp(ci_log): CI of config/baseline (subtract 1 for the effect)
  std::string ci_method;  // e.g. "t+HAC(lag=3)", "t+iid", "circular block bootstrap(b=4, B=4000)"

  Interval ci_t;          // mean_log +- t_{n-1} * se_used
  Interval ci_bootstrap;  // circular block bootstrap percentile CI of mean_log
  double se_iid;          // s / sqrt(n)
  double se_hac;          // Newey-West, Bartlett kernel, automatic lag
  std::size_t hac_lag;
  double se_used;         // max(se_iid, se_hac)
  std::size_t block_length;

  double p_value;         // sign-flip randomization test on d, two-sided
  std::string p_method;   // "sign-flip exact (2^n patterns)" or "sign-flip Monte Carlo (B=...)"
  bool p_exact;

  TostResult tost;        // equivalence within +-margin (see paired_log_effect)
};

// d_i = ln(config_i) - ln(baseline_i) for blocks i = 0..n-1 in time order.
//   effect   = exp(mean d) - 1
//   p-value  = sign_flip_test(d): exact for n <= sign_flip_exact_max_n, else Monte Carlo
//   CI       = the wider of  mean d +- t_{1-alpha/2, n-1} max(se_iid, se_hac)  and the
//              circular block bootstrap percentile interval (Kołaczkowski, "Estimating Benchmark Results Uncertainty")
//   TOST     = tost(mean d, se, n - 1, ln(1 - margin), ln(1 + margin), alpha) with se the
//              reported CI's half-width / t_{1-alpha/2, n-1}, so "equivalent" is judged
//              with the same (wider) uncertainty as the CI.
// Requirements: same length, n >= 2, every value finite and > 0 (durations, counts);
// otherwise std::invalid_argument. All d equal (deterministic counters): se = 0, CI is
// the point, p = 2/2^n (exact) or ~1/(B+1) when d != 0, p = 1 when d = 0.
PairedEffect paired_log_effect(std::span<const double> config, std::span<const double> baseline,
                               const PairedOptions& options = {});

struct SummaryOptions {
  double level = 0.95;
  std::size_t resamples = kDefaultResamples;
  std::uint64_t seed = 0;
};

struct Summary {
  std::size_t n;
  double mean;
  double median;
  FiveNumber five;
  double mad;                         // unscaled (see descriptive.h)
  double iqr;
  std::optional<double> stddev;       // n >= 2
  std::optional<double> cv;           // n >= 2 and mean != 0
  std::optional<Interval> median_ci;  // percentile bootstrap, n >= 2
  double level;
  std::size_t resamples;
  std::size_t outliers_mild;          // Tukey, beyond 1.5 IQR but within 3 IQR
  std::size_t outliers_severe;        // Tukey, beyond 3 IQR
};

// One series, e.g. wall times of the runs of one configuration. n >= 1; NaN/inf ->
// std::invalid_argument. The median CI costs O(1) per resample (see bootstrap.h), so
// 10,000 resamples are cheap even for n = 10^6. O(n log n) for the sort. A `table` that
// serves n values with these options' seed and resamples gives the median CI without
// drawing (the same interval); any other table, or none, and the draws are made here.
Summary summarize(std::span<const double> x, const SummaryOptions& options = {},
                  const MedianResampleTable* table = nullptr);

}  // namespace obscheck::stats
