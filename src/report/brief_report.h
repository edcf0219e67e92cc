// report/: the reports that fit a screen — what `obscheck ./prog`, `measure`, `bias`,
// `compare` and `report FILE` print by default. Each reads the same findings as the
// full reporters (check_report.h, measure_report.h, bias_report.h) and selects: the
// answer, one line per metric, the safe dose, what deciding would take, and where the
// details are. The full reports stay behind --verbose, and always in JSON and HTML.
//
// Contract: the result has at most kScreenLines lines and no line passes kScreenColumns
// terminal columns (UTF-8 characters count one column each), but for a word longer than
// the screen (a long path), kept whole with its option rather than cut; a metric list
// longer than the screen is cut with a line that says how many were left out and where.
// No colour; no end-of-line whitespace; every line ends with "\n".
#pragma once

#include <cstddef>
#include <string>
#include <vector>

#include "analysis/findings.h"
#include "analysis/measure.h"
#include "plan/plan.h"
#include "report/bias_report.h"
#include "report/check_report.h"

namespace obscheck {

inline constexpr std::size_t kScreenLines = 25;
inline constexpr std::size_t kScreenColumns = 100;

// The check: the command, its size, the summary (one line per metric, safe doses, the
// whole check's verdict), what deciding would take, the A/A control's line, and the
// command that prints the rest.
std::string check_brief(const Plan& plan, const Findings& f, const CheckContext& ctx);

// measure: per metric the median, its interval, mean ± sd and how it was counted.
std::string measure_brief(const MeasureFindings& f);

// bias: per metric the verdict, the swing between the extreme contexts and the test.
std::string bias_brief(const SweepReport& r);

// compare: per comparison (the A/A control first) the verdict, the speedup and the ratio.
std::string compare_brief(const SweepReport& r);

// `text`'s lines made to fit the screen: each wrapped at spaces to kScreenColumns
// (continuations indented under the line's text), never between an option and its value,
// a word longer than the screen kept whole, and past kScreenLines the lines from `keep_last` from the end kept, the middle cut
// with "  … N more lines: HINT". Exposed for the tests of the contract.
std::string fit_screen(const std::vector<std::string>& lines, std::size_t keep_last, const std::string& hint);

}  // namespace obscheck
