// Seeded pseudo-random numbers for resampling. Everything random in stats/ is drawn
// from a Rng constructed from an explicit uint64_t seed, so a result is a pure
// function of (data, options, seed) on every platform: the generators below are
// written out here rather than taken from <random>'s distributions, whose
// algorithms the C++ standard leaves to the library.
#pragma once

#include <cmath>
#include <cstdint>

#include "util/splitmix64.h"

namespace obscheck::stats {

// SplitMix64 (Steele, Lea, Flood 2014): used only to expand one seed into the
// xoshiro state, as its authors recommend.
inline std::uint64_t splitmix64(std::uint64_t& state) { return splitmix64_next(state); }

// xoshiro256** 1.0 (Blackman & Vigna 2018): fast, 256-bit state, passes BigCrush.
class Rng {
 public:
  explicit Rng(std::uint64_t seed) {
    std::uint64_t sm = seed;
    for (auto& w : s_) w = splitmix64(sm);
  }

  std::uint64_t next() {
    const std::uint64_t result = rotl(s_[1] * 5, 7) * 9;
    const std::uint64_t t = s_[1] << 17;
    s_[2] ^= s_[0];
    s_[3] ^= s_[1];
    s_[1] ^= s_[2];
    s_[0] ^= s_[3];
    s_[2] ^= t;
    s_[3] = rotl(s_[3], 45);
    return result;
  }

  // Uniform integer in [0, n), n >= 1, without modulo bias (Lemire 2019,
  // "Fast random integer generation in an interval").
  std::uint64_t index(std::uint64_t n) {
    unsigned __int128 m = static_cast<unsigned __int128>(next()) * n;
    auto low = static_cast<std::uint64_t>(m);
    if (low < n) {
      const std::uint64_t threshold = (0 - n) % n;
      while (low < threshold) {
        m = static_cast<unsigned __int128>(next()) * n;
        low = static_cast<std::uint64_t>(m);
      }
    }
    return static_cast<std::uint64_t>(m >> 64);
  }

  // Uniform double in [0, 1) with 53 random bits.
  double uniform() { return static_cast<double>(next() >> 11) * 0x1.0p-53; }

  // Uniform double in (0, 1): never 0, safe under log().
  double uniform_open() {
    return (static_cast<double>(next() >> 11) + 0.5) * 0x1.0p-53;
  }

  bool coin() { return (next() >> 63) != 0; }

  // Standard normal by the Marsaglia polar method.
  double normal() {
    if (has_spare_) {
      has_spare_ = false;
      return spare_;
    }
    double u, v, s;
    do {
      u = 2.0 * uniform() - 1.0;
      v = 2.0 * uniform() - 1.0;
      s = u * u + v * v;
    } while (s >= 1.0 || s == 0.0);
    const double f = std::sqrt(-2.0 * std::log(s) / s);
    spare_ = v * f;
    has_spare_ = true;
    return u * f;
  }

  // Marsaglia & Tsang's constants for one shape >= 1, computed once where many draws
  // share a shape (the median bootstrap's two Beta parameters): the draws are the
  // same as gamma(shape)'s, bit for bit.
  struct GammaShape {
    double d, c;
    explicit GammaShape(double shape) : d(shape - 1.0 / 3.0), c(1.0 / std::sqrt(9.0 * (shape - 1.0 / 3.0))) {}
  };

  // Gamma(shape, 1) by Marsaglia & Tsang (2000); shape < 1 via the boost
  // Gamma(shape) = Gamma(shape + 1) * U^(1/shape).
  double gamma(double shape) {
    if (shape < 1.0) return gamma(shape + 1.0) * std::pow(uniform_open(), 1.0 / shape);
    return gamma(GammaShape(shape));
  }

  double gamma(const GammaShape& g) {
    for (;;) {
      double x, v;
      do {
        x = normal();
        v = 1.0 + g.c * x;
      } while (v <= 0.0);
      v = v * v * v;
      const double u = uniform_open();
      if (u < 1.0 - 0.0331 * x * x * x * x) return g.d * v;
      if (std::log(u) < 0.5 * x * x + g.d * (1.0 - v + std::log(v))) return g.d * v;
    }
  }

  // Beta(a, b) as X / (X + Y) with X ~ Gamma(a), Y ~ Gamma(b).
  double beta(double a, double b) {
    const double x = gamma(a);
    const double y = gamma(b);
    return x / (x + y);
  }

  // The same for shapes >= 1 whose constants are already computed.
  double beta(const GammaShape& a, const GammaShape& b) {
    const double x = gamma(a);
    const double y = gamma(b);
    return x / (x + y);
  }

 private:
  static std::uint64_t rotl(std::uint64_t x, int k) { return (x << k) | (x >> (64 - k)); }
  std::uint64_t s_[4];
  double spare_ = 0.0;
  bool has_spare_ = false;
};

// Uniform integers in [0, m) for 1 <= m < 2^32, two from each 64-bit word of the Rng
// (low half first), by Lemire's method on 32 bits: where one replicate draws many
// small indices this halves the generator's work.
class HalfWordIndex {
 public:
  HalfWordIndex(Rng& rng, std::uint32_t m) : rng_(rng), m_(m), threshold_(static_cast<std::uint32_t>(0u - m) % m) {}

  std::uint32_t operator()() {
    std::uint64_t p = static_cast<std::uint64_t>(bits()) * m_;
    while (static_cast<std::uint32_t>(p) < threshold_) p = static_cast<std::uint64_t>(bits()) * m_;
    return static_cast<std::uint32_t>(p >> 32);
  }

 private:
  std::uint32_t bits() {
    if (has_high_) {
      has_high_ = false;
      return static_cast<std::uint32_t>(word_ >> 32);
    }
    word_ = rng_.next();
    has_high_ = true;
    return static_cast<std::uint32_t>(word_);
  }
  Rng& rng_;
  std::uint32_t m_;
  std::uint32_t threshold_;  // 2^32 mod m: products whose low half falls below are redrawn
  std::uint64_t word_ = 0;
  bool has_high_ = false;
};

}  // namespace obscheck::stats
