// stats/: what a distribution figure needs beyond the five numbers — a kernel density
// estimate with its bandwidth, and seeded offsets that spread points sideways. Pure.
#pragma once

#include <cstddef>
#include <cstdint>
#include <span>
#include <vector>

namespace obscheck::stats {

// n offsets in [-1, 1], a pure function of (n, seed): the i-th offset depends only on
// (seed, i), so adding a point never moves the others. Drawn from Rng seeded with
// seed + i.
std::vector<double> jitter(std::size_t n, std::uint64_t seed);

// Silverman's rule of thumb (Silverman 1986, "Density Estimation for Statistics and
// Data Analysis", eq. 3.31; R's bw.nrd0): h = 0.9 · min(sd, IQR / 1.34) · n^(-1/5),
// where a zero min falls back to sd, then to |x_0|, then to 1 (as bw.nrd0). Requires
// n >= 2 finite values (std::invalid_argument).
double silverman_bandwidth(std::span<const double> x);

// Gaussian kernel density estimate of x with bandwidth h > 0 at each point of `at`:
// f(t) = 1/(n h) Σ φ((t − x_i)/h). Empty x gives zeros.
std::vector<double> kde(std::span<const double> x, double h, std::span<const double> at);

}  // namespace obscheck::stats
