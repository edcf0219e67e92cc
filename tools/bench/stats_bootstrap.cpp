// How long does stats/ take on a large series? The target: analyse 1,000,000 samples
// with 10,000 bootstrap resamples in under a second, memory O(n).
//
// What "10,000 resamples of 10^6 samples" can mean: a plain bootstrap of the mean
// draws 10^4 x 10^6 = 10^10 values, which no implementation does in a second. So the
// benchmark times what the tool actually runs on a long series:
//   * summarize(): sort, five numbers, MAD, Tukey labels and a percentile bootstrap CI
//     of the median with 10,000 resamples — each median replicate is drawn exactly in
//     distribution from order statistics in O(1) (bootstrap.h);
//   * the dependence path of the paired pipeline: Newey-West HAC with automatic lag,
//     the Politis-White block length, and a 10,000-resample circular block bootstrap of
//     the mean over block sums (O(n/b) per resample, via prefix sums) on an AR(1)
//     series of 10^6 values;
//   * paired_log_effect() on 10,000 blocks (a very long real experiment: 20,000 runs)
//     with 10,000 sign-flip patterns and 10,000 block-bootstrap resamples. On 10^6
//     blocks its Monte Carlo sign flips alone would be 10^10 additions.
#include <chrono>
#include <cmath>
#include <cstdio>
#include <vector>

#include "stats/stats.h"
#include "stats/rng.h"

namespace {

using Clock = std::chrono::steady_clock;

template <class F>
double seconds(F&& f) {
  const auto t0 = Clock::now();
  f();
  return std::chrono::duration<double>(Clock::now() - t0).count();
}

std::vector<double> ar1_series(std::size_t n, double phi, std::uint64_t seed) {
  obscheck::stats::Rng rng(seed);
  std::vector<double> x(n);
  double e = 0.0;
  for (double& v : x) {
    e = phi * e + rng.normal();
    v = 1000.0 + 10.0 * e;
  }
  return x;
}

}  // namespace

int main() {
  namespace st = obscheck::stats;
  constexpr std::size_t kN = 1'000'000;
  constexpr std::size_t kB = 10'000;
  const auto x = ar1_series(kN, 0.5, 1);

  st::Summary s{};
  const double t_summary = seconds([&] { s = st::summarize(x, {0.95, kB, 7}); });
  std::printf("summarize, n = %zu, %zu median resamples: %.3f s  (median %.3f, CI [%.3f, %.3f])\n",
              kN, kB, t_summary, s.median, s.median_ci->lo, s.median_ci->hi);

  st::HacResult h{};
  const double t_hac = seconds([&] { h = st::hac_se(x); });
  std::printf("HAC SE with Newey-West lag, n = %zu: %.3f s  (lag %zu, se %.5f; iid se %.5f)\n", kN,
              t_hac, h.lag, h.se, st::iid_se(x));

  st::BlockLength b{};
  const double t_pw = seconds([&] { b = st::politis_white_block_length(x); });
  std::printf("Politis-White block length, n = %zu: %.3f s  (b = %zu)\n", kN, t_pw, b.circular_blocks);

  st::BlockBootstrapResult cbb{};
  const double t_cbb = seconds([&] {
    cbb = st::circular_block_bootstrap_mean(x, {kB, 0.95, 3}, b.circular_blocks);
  });
  std::printf("circular block bootstrap of the mean, n = %zu, b = %zu, %zu resamples: %.3f s  (se %.5f)\n",
              kN, cbb.block_length, kB, t_cbb, cbb.se);
  std::printf("dependence path total (HAC + block length + block bootstrap): %.3f s\n",
              t_hac + t_pw + t_cbb);

  constexpr std::size_t kBlocks = 10'000;
  const auto runs = ar1_series(2 * kBlocks, 0.5, 2);
  std::vector<double> conf(kBlocks), base(kBlocks);
  for (std::size_t i = 0; i < kBlocks; ++i) {
    conf[i] = runs[2 * i] * 1.01;
    base[i] = runs[2 * i + 1];
  }
  st::PairedEffect pe{};
  const double t_pair = seconds([&] { pe = st::paired_log_effect(conf, base, {}); });
  std::printf("paired_log_effect, %zu blocks, %zu sign flips + %zu bootstrap resamples: %.3f s  "
              "(effect %+.4f, CI by %s, p by %s)\n",
              kBlocks, st::kSignFlipResamples, st::kDefaultResamples, t_pair, pe.effect,
              pe.ci_method.c_str(), pe.p_method.c_str());
  std::printf("memory: O(n) — one sorted copy and prefix sums of the series, O(B) replicates\n");
  return 0;
}
