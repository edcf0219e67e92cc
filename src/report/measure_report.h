// report/: `obscheck measure` as text (perf-stat-like, with the interval and the
// method beside every number) and as JSON (every raw per-run value). Reporters
// return bytes; they never write files or compute statistics.
#pragma once

#include <string>

#include "analysis/measure.h"

namespace obscheck {

std::string measure_text(const MeasureFindings& f, bool color);
// JSON: {"schema": "obscheck-measure", "version": kMeasureJsonVersion, ...}, every
// raw per-run value (docs/report-schema.md).
std::string measure_json(const MeasureFindings& f);
inline constexpr int kMeasureJsonVersion = 2;

// `-x SEP`: perf stat's field-separated layout, one line per counter, fields in perf
// stat's order: value (the mean over the runs, as perf stat -r prints it), unit,
// event, variance (the standard error of the mean as a percentage of the mean, perf
// stat's "+- x%"), run time (mean ns the counter ran), percentage of the time it was
// enabled that it ran. Then the driver's metrics in the same layout with the run time
// and percentage left empty. Fields are not quoted, as in perf stat.
std::string measure_separated(const MeasureFindings& f, const std::string& separator);
// `--csv`: RFC 4180, a header and one row per metric with every summary value.
std::string measure_csv(const MeasureFindings& f);
// `--markdown`: the text report's table as GitHub-flavoured Markdown.
std::string measure_markdown(const MeasureFindings& f);

// "20.31 ms", "1,052", "2.59 G" — shared by the text reporters.
std::string format_value(double v, const std::string& unit);

}  // namespace obscheck
