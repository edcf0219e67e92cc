// Calibration support: the first look's forecast (analysis/forecast.h) against the
// interval a replayed null check went on to reach, shared by the calibration test and
// tools/bench/calibration.
//
// A replay is a null check ("null" case, replay.h) stopped when decisive. Its forecast
// is made at the look the live check makes it (the first of at least kForecastBlocks
// measured blocks) and read at the blocks the reached interval rests on: a check that
// decides stops before its budget, and a configuration retired as settled stops before
// the check, so a forecast for the budget would speak of blocks they never ran. The
// reached interval is the median half-width of the forecast metric's comparisons (the
// A/A control aside) at the check's last look. Each replay also carries the forecast
// the same method gives from the last look's spreads: the ratio splits into the first
// look's estimate of the noise (forecast / at_last) and the method's projection of that
// noise to an interval (at_last / reached).
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "calibration/replay.h"

namespace obscheck::calibration {

struct ForecastReplay {
  std::size_t look_blocks = 0;       // measured blocks at the forecasting look
  std::size_t first_block = 0;       // the window's start in the fixture
  std::string metric;
  double sigma = 0, floor = 0;       // the look's robust and pooled spread of d (analysis/forecast.h)
  double sigma_last = 0, floor_last = 0;  // the same at the check's last look
  double forecast = 0;               // the forecast half-width at reached_blocks (a ratio)
  double as_printed = 0;             // ... at the window's blocks, the budget the live check's line speaks of
  double at_last = 0;                // the same method's half-width from the last look's spreads
  double reached = 0;                // the interval reached (half-width, a ratio)
  std::size_t reached_blocks = 0;    // the blocks it rests on
  std::size_t check_blocks = 0;      // the check's blocks at its last look
  bool decisive = false;             // the check stopped decided (else: at its window)
  double ratio() const { return forecast / reached; }
  bool within_2x() const;            // 1/2 <= ratio <= 2, finite
};

// `replays` replays of the null case on `fx` (its spec from standard_cases, the
// scheme given), of the series `seed`.
std::vector<ForecastReplay> forecast_replays(const Fixture& fx, ReplaySpec spec, std::size_t replays,
                                             std::uint64_t seed);

// The share of replays within 2x.
double within_2x_rate(const std::vector<ForecastReplay>& r);
// The same for the forecast as printed (at the window's blocks) against the interval reached.
double printed_within_2x_rate(const std::vector<ForecastReplay>& r);

}  // namespace obscheck::calibration
