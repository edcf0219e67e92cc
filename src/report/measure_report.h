// report/: `obscheck measure` as text (perf-stat-like, with the interval and the
// method beside every number) and as JSON (every raw per-run value). Reporters
// return bytes; they never write files or compute statistics.
#pragma once

#include <string>

#include "analysis/measure.h"

namespace obscheck {

std::string measure_text(const MeasureFindings& f, bool color);
std::string measure_json(const MeasureFindings& f);

// "20.31 ms", "1,052", "2.59 G" — shared by the text reporters.
std::string format_value(double v, const std::string& unit);

}  // namespace obscheck
