#include "analysis/figures.h"

#include <algorithm>

#include "stats/density.h"
#include "stats/descriptive.h"
#include "stats/rng.h"

namespace obscheck {

GroupShape group_shape(std::span<const double> values, bool outline, std::size_t min_points,
                       std::size_t grid_points, std::uint64_t offsets_seed) {
  GroupShape g;
  g.median = stats::median(values);
  const auto [mn, mx] = std::minmax_element(values.begin(), values.end());
  if (outline && values.size() >= min_points && *mx > *mn) {
    const double h = stats::silverman_bandwidth(values);
    for (std::size_t k = 0; k <= grid_points; ++k)
      g.grid.push_back(*mn + (*mx - *mn) * static_cast<double>(k) / static_cast<double>(grid_points));
    g.density = stats::kde(values, h, g.grid);
    const double dmax = *std::max_element(g.density.begin(), g.density.end());
    for (double& d : g.density) d /= dmax;
  }
  g.offsets = stats::jitter(values.size(), offsets_seed);
  return g;
}

std::vector<double> point_offsets(std::size_t n, std::uint64_t seed) { return stats::jitter(n, seed); }

std::uint64_t next_seed(std::uint64_t& state) { return stats::splitmix64(state); }

}  // namespace obscheck
