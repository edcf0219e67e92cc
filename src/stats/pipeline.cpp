#include "stats/pipeline.h"

#include <algorithm>
#include <cmath>
#include <stdexcept>
#include <string>
#include <vector>


#include "stats/dependence.h"
#include "stats/distributions.h"
#include "stats/outliers.h"
#include "stats/validate.h"

namespace obscheck::stats {

namespace {

// Different streams for the sign flips and the bootstrap, both derived from the one
// seed, so changing resample counts of one never changes the draws of the other.
constexpr std::uint64_t kBootstrapStream = 0x6a09e667f3bcc909ull;

std::vector<double> log_ratios(std::span<const double> config, std::span<const double> baseline) {
  const char* where = "paired_log_effect";
  require_sample(config, 2, where, "config");
  require_sample(baseline, 2, where, "baseline");
  if (config.size() != baseline.size()) {
    throw std::invalid_argument(std::string(where) + ": config has " + std::to_string(config.size()) +
                                " blocks, baseline has " + std::to_string(baseline.size()) +
                                "; every block needs one value of each");
  }
  std::vector<double> d(config.size());
  for (std::size_t i = 0; i < d.size(); ++i) {
    if (!(config[i] > 0.0) || !(baseline[i] > 0.0)) {
      throw std::invalid_argument(std::string(where) + ": block " + std::to_string(i) +
                                  " has config " + std::to_string(config[i]) + " and baseline " +
                                  std::to_string(baseline[i]) +
                                  "; log ratios need values > 0 (a zero count cannot be compared as a ratio)");
    }
    d[i] = std::log(config[i]) - std::log(baseline[i]);
  }
  return d;
}

}  // namespace

PairedEffect paired_log_effect(std::span<const double> config, std::span<const double> baseline,
                               const PairedOptions& options) {
  require_alpha(options.alpha, "paired_log_effect");
  if (!(options.margin > 0.0 && options.margin < 1.0)) {
    throw std::invalid_argument("paired_log_effect: margin " + std::to_string(options.margin) +
                                " must lie strictly between 0 and 1 (0.01 = 1%)");
  }
  const auto d = log_ratios(config, baseline);
  const std::size_t n = d.size();
  const double df = static_cast<double>(n - 1);

  PairedEffect r{};
  r.n = n;
  r.mean_log = mean(d);
  r.effect = std::expm1(r.mean_log);

  r.se_iid = iid_se(d);
  const auto hac = hac_se(d);
  r.se_hac = hac.se;
  r.hac_lag = hac.lag;
  r.se_used = std::max(r.se_iid, r.se_hac);
  const double q = boost::math::quantile(StudentsT(df), 1.0 - options.alpha / 2.0);
  r.ci_t = {r.mean_log - q * r.se_used, r.mean_log + q * r.se_used};

  BootstrapOptions bo;
  bo.resamples = options.bootstrap_resamples;
  bo.level = 1.0 - options.alpha;
  bo.seed = options.seed ^ kBootstrapStream;
  const auto cbb = circular_block_bootstrap_mean(d, bo, options.block_length);
  r.ci_bootstrap = cbb.percentile;
  r.block_length = cbb.block_length;

  if (r.ci_bootstrap.width() > r.ci_t.width()) {
    r.ci_log = r.ci_bootstrap;
    r.ci_method =
        "circular block bootstrap(b=" + std::to_string(r.block_length) + ", B=" + std::to_string(cbb.resamples) + ")";
  } else {
    r.ci_log = r.ci_t;
    r.ci_method = r.se_hac > r.se_iid ? "t+HAC(lag=" + std::to_string(r.hac_lag) + ")" : "t+iid";
  }
  r.ci_ratio = {std::exp(r.ci_log.lo), std::exp(r.ci_log.hi)};

  SignFlipOptions so;
  so.exact_max_n = options.sign_flip_exact_max_n;
  so.resamples = options.sign_flip_resamples;
  so.seed = options.seed;
  const auto sf = sign_flip_test(d, so);
  r.p_value = sf.p_value;
  r.p_exact = sf.exact;
  r.p_method = sf.exact ? "sign-flip exact (2^" + std::to_string(n) + " patterns)"
                        : "sign-flip Monte Carlo (B=" + std::to_string(sf.patterns) + ")";

  // The TOST uses the uncertainty of the reported CI: its larger half-width in t units.
  const double half = std::max(r.mean_log - r.ci_log.lo, r.ci_log.hi - r.mean_log);
  const double se_tost = std::max(half / q, 0.0);
  r.tost = tost(r.mean_log, se_tost, df, std::log1p(-options.margin), std::log1p(options.margin),
                options.alpha);
  return r;
}

Summary summarize(std::span<const double> x, const SummaryOptions& options, const MedianResampleTable* table) {
  require_sample(x, 1, "summarize");
  require_level(options.level, "summarize");
  const auto sorted = sorted_copy(x, "summarize");
  Summary s{};
  s.n = x.size();
  s.mean = mean(x);
  s.five = {sorted.front(), quantile_sorted(sorted, 0.25), quantile_sorted(sorted, 0.5),
            quantile_sorted(sorted, 0.75), sorted.back()};
  s.median = s.five.median;
  s.mad = mad(x);
  s.iqr = s.five.q3 - s.five.q1;
  s.level = options.level;
  s.resamples = 0;
  if (s.n >= 2) {
    s.stddev = stddev(x);
    if (s.mean != 0.0) s.cv = *s.stddev / std::fabs(s.mean);
    BootstrapOptions bo{options.resamples, options.level, options.seed};
    s.median_ci = table != nullptr && table->serves(sorted.size(), bo)
                      ? bootstrap_median_percentile(sorted, options.level, *table)
                      : bootstrap_median_percentile(sorted, bo);
    s.resamples = options.resamples;
  }
  const auto rep = label_outliers(x);
  s.outliers_mild = rep.mild_low + rep.mild_high;
  s.outliers_severe = rep.severe_low + rep.severe_high;
  return s;
}

}  // namespace obscheck::stats
