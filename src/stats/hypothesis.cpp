#include "stats/hypothesis.h"

#include <algorithm>
#include <bit>
#include <cmath>
#include <limits>
#include <numeric>
#include <stdexcept>
#include <string>
#include <vector>

#include <boost/math/distributions/normal.hpp>

#include "stats/descriptive.h"
#include "stats/distributions.h"
#include "stats/rng.h"
#include "stats/special_values.h"
#include "stats/validate.h"

namespace obscheck::stats {

namespace {

// 2^30 patterns is the most an exact enumeration is allowed to walk.
constexpr std::size_t kSignFlipHardExactLimit = 30;
// Monte Carlo sign flips are summed a byte of sign bits at a time: 256 partial sums per
// chunk (2 KiB) stay in L1 for any n a sweep reaches, and a 64-bit draw is 8 chunks.
constexpr std::size_t kSignFlipChunkBits = 8;
constexpr std::size_t kSignFlipChunkPatterns = std::size_t{1} << kSignFlipChunkBits;
constexpr std::size_t kSignFlipChunksPerWord = 64 / kSignFlipChunkBits;

// P(T > t) for Student's t with df degrees of freedom (df = inf -> normal).
double t_upper_tail(double t, double df) {
  if (std::isinf(t)) return t > 0 ? 0.0 : 1.0;
  if (std::isinf(df)) return boost::math::cdf(boost::math::complement(Normal(), t));
  return boost::math::cdf(boost::math::complement(StudentsT(df), t));
}

double t_quantile(double p, double df) {
  if (std::isinf(df)) return boost::math::quantile(Normal(), p);
  return boost::math::quantile(StudentsT(df), p);
}

TTestResult t_result(double estimate, double se, double df, double level) {
  TTestResult r{};
  r.estimate = estimate;
  r.se = se;
  r.df = df;
  if (se > 0.0) {
    r.t = estimate / se;
    r.p_value = std::min(1.0, 2.0 * t_upper_tail(std::fabs(r.t), df));
  } else if (estimate == 0.0) {
    r.t = 0.0;
    r.p_value = 1.0;
  } else {
    r.t = estimate > 0 ? kInf : -kInf;
    r.p_value = 0.0;
  }
  const double q = t_quantile((1.0 + level) / 2.0, df);
  r.ci = {estimate - q * se, estimate + q * se};
  return r;
}

// Mid-ranks (1-based) of v; returns sum over tie groups of (t^3 - t) in `ties`.
std::vector<double> mid_ranks(std::span<const double> v, double& ties) {
  std::vector<std::size_t> idx(v.size());
  std::iota(idx.begin(), idx.end(), 0);
  std::sort(idx.begin(), idx.end(), [&](std::size_t a, std::size_t b) { return v[a] < v[b]; });
  std::vector<double> r(v.size());
  ties = 0.0;
  for (std::size_t i = 0; i < idx.size();) {
    std::size_t j = i;
    while (j + 1 < idx.size() && v[idx[j + 1]] == v[idx[i]]) ++j;
    const double rank = (static_cast<double>(i) + static_cast<double>(j)) / 2.0 + 1.0;
    for (std::size_t k = i; k <= j; ++k) r[idx[k]] = rank;
    const double t = static_cast<double>(j - i + 1);
    ties += t * t * t - t;
    i = j + 1;
  }
  return r;
}

// Coefficients of the Gaussian binomial [m+n choose m]_q: the number of orderings with
// U = u (Mann & Whitney 1947).
std::vector<double> mann_whitney_counts(std::size_t m, std::size_t n) {
  std::vector<double> p(m * n + 1, 0.0);
  p[0] = 1.0;
  for (std::size_t i = 1; i <= m; ++i) {
    const std::size_t up = n + i;
    for (std::size_t k = p.size(); k-- > up;) p[k] -= p[k - up];  // * (1 - q^(n+i))
    for (std::size_t k = i; k < p.size(); ++k) p[k] += p[k - i];  // / (1 - q^i)
  }
  return p;
}

// Patterns whose |sum| reaches the threshold among all 2^n, the observed one
// included: a Gray-code walk, each step flips one sign, O(1) per pattern.
std::uint64_t exact_sign_flip_count(std::span<const double> d, double observed, double threshold) {
  const std::uint64_t patterns = std::uint64_t{1} << d.size();
  std::uint64_t negative = 0;  // bit i set: sign of d_i is -
  double t = observed;
  std::uint64_t count = 1;  // the observed pattern
  for (std::uint64_t g = 1; g < patterns; ++g) {
    const int j = std::countr_zero(g);
    const std::uint64_t bit = std::uint64_t{1} << j;
    t += (negative & bit) ? 2.0 * d[j] : -2.0 * d[j];
    negative ^= bit;
    if (std::fabs(t) >= threshold) ++count;
  }
  return count;
}

// The signed sums of every 8-bit chunk of d under each of its 256 sign patterns (a set
// bit keeps the sign), chunk-major.
std::vector<double> chunk_sums(std::span<const double> d) {
  const std::size_t n = d.size();
  const std::size_t chunks = (n + kSignFlipChunkBits - 1) / kSignFlipChunkBits;
  std::vector<double> table(chunks * kSignFlipChunkPatterns, 0.0);
  for (std::size_t c = 0; c < chunks; ++c) {
    const std::size_t first = c * kSignFlipChunkBits;
    const std::size_t len = std::min(kSignFlipChunkBits, n - first);
    for (std::size_t m = 0; m < kSignFlipChunkPatterns; ++m) {
      double t = 0.0;
      for (std::size_t j = 0; j < len; ++j) t += ((m >> j) & 1) ? d[first + j] : -d[first + j];
      table[c * kSignFlipChunkPatterns + m] = t;
    }
  }
  return table;
}

// Random patterns whose |sum| reaches the threshold, of `resamples` drawn.
// Each pattern takes its signs from the bits of successive rng.next() words, LSB
// first (d_i gets bit i % 64 of word i / 64; a set bit keeps the sign). Instead of n
// additions per pattern, the signed sums of every 8-bit chunk are tabulated once:
// a pattern then costs one lookup per byte of its bits. Same patterns, same sums up
// to the association of the additions, which the tie tolerance absorbs.
std::size_t sampled_sign_flip_count(std::span<const double> d, double threshold, std::size_t resamples,
                                    std::uint64_t seed) {
  const std::size_t chunks = (d.size() + kSignFlipChunkBits - 1) / kSignFlipChunkBits;
  const std::vector<double> table = chunk_sums(d);
  Rng rng(seed);
  std::size_t count = 0;
  if (chunks <= kSignFlipChunksPerWord) {
    // Up to 64 values: one word a pattern. The count is added, not branched on: at p
    // near 0.5 the comparison is a coin the branch predictor cannot learn.
    for (std::size_t b = 0; b < resamples; ++b) {
      std::uint64_t bits = rng.next();
      double t = 0.0;
      for (std::size_t c = 0; c < chunks; ++c, bits >>= kSignFlipChunkBits)
        t += table[c * kSignFlipChunkPatterns + (bits & (kSignFlipChunkPatterns - 1))];
      count += std::fabs(t) >= threshold ? 1 : 0;
    }
    return count;
  }
  for (std::size_t b = 0; b < resamples; ++b) {
    double t = 0.0;
    std::uint64_t bits = 0;
    for (std::size_t c = 0; c < chunks; ++c) {
      if (c % kSignFlipChunksPerWord == 0) bits = rng.next();
      t += table[c * kSignFlipChunkPatterns + (bits & (kSignFlipChunkPatterns - 1))];
      bits >>= kSignFlipChunkBits;
    }
    count += std::fabs(t) >= threshold ? 1 : 0;
  }
  return count;
}

}  // namespace

SignFlipResult sign_flip_test(std::span<const double> d, const SignFlipOptions& options) {
  const char* where = "sign_flip_test";
  require_sample(d, 1, where, "d");
  const std::size_t n = d.size();
  double observed = 0.0, scale = 0.0;
  for (double v : d) {
    observed += v;
    scale += std::fabs(v);
  }
  const double threshold = std::fabs(observed) - 1e-12 * scale;
  SignFlipResult r{observed, 1.0, false, 0};
  const bool exact = n <= std::min(options.exact_max_n, kSignFlipHardExactLimit);
  if (scale == 0.0) {
    // Every d is 0: every pattern's |sum| is 0 >= the threshold 0, so p is 1, as the
    // enumeration or the draws would find.
    if (!exact && options.resamples == 0)
      throw std::invalid_argument(std::string(where) + ": resamples must be at least 1");
    r.exact = exact;
    r.patterns = exact ? static_cast<std::size_t>(std::uint64_t{1} << n) : options.resamples;
    return r;
  }
  if (exact) {
    const std::uint64_t patterns = std::uint64_t{1} << n;
    r.exact = true;
    r.patterns = static_cast<std::size_t>(patterns);
    r.p_value = static_cast<double>(exact_sign_flip_count(d, observed, threshold)) / static_cast<double>(patterns);
    return r;
  }
  if (options.resamples == 0) {
    throw std::invalid_argument(std::string(where) + ": resamples must be at least 1");
  }
  const std::size_t count = sampled_sign_flip_count(d, threshold, options.resamples, options.seed);
  r.patterns = options.resamples;
  r.p_value = (1.0 + static_cast<double>(count)) / (static_cast<double>(options.resamples) + 1.0);
  return r;
}

TTestResult welch_t(std::span<const double> a, std::span<const double> b, double level) {
  require_sample(a, 2, "welch_t", "a");
  require_sample(b, 2, "welch_t", "b");
  require_level(level, "welch_t");
  const double na = static_cast<double>(a.size()), nb = static_cast<double>(b.size());
  const double va = variance(a) / na, vb = variance(b) / nb;
  const double se = std::sqrt(va + vb);
  const double df = se > 0.0 ? (va + vb) * (va + vb) / (va * va / (na - 1.0) + vb * vb / (nb - 1.0))
                             : na + nb - 2.0;
  return t_result(mean(a) - mean(b), se, df, level);
}

TTestResult one_sample_t(std::span<const double> x, double mu0, double level) {
  require_sample(x, 2, "one_sample_t");
  require_level(level, "one_sample_t");
  const double n = static_cast<double>(x.size());
  return t_result(mean(x) - mu0, stddev(x) / std::sqrt(n), n - 1.0, level);
}

TTestResult paired_t(std::span<const double> a, std::span<const double> b, double level) {
  require_sample(a, 2, "paired_t", "a");
  require_sample(b, 2, "paired_t", "b");
  if (a.size() != b.size()) {
    throw std::invalid_argument("paired_t: a has " + std::to_string(a.size()) + " values, b has " +
                                std::to_string(b.size()) + "; pairs need equal lengths");
  }
  std::vector<double> d(a.size());
  for (std::size_t i = 0; i < d.size(); ++i) d[i] = a[i] - b[i];
  return one_sample_t(d, 0.0, level);
}

MannWhitneyResult mann_whitney_u(std::span<const double> a, std::span<const double> b) {
  require_sample(a, 1, "mann_whitney_u", "a");
  require_sample(b, 1, "mann_whitney_u", "b");
  const std::size_t m = a.size(), n = b.size();
  std::vector<double> all(a.begin(), a.end());
  all.insert(all.end(), b.begin(), b.end());
  double ties = 0.0;
  const auto ranks = mid_ranks(all, ties);
  double r1 = 0.0;
  for (std::size_t i = 0; i < m; ++i) r1 += ranks[i];
  const double md = static_cast<double>(m), nd = static_cast<double>(n);
  const double u = r1 - md * (md + 1.0) / 2.0;
  MannWhitneyResult r{u, 0.0, 1.0, false};

  if (ties == 0.0 && m + n <= kMannWhitneyExactMaxTotal) {
    const auto counts = mann_whitney_counts(m, n);
    const double total = std::accumulate(counts.begin(), counts.end(), 0.0);
    const auto ui = static_cast<std::size_t>(std::llround(u));
    double le = 0.0, ge = 0.0;
    for (std::size_t k = 0; k < counts.size(); ++k) {
      if (k <= ui) le += counts[k];
      if (k >= ui) ge += counts[k];
    }
    r.exact = true;
    r.p_value = std::min(1.0, 2.0 * std::min(le, ge) / total);
    return r;
  }
  const double big_n = md + nd;
  const double var = md * nd / 12.0 * ((big_n + 1.0) - ties / (big_n * (big_n - 1.0)));
  if (var <= 0.0) return r;  // all values equal
  const double centred = u - md * nd / 2.0;
  const double correction = centred > 0 ? 0.5 : (centred < 0 ? -0.5 : 0.0);
  r.z = (centred - correction) / std::sqrt(var);
  const boost::math::normal std_normal;
  r.p_value = std::min(1.0, 2.0 * boost::math::cdf(boost::math::complement(std_normal, std::fabs(r.z))));
  return r;
}

TostResult tost(double estimate, double se, double df, double lower, double upper, double alpha) {
  require_alpha(alpha, "tost");
  if (!std::isfinite(estimate) || !std::isfinite(se) || se < 0.0 || !(lower < upper) ||
      !(df > 0.0)) {
    throw std::invalid_argument("tost: needs a finite estimate, se >= 0, df > 0 and lower < upper; got estimate " +
                                std::to_string(estimate) + ", se " + std::to_string(se) + ", df " +
                                std::to_string(df) + ", bounds (" + std::to_string(lower) + ", " +
                                std::to_string(upper) + ")");
  }
  TostResult r{lower, upper, 1.0, 1.0, 1.0, false};
  if (se == 0.0) {
    r.p_lower = estimate > lower ? 0.0 : 1.0;
    r.p_upper = estimate < upper ? 0.0 : 1.0;
  } else {
    r.p_lower = t_upper_tail((estimate - lower) / se, df);
    r.p_upper = t_upper_tail((upper - estimate) / se, df);
  }
  r.p_value = std::max(r.p_lower, r.p_upper);
  r.equivalent = r.p_value < alpha;
  return r;
}

TostResult tost_log_ratio(std::span<const double> d, double eps, double alpha) {
  require_sample(d, 2, "tost_log_ratio", "d");
  if (!(eps > 0.0 && eps < 1.0)) {
    throw std::invalid_argument("tost_log_ratio: margin " + std::to_string(eps) +
                                " must lie strictly between 0 and 1 (a fraction, 0.01 = 1%)");
  }
  const double n = static_cast<double>(d.size());
  return tost(mean(d), stddev(d) / std::sqrt(n), n - 1.0, std::log1p(-eps), std::log1p(eps), alpha);
}

std::vector<double> holm_adjust(std::span<const double> p) {
  for (std::size_t i = 0; i < p.size(); ++i) {
    if (!(p[i] >= 0.0 && p[i] <= 1.0)) {
      throw std::invalid_argument("holm_adjust: p[" + std::to_string(i) + "] = " +
                                  std::to_string(p[i]) + " is not a probability in [0, 1]");
    }
  }
  const std::size_t m = p.size();
  std::vector<std::size_t> idx(m);
  std::iota(idx.begin(), idx.end(), 0);
  std::stable_sort(idx.begin(), idx.end(), [&](std::size_t a, std::size_t b) { return p[a] < p[b]; });
  std::vector<double> adj(m);
  double running = 0.0;
  for (std::size_t r = 0; r < m; ++r) {
    running = std::max(running, std::min(1.0, static_cast<double>(m - r) * p[idx[r]]));
    adj[idx[r]] = running;
  }
  return adj;
}

std::vector<bool> holm_reject(std::span<const double> p, double alpha) {
  require_alpha(alpha, "holm_reject");
  const auto adj = holm_adjust(p);
  std::vector<bool> out(adj.size());
  for (std::size_t i = 0; i < adj.size(); ++i) out[i] = adj[i] <= alpha;
  return out;
}

PageResult page_trend_test(std::span<const double> data, std::size_t k) {
  require_finite(data, "page_trend_test", "data");
  if (k < 2 || data.empty() || data.size() % k != 0) {
    throw std::invalid_argument("page_trend_test: needs k >= 2 treatments and n >= 1 complete blocks; got " +
                                std::to_string(data.size()) + " values for k = " + std::to_string(k));
  }
  const std::size_t n = data.size() / k;
  double l = 0.0, ties = 0.0;
  for (std::size_t i = 0; i < n; ++i) {
    double block_ties = 0.0;
    const auto r = mid_ranks(data.subspan(i * k, k), block_ties);
    ties += block_ties;
    for (std::size_t j = 0; j < k; ++j) l += static_cast<double>(j + 1) * r[j];
  }
  const double nd = static_cast<double>(n), kd = static_cast<double>(k);
  const double expected = nd * kd * (kd + 1.0) * (kd + 1.0) / 4.0;
  const double var = nd * kd * kd * (kd + 1.0) * (kd * kd - 1.0) / 144.0;
  PageResult res{l, (l - expected) / std::sqrt(var), 1.0, false};

  if (ties == 0.0 && k <= kPageExactMaxK && n <= kPageExactMaxN) {
    // Distribution of one block's sum_j j r_j over the k! equally likely rank orders.
    std::vector<std::size_t> perm(k);
    std::iota(perm.begin(), perm.end(), 1);
    std::size_t lo = 0;
    for (std::size_t j = 1; j <= k; ++j) lo += j * (k + 1 - j);
    std::size_t hi = 0;
    for (std::size_t j = 1; j <= k; ++j) hi += j * j;
    std::vector<double> block(hi - lo + 1, 0.0);
    double perms = 0.0;
    do {
      std::size_t s = 0;
      for (std::size_t j = 0; j < k; ++j) s += (j + 1) * perm[j];
      block[s - lo] += 1.0;
      perms += 1.0;
    } while (std::next_permutation(perm.begin(), perm.end()));
    for (double& v : block) v /= perms;
    std::vector<double> dist{1.0};  // offset n_done * lo
    for (std::size_t i = 0; i < n; ++i) {
      std::vector<double> next(dist.size() + block.size() - 1, 0.0);
      for (std::size_t a = 0; a < dist.size(); ++a) {
        if (dist[a] == 0.0) continue;
        for (std::size_t b = 0; b < block.size(); ++b) next[a + b] += dist[a] * block[b];
      }
      dist.swap(next);
    }
    const auto observed = static_cast<std::size_t>(std::llround(l)) - n * lo;
    double p = 0.0;
    for (std::size_t v = observed; v < dist.size(); ++v) p += dist[v];
    res.exact = true;
    res.p_value = std::min(1.0, p);
    return res;
  }
  const boost::math::normal std_normal;
  res.p_value = boost::math::cdf(boost::math::complement(std_normal, res.z));
  return res;
}

double cohens_d(std::span<const double> a, std::span<const double> b) {
  require_sample(a, 2, "cohens_d", "a");
  require_sample(b, 2, "cohens_d", "b");
  const double na = static_cast<double>(a.size()), nb = static_cast<double>(b.size());
  const double pooled = std::sqrt(((na - 1.0) * variance(a) + (nb - 1.0) * variance(b)) / (na + nb - 2.0));
  if (pooled == 0.0) {
    throw std::invalid_argument("cohens_d: both samples are constant, the pooled standard deviation is 0 and d is undefined");
  }
  return (mean(a) - mean(b)) / pooled;
}

double cliffs_delta(std::span<const double> a, std::span<const double> b) {
  require_sample(a, 1, "cliffs_delta", "a");
  require_sample(b, 1, "cliffs_delta", "b");
  std::vector<double> sb(b.begin(), b.end());
  std::sort(sb.begin(), sb.end());
  double score = 0.0;
  for (double v : a) {
    const auto less = std::lower_bound(sb.begin(), sb.end(), v) - sb.begin();
    const auto greater = sb.end() - std::upper_bound(sb.begin(), sb.end(), v);
    score += static_cast<double>(less) - static_cast<double>(greater);
  }
  return score / (static_cast<double>(a.size()) * static_cast<double>(b.size()));
}

}  // namespace obscheck::stats
