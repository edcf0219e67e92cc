#include "calibration/forecast_replay.h"

#include <algorithm>
#include <cmath>
#include <optional>
#include <utility>

#include "analysis/forecast.h"
#include "util/error.h"

namespace obscheck::calibration {
namespace {

// The median half-width (a ratio) of `metric`'s comparisons (A/A aside) and the blocks
// that comparison ran.
std::pair<double, std::size_t> reached_half_width(const Findings& f, const std::string& metric) {
  std::vector<std::pair<double, std::size_t>> hw;
  for (const Comparison& c : f.comparisons)
    if (!c.aa && c.n > 0 && f.metrics[c.metric].name == metric) hw.emplace_back((c.ci_hi - c.ci_lo) / 2, c.n);
  if (hw.empty()) return {NAN, 0};
  std::sort(hw.begin(), hw.end());
  return hw[hw.size() / 2];
}

}  // namespace

namespace {
bool within_2x_of(double forecast, double reached) {
  const double r = forecast / reached;
  return std::isfinite(r) && r >= 0.5 && r <= 2.0;
}
}  // namespace

bool ForecastReplay::within_2x() const { return within_2x_of(forecast, reached); }

std::vector<ForecastReplay> forecast_replays(const Fixture& fx, ReplaySpec spec, std::size_t replays,
                                             std::uint64_t seed) {
  std::vector<ForecastReplay> out;
  for (std::size_t k = 0; k < replays; ++k) {
    const ReplayedCheck r = replay_check(fx, spec, seed, k);
    std::size_t at = 0;
    while (at + 1 < r.at_look.size() && r.at_look[at].measured_blocks < kForecastBlocks) ++at;
    const Findings& look = r.at_look[at];
    const std::optional<FirstLookForecast> first = first_look_forecast(look, spec.window);
    if (!first) throw Error(ErrorKind::internal, fx.name + ": no forecast at the first look");
    ForecastReplay x;
    x.look_blocks = look.measured_blocks;
    x.first_block = r.first_block;
    x.metric = first->metric;
    std::tie(x.reached, x.reached_blocks) = reached_half_width(r.last, first->metric);
    const std::optional<FirstLookForecast> fc = first_look_forecast(look, x.reached_blocks);
    const std::optional<FirstLookForecast> last = first_look_forecast(r.last, x.reached_blocks);
    if (!fc || !last) throw Error(ErrorKind::internal, fx.name + ": no forecast at the reached blocks");
    x.sigma = fc->sigma;
    x.floor = fc->floor;
    x.forecast = fc->half_width;
    x.as_printed = first->half_width;
    x.sigma_last = last->sigma;
    x.floor_last = last->floor;
    x.at_last = last->half_width;
    x.check_blocks = r.blocks;
    x.decisive = r.decisive;
    out.push_back(std::move(x));
  }
  return out;
}

double within_2x_rate(const std::vector<ForecastReplay>& r) {
  if (r.empty()) return NAN;
  const auto n = std::count_if(r.begin(), r.end(), [](const ForecastReplay& x) { return x.within_2x(); });
  return static_cast<double>(n) / static_cast<double>(r.size());
}

double printed_within_2x_rate(const std::vector<ForecastReplay>& r) {
  if (r.empty()) return NAN;
  const auto n = std::count_if(r.begin(), r.end(), [](const ForecastReplay& x) { return within_2x_of(x.as_printed, x.reached); });
  return static_cast<double>(n) / static_cast<double>(r.size());
}

}  // namespace obscheck::calibration
