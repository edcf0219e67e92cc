#include "stats/bootstrap.h"

#include <algorithm>
#include <bit>
#include <cstdint>
#include <cmath>
#include <limits>
#include <optional>
#include <utility>
#include <numeric>
#include <stdexcept>
#include <string>

#include <boost/math/distributions/normal.hpp>

#include "stats/dependence.h"
#include "stats/descriptive.h"
#include "stats/rng.h"
#include "stats/validate.h"

namespace obscheck::stats {

namespace {

// The block bootstrap's k-tuple table holds at most this many sums: 128 KiB of doubles
// stays in the L2 cache, and building it costs far less than the draws it saves.
constexpr std::size_t kTupleTableMaxEntries = 16384;

void check_options(const BootstrapOptions& o, const char* where) {
  require_level(o.level, where);
  if (o.resamples == 0) {
    throw std::invalid_argument(std::string(where) + ": resamples must be at least 1");
  }
}

// The replicates' standard deviation (n - 1), without variance()'s checks and
// compensated sum: replicates of finite data are finite.
double replicate_se(const std::vector<double>& r) {
  if (r.size() < 2) return 0.0;
  double sum = 0.0;
  for (double v : r) sum += v;
  return std::sqrt(variance_about(r, sum / static_cast<double>(r.size())));
}

// Median of an index-mapped sorted array: element p of the sample with element
// `skip` removed (skip == size means nothing removed).
double sorted_median_without(const std::vector<double>& s, std::size_t skip) {
  const std::size_t n = skip < s.size() ? s.size() - 1 : s.size();
  auto at = [&](std::size_t p) { return s[p < skip ? p : p + 1]; };
  if (n % 2 == 1) return at(n / 2);
  return at(n / 2 - 1) + (at(n / 2) - at(n / 2 - 1)) / 2.0;
}

// The sorted positions of bootstrap replicates of the median of n values, drawn through
// the order statistics of uniform indices (see the header). What every replicate shares
// (the Beta shapes' constants, the exponent of the second order statistic) is computed
// once: the arithmetic of each draw is unchanged, so are its bits.
class MedianPositionDrawer {
 public:
  explicit MedianPositionDrawer(std::size_t n)
      : nd_(static_cast<double>(n)), odd_(n % 2 == 1), k_(kth(n)), a_(k_), b_(nd_ - k_ + 1.0),
        rest_exponent_(odd_ ? 0.0 : 1.0 / (nd_ - k_)) {}

  MedianPositions operator()(Rng& rng) const {
    if (odd_) {
      const std::size_t i = position(rng.beta(a_, b_));
      return {i, i};
    }
    const double u1 = rng.beta(a_, b_);
    // The minimum of the n - k uniforms above u1: u1 + (1 - u1) Beta(1, n - k).
    const double u2 = u1 + (1.0 - u1) * (1.0 - std::pow(rng.uniform_open(), rest_exponent_));
    return {position(u1), position(u2)};
  }
  bool odd() const { return odd_; }

 private:
  // The order statistic drawn first: the middle one (odd n) or the lower middle one.
  static double kth(std::size_t n) { return static_cast<double>(n % 2 == 1 ? (n + 1) / 2 : n / 2); }
  std::size_t position(double u) const {
    const double j = std::ceil(nd_ * u);
    return static_cast<std::size_t>(std::clamp(j, 1.0, nd_)) - 1;
  }
  double nd_;
  bool odd_;
  double k_;
  Rng::GammaShape a_, b_;
  double rest_exponent_;
};

// The replicate a draw's positions give on sorted data s: the value there (odd n) or the
// midpoint of the two.
double median_at(const std::vector<double>& s, bool odd, MedianPositions p) {
  if (odd) return s[p.lo];
  const double a = s[p.lo], b = s[p.hi];
  return a + (b - a) / 2.0;
}

// Bootstrap replicates of the median of sorted data s, one per call.
class MedianResampler {
 public:
  explicit MedianResampler(const std::vector<double>& s) : s_(s), draw_(s.size()) {}
  double operator()(Rng& rng) const { return median_at(s_, draw_.odd(), draw_(rng)); }

