// util/: SplitMix64 (Steele, Lea & Flood, "Fast Splittable Pseudorandom Number
// Generators", 2014), the one definition behind the plan's block orders and the
// generators' seeding.
#pragma once

#include <cstdint>

namespace obscheck {

// The generator's step: advances `state` by the golden gamma and returns its output.
inline std::uint64_t splitmix64_next(std::uint64_t& state) {
  std::uint64_t z = (state += 0x9E3779B97F4A7C15ull);
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
  return z ^ (z >> 31);
}

}  // namespace obscheck
