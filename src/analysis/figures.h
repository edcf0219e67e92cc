// analysis/: the numbers a distribution figure draws — its median, its density outline
// and the sideways offsets of its points — computed here from stats/ so that report/
// only places them (docs/design.md: reporters compute no statistics).
#pragma once

#include <cstddef>
#include <cstdint>
#include <span>
#include <vector>

namespace obscheck {

// One group of a distribution chart.
struct GroupShape {
  double median = 0;
  // The density outline at `grid` (evenly spaced from min to max), scaled so that its
  // largest value is 1; empty when not drawn (fewer than `min_points` values, or all
  // equal, or not asked for).
  std::vector<double> grid, density;
  std::vector<double> offsets;  // one per value in [-1, 1]: jitter(values.size(), offsets_seed)
};

// `values` finite and non-empty. The outline is a Gaussian kernel density estimate with
// Silverman's bandwidth at grid_points + 1 points.
GroupShape group_shape(std::span<const double> values, bool outline, std::size_t min_points,
                       std::size_t grid_points, std::uint64_t offsets_seed);

// n seeded offsets in [-1, 1] (stats::jitter).
std::vector<double> point_offsets(std::size_t n, std::uint64_t seed);

// The next seed of a sequence: SplitMix64 of `state`, which it advances.
std::uint64_t next_seed(std::uint64_t& state);

}  // namespace obscheck