 private:
  const std::vector<double>& s_;
  MedianPositionDrawer draw_;
};

double resampled_mean(std::span<const double> x, Rng& rng) {
  double s = 0.0;
  for (std::size_t i = 0; i < x.size(); ++i) s += x[rng.index(x.size())];
  return s / static_cast<double>(x.size());
}

// Acceleration from jackknife influence values U (already divided by n_k).
double acceleration(const std::vector<double>& u) {
  double s2 = 0.0, s3 = 0.0;
  for (double v : u) {
    s2 += v * v;
    s3 += v * v * v;
  }
  if (s2 <= 0.0) return 0.0;
  return s3 / (6.0 * std::pow(s2, 1.5));
}

// Appends (theta_bar - theta_(i)) / n for the jackknife values theta.
void append_influence(const std::vector<double>& theta, std::vector<double>& u) {
  const double bar = std::accumulate(theta.begin(), theta.end(), 0.0) / static_cast<double>(theta.size());
  for (double t : theta) u.push_back((bar - t) / static_cast<double>(theta.size()));
}

BootstrapResult finish(double estimate, std::vector<double>& reps, double a, double level) {
  const boost::math::normal std_normal;
  const double b = static_cast<double>(reps.size());
  std::sort(reps.begin(), reps.end());
  const auto below = std::lower_bound(reps.begin(), reps.end(), estimate) - reps.begin();
  const auto upto = std::upper_bound(reps.begin(), reps.end(), estimate) - reps.begin();
  double prop = (static_cast<double>(below) + 0.5 * static_cast<double>(upto - below)) / b;
  prop = std::clamp(prop, 0.5 / b, 1.0 - 0.5 / b);
  const double z0 = reps.size() > 1 ? boost::math::quantile(std_normal, prop) : 0.0;

  BootstrapResult r{};
  r.estimate = estimate;
  r.z0 = z0;
  r.acceleration = a;
  r.se = replicate_se(reps);
  r.resamples = reps.size();
  const double tail = (1.0 - level) / 2.0;
  r.percentile = {quantile_sorted(reps, tail), quantile_sorted(reps, 1.0 - tail)};
  auto adjusted = [&](double p) {
    const double z = boost::math::quantile(std_normal, p);
    const double num = z0 + z;
    const double denom = 1.0 - a * num;
    if (denom <= 0.0) return p < 0.5 ? 0.0 : 1.0;
    return boost::math::cdf(std_normal, z0 + num / denom);
  };
  r.bca = {quantile_sorted(reps, adjusted(tail)), quantile_sorted(reps, adjusted(1.0 - tail))};
  return r;
}

std::vector<double> jackknife(const std::vector<double>& sorted_or_raw, Statistic s) {
  const std::size_t n = sorted_or_raw.size();
  std::vector<double> theta(n);
  if (s == Statistic::mean) {
    const double total = std::accumulate(sorted_or_raw.begin(), sorted_or_raw.end(), 0.0);
    for (std::size_t i = 0; i < n; ++i) theta[i] = (total - sorted_or_raw[i]) / static_cast<double>(n - 1);
  } else {
    for (std::size_t i = 0; i < n; ++i) theta[i] = sorted_median_without(sorted_or_raw, i);
  }
  return theta;
}

// The sums of every k-tuple of `values` (n^k of them; a tuple's index read as k base-n
// digits), so that one uniform index into them stands for k independent uniform draws.
std::vector<double> tuple_sums(const std::vector<double>& values, std::size_t k) {
  std::vector<double> sums{0.0};
  for (std::size_t d = 0; d < k; ++d) {
    std::vector<double> longer;
    longer.reserve(sums.size() * values.size());
    for (double s : sums)
      for (double v : values) longer.push_back(s + v);
    sums.swap(longer);
  }
  return sums;
}

double window_sum(const std::vector<double>& prefix, std::size_t n, std::size_t start,
                  std::size_t len) {
  if (start + len <= n) return prefix[start + len] - prefix[start];
  return (prefix[n] - prefix[start]) + prefix[start + len - n];
}

std::size_t total_size(std::span<const std::vector<double>> groups, const char* where) {
  if (groups.size() < 2) {
    throw std::invalid_argument(std::string(where) + ": needs at least 2 contexts, got " +
                                std::to_string(groups.size()));
  }
  std::size_t total = 0;
  for (std::size_t c = 0; c < groups.size(); ++c) {
    if (groups[c].empty()) {
      throw std::invalid_argument(std::string(where) + ": context " + std::to_string(c) +
                                  " has no runs");
    }
    require_finite(groups[c], where, "context");
    total += groups[c].size();
  }
  return total;
}

double grand_mean(std::span<const std::vector<double>> groups) {
  double s = 0.0;
  std::size_t n = 0;
  for (const auto& g : groups) {
    for (double v : g) s += v;
    n += g.size();
  }
  return s / static_cast<double>(n);
}

double hierarchical_replicate(std::span<const std::vector<double>> groups, Rng& rng) {
  double s = 0.0;
  std::size_t n = 0;
  for (std::size_t c = 0; c < groups.size(); ++c) {
    const auto& g = groups[rng.index(groups.size())];
    for (std::size_t r = 0; r < g.size(); ++r) s += g[rng.index(g.size())];
    n += g.size();
  }
  return s / static_cast<double>(n);
}

// Definition-7 quantile of all of v by selection (one nth_element and one min_element
// pass instead of a sort), where v[0, first) is already known to hold only elements
// no greater than any in v[first, end) and the quantile's position is >= first.
double selected_quantile_from(std::vector<double>& v, std::ptrdiff_t first, double p) {
  const double h = static_cast<double>(v.size() - 1) * p;
  const auto lo = static_cast<std::size_t>(std::floor(h));
  std::nth_element(v.begin() + first, v.begin() + static_cast<std::ptrdiff_t>(lo), v.end());
  const double a = v[lo];
  if (lo + 1 >= v.size()) return a;
  const double b = *std::min_element(v.begin() + static_cast<std::ptrdiff_t>(lo) + 1, v.end());
  return a + (h - static_cast<double>(lo)) * (b - a);
}

double selected_quantile(std::vector<double>& v, double p) { return selected_quantile_from(v, 0, p); }

// The tails are selected from a sample when there are at least this many replicates
// (fewer: nth_element over all of them is already cheap) ...
constexpr std::size_t kSampledSelectionMin = 1000;
// ... and each tail holds at most 1/kSampledTailFraction of them.
constexpr std::size_t kSampledTailFraction = 8;
// Every kSampleStride-th replicate forms the sample. Replicates come in the order they
// were drawn, so it is a random sample of them; only the speed depends on that, never
// the result (a cut-off that falls short means the full selection).
constexpr std::size_t kSampleStride = 8;
// Each cut-off is taken this many binomial standard deviations past the sample rank
// expected for the order statistics wanted, towards the middle, so the tail beyond it
// almost always holds them; when it does not, the exact selection over all replicates
// is used instead.
constexpr double kCutoffSigmas = 4.0;

// The values at sorted positions lo and lo + 1 of all of v, given `part`: every
// element of v on one side of a cut-off (v's part.size() smallest or largest, ties at
// the cut-off included), holding both positions; `offset` is the sorted position in v
// of part's smallest element (0 or n - part.size()).
std::pair<double, double> pair_at(std::vector<double>& part, std::size_t lo, std::size_t offset) {
  const auto i = static_cast<std::ptrdiff_t>(lo - offset);
  std::nth_element(part.begin(), part.begin() + i, part.end());
  return {part[static_cast<std::size_t>(i)], *std::min_element(part.begin() + i + 1, part.end())};
}

// Definition-7 quantiles at h_lo and h_hi ((n-1)p for the two tails) found by
// selecting only among the replicates beyond two cut-offs taken from a sample. The
// values are those of a selection over all of v. nullopt when the shortcut does not
// apply (too few replicates, wide tails, or a cut-off fell short).
std::optional<Interval> sampled_tails(const std::vector<double>& v, double h_lo, double h_hi) {
  const std::size_t n = v.size();
  const auto lo = static_cast<std::size_t>(std::floor(h_lo));
  const auto hi = static_cast<std::size_t>(std::floor(h_hi));
  const std::size_t need_lo = lo + 2, need_hi = n - hi;  // elements each side must hold
  if (n < kSampledSelectionMin || hi + 1 >= n || need_lo * kSampledTailFraction > n ||
      need_hi * kSampledTailFraction > n)
    return std::nullopt;
  std::vector<double> sample;
  sample.reserve(n / kSampleStride + 1);
  for (std::size_t i = 0; i < n; i += kSampleStride) sample.push_back(v[i]);
  const double m = static_cast<double>(sample.size());
  const auto rank = [&](std::size_t need) {
    const double expected = static_cast<double>(need) * m / static_cast<double>(n);
    return std::min(sample.size() - 1, static_cast<std::size_t>(std::ceil(expected + kCutoffSigmas * std::sqrt(expected))));
  };
  const std::size_t r_lo = rank(need_lo), r_hi = sample.size() - 1 - rank(need_hi);
  std::nth_element(sample.begin(), sample.begin() + static_cast<std::ptrdiff_t>(r_lo), sample.end());
  const double cut_lo = sample[r_lo];
  std::nth_element(sample.begin(), sample.begin() + static_cast<std::ptrdiff_t>(r_hi), sample.end());
  const double cut_hi = sample[r_hi];
  std::vector<double> below, above;
  for (double x : v) {
    if (x <= cut_lo) below.push_back(x);
    if (x >= cut_hi) above.push_back(x);
  }
  if (below.size() < need_lo || above.size() < need_hi) return std::nullopt;
  const auto [a_lo, b_lo] = pair_at(below, lo, 0);
  const auto [a_hi, b_hi] = pair_at(above, hi, n - above.size());
  return Interval{a_lo + (h_lo - static_cast<double>(lo)) * (b_lo - a_lo),
                  a_hi + (h_hi - static_cast<double>(hi)) * (b_hi - a_hi)};
}

// percentile_interval without its checks, for replicates drawn here from validated data.
Interval replicate_interval(std::vector<double>& replicates, double level) {
  const double tail = (1.0 - level) / 2.0;
  const std::size_t n = replicates.size();
  const double h_lo = static_cast<double>(n - 1) * tail;
  const double h_hi = static_cast<double>(n - 1) * (1.0 - tail);
  if (const auto fast = sampled_tails(replicates, h_lo, h_hi)) return *fast;
  const double lo = selected_quantile(replicates, tail);
  // The first selection left every element above the lower quantile's position after
  // it: the upper one is selected among those alone (the same order statistic).
  const auto split = static_cast<std::ptrdiff_t>(std::floor(h_lo)) + 1;
  if (static_cast<double>(split) > h_hi || split >= static_cast<std::ptrdiff_t>(n))
    return {lo, selected_quantile(replicates, 1.0 - tail)};
  return {lo, selected_quantile_from(replicates, split, 1.0 - tail)};
}

}  // namespace

Interval percentile_interval(std::vector<double>& replicates, double level) {
  require_level(level, "percentile_interval");
  require_sample(replicates, 1, "percentile_interval", "replicates");
  return replicate_interval(replicates, level);
}

BootstrapResult bootstrap(std::span<const double> x, Statistic statistic,
                          const BootstrapOptions& options) {
  require_sample(x, 2, "bootstrap");
  check_options(options, "bootstrap");
  Rng rng(options.seed);
  std::vector<double> reps(options.resamples);
  std::vector<double> data(x.begin(), x.end());
  double estimate;
  if (statistic == Statistic::mean) {
    estimate = mean(x);
    for (double& r : reps) r = resampled_mean(x, rng);
  } else {
    std::sort(data.begin(), data.end());
    estimate = sorted_median_without(data, data.size());
    const MedianResampler resampled_median(data);
    for (double& r : reps) r = resampled_median(rng);
  }
  std::vector<double> u;
  append_influence(jackknife(data, statistic), u);
  return finish(estimate, reps, acceleration(u), options.level);
}

namespace {

// The sorted copy of x, or nothing when all its values are bit-for-bit equal: then every
// replicate is that value and no draw is needed.
std::optional<std::vector<double>> varying_sorted(std::span<const double> x, const char* where) {
  auto data = sorted_copy(x, where);
  const auto bits = [](double v) { return std::bit_cast<std::uint64_t>(v); };
  if (std::all_of(data.begin(), data.end(), [&](double v) { return bits(v) == bits(data.front()); }))
    return std::nullopt;
  return data;
}

}  // namespace

MedianResampleTable::MedianResampleTable(std::size_t n, const BootstrapOptions& options) : n_(n), options_(options) {
  const char* where = "MedianResampleTable";
  if (n < 2) throw std::invalid_argument(std::string(where) + ": n must be at least 2, got " + std::to_string(n));
  check_options(options, where);
  Rng rng(options.seed);
  const MedianPositionDrawer draw(n);
  positions_.resize(options.resamples);
  for (MedianPositions& p : positions_) p = draw(rng);
}

bool MedianResampleTable::serves(std::size_t n, const BootstrapOptions& o) const {
  return n == n_ && o.resamples == options_.resamples && o.seed == options_.seed;
}

Interval bootstrap_median_percentile(std::span<const double> x, const BootstrapOptions& options) {
  const char* where = "bootstrap_median_percentile";
  require_sample(x, 2, where);
  check_options(options, where);
  const auto data = varying_sorted(x, where);
  if (!data) return {x.front(), x.front()};
  Rng rng(options.seed);
  std::vector<double> reps(options.resamples);
  const MedianResampler resampled_median(*data);
  for (double& r : reps) r = resampled_median(rng);
  return replicate_interval(reps, options.level);
}

Interval bootstrap_median_percentile(std::span<const double> x, double level, const MedianResampleTable& table) {
  const char* where = "bootstrap_median_percentile";
  require_sample(x, 2, where);
  require_level(level, where);
  if (x.size() != table.n())
    throw std::invalid_argument(std::string(where) + ": the table is for " + std::to_string(table.n()) +
                                " values, the sample has " + std::to_string(x.size()));
  const auto data = varying_sorted(x, where);
  if (!data) return {x.front(), x.front()};
  const bool odd = x.size() % 2 == 1;
  std::vector<double> reps;
  reps.reserve(table.positions_.size());
  for (const MedianPositions& p : table.positions_) reps.push_back(median_at(*data, odd, p));
  return replicate_interval(reps, level);
}

BootstrapResult bootstrap_ratio_of_medians(std::span<const double> numerator,
                                           std::span<const double> denominator,
                                           const BootstrapOptions& options) {
  const char* where = "bootstrap_ratio_of_medians";
  require_sample(numerator, 2, where, "numerator");
  require_sample(denominator, 2, where, "denominator");
  check_options(options, where);
  auto a = sorted_copy(numerator, where);
  auto b = sorted_copy(denominator, where);
  const double ma = sorted_median_without(a, a.size());
  const double mb = sorted_median_without(b, b.size());
  if (!(ma > 0.0 && mb > 0.0)) {
    throw std::invalid_argument(std::string(where) + ": both medians must be > 0, got " +
                                std::to_string(ma) + " and " + std::to_string(mb));
  }
  Rng rng(options.seed);
  std::vector<double> reps(options.resamples);
  const MedianResampler resampled_a(a), resampled_b(b);
  for (double& r : reps) {
    const double na = resampled_a(rng);
    const double nb = resampled_b(rng);
    // A resampled denominator median can only be one of the (positive-median) sample's
    // central values; guard anyway so a zero never yields inf.
    r = nb > 0.0 ? na / nb : ma / mb;
  }
  std::vector<double> u;
  auto ja = jackknife(a, Statistic::median);
  for (double& t : ja) t /= mb;
  auto jb = jackknife(b, Statistic::median);
  for (double& t : jb) t = t > 0.0 ? ma / t : ma / mb;
  append_influence(ja, u);
  append_influence(jb, u);
  return finish(ma / mb, reps, acceleration(u), options.level);
}

namespace {

// The replicates' means of a circular block bootstrap from the window sums of every
// start (full blocks of length b and, when b does not divide n, one rest window).
void block_replicates(const std::vector<double>& block_sum, const std::vector<double>& rest_sum, std::size_t n,
                      std::size_t full, std::size_t rest, std::uint64_t seed, std::vector<double>& reps) {
  // The full blocks of a replicate are drawn k at a time from the sums of every
  // k-tuple of windows: k independent uniform starts are one uniform tuple, so the
  // replicates have the same distribution, for k times fewer draws and lookups.
  std::size_t k = 1, entries = n;
  while (k < full && entries * n <= kTupleTableMaxEntries) {
    entries *= n;
    ++k;
  }
  const std::size_t groups = full / k, leftover = full % k;
  const std::vector<double> tuples = tuple_sums(block_sum, k), leftovers = tuple_sums(block_sum, leftover);
  Rng rng(seed);
  HalfWordIndex tuple_start(rng, static_cast<std::uint32_t>(tuples.size()));
  HalfWordIndex leftover_start(rng, static_cast<std::uint32_t>(leftovers.size()));
  HalfWordIndex rest_start(rng, static_cast<std::uint32_t>(n));
  for (double& r : reps) {
    // Two running sums: one chain of dependent additions would be the bottleneck.
    double even = 0.0, odd = 0.0;
    std::size_t g = 0;
    for (; g + 1 < groups; g += 2) {
      even += tuples[tuple_start()];
      odd += tuples[tuple_start()];
    }
    if (g < groups) even += tuples[tuple_start()];
    if (leftover > 0) odd += leftovers[leftover_start()];
    if (rest > 0) even += rest_sum[rest_start()];
    r = (even + odd) / static_cast<double>(n);
  }
}

}  // namespace

BlockBootstrapResult circular_block_bootstrap_mean(std::span<const double> x,
                                                   const BootstrapOptions& options,
                                                   std::size_t block_length) {
  const char* where = "circular_block_bootstrap_mean";
  require_sample(x, 2, where);
  check_options(options, where);
  const std::size_t n = x.size();
  if (n > std::numeric_limits<std::uint32_t>::max())
    throw std::invalid_argument(std::string(where) + ": at most 2^32 - 1 values (block starts are 32-bit draws)");
  std::size_t b = block_length == 0 ? politis_white_block_length(x).circular_blocks : block_length;
  b = std::clamp<std::size_t>(b, 1, n);

  std::vector<double> prefix(n + 1, 0.0);
  for (std::size_t i = 0; i < n; ++i) prefix[i + 1] = prefix[i] + x[i];
  const std::size_t full = n / b;
  const std::size_t rest = n - full * b;
  // There are only n windows of each length: their sums are taken once here, so a
  // replicate is one table lookup per drawn start (the same values window_sum gives).
  std::vector<double> block_sum(n), rest_sum(rest > 0 ? n : 0);
  for (std::size_t start = 0; start < n; ++start) {
    block_sum[start] = window_sum(prefix, n, start, b);
    if (rest > 0) rest_sum[start] = window_sum(prefix, n, start, rest);
  }

  std::vector<double> reps(options.resamples);
  const auto all_equal = [](const std::vector<double>& v) {
    return std::all_of(v.begin(), v.end(), [&](double w) { return w == v.front(); });
  };
  if (all_equal(block_sum) && (rest_sum.empty() || all_equal(rest_sum))) {
    // Every window has the same sum (a constant series, e.g. a counter that never
    // differs): whatever starts are drawn, each replicate is this one value.
    double s = 0.0;
    for (std::size_t k = 0; k < full; ++k) s += block_sum.front();
    if (rest > 0) s += rest_sum.front();
    std::fill(reps.begin(), reps.end(), s / static_cast<double>(n));
  } else {
    block_replicates(block_sum, rest_sum, n, full, rest, options.seed, reps);
  }
  BlockBootstrapResult res{};
  res.estimate = mean(x);
  res.se = replicate_se(reps);
  res.percentile = replicate_interval(reps, options.level);
  res.block_length = b;
  res.resamples = options.resamples;
  return res;
}

HierarchicalResult hierarchical_bootstrap_mean(std::span<const std::vector<double>> contexts,
                                               const BootstrapOptions& options) {
  const char* where = "hierarchical_bootstrap_mean";
  total_size(contexts, where);
  check_options(options, where);
  Rng rng(options.seed);
  std::vector<double> reps(options.resamples);
  for (double& r : reps) r = hierarchical_replicate(contexts, rng);
  HierarchicalResult res{};
  res.estimate = grand_mean(contexts);
  res.se = replicate_se(reps);
  res.percentile = replicate_interval(reps, options.level);
  res.resamples = options.resamples;
  return res;
}

HierarchicalResult hierarchical_bootstrap_ratio_of_means(
    std::span<const std::vector<double>> numerator,
    std::span<const std::vector<double>> denominator, const BootstrapOptions& options) {
  const char* where = "hierarchical_bootstrap_ratio_of_means";
  total_size(numerator, where);
  total_size(denominator, where);
  check_options(options, where);
  const double den = grand_mean(denominator);
  if (!(den > 0.0)) {
    throw std::invalid_argument(std::string(where) + ": the denominator mean must be > 0, got " +
                                std::to_string(den));
  }
  Rng rng(options.seed);
  std::vector<double> reps(options.resamples);
  for (double& r : reps) {
    const double a = hierarchical_replicate(numerator, rng);
    const double b = hierarchical_replicate(denominator, rng);
    r = b > 0.0 ? a / b : grand_mean(numerator) / den;
  }
  HierarchicalResult res{};
  res.estimate = grand_mean(numerator) / den;
  res.se = replicate_se(reps);
  res.percentile = replicate_interval(reps, options.level);
  res.resamples = options.resamples;
  return res;
}

}  // namespace obscheck::stats
