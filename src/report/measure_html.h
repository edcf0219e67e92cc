// report/: `obscheck measure --html FILE`: the measure's report as one self-contained
// page (no script, no network), as the check's, bias's and compare's are: per metric
// the median with its interval, mean ± sd, the five-number summary and how it was
// counted, then the notes and the interval's method. Pure: returns the bytes.
#pragma once

#include <string>

#include "analysis/measure.h"

namespace obscheck {

std::string measure_html(const MeasureFindings& f);

}  // namespace obscheck
