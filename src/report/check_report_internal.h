// report/check: what the check report's files share, internal to report/ (the API is
// check_report.h): the helpers of check_report.cpp used by the prose
// (check_report_prose.cpp), the terminal text (check_report_text.cpp), JSON
// (check_report_json.cpp), CSV (check_report_csv.cpp) and Markdown
// (check_report_markdown.cpp), and the sentences the formats quote.
#pragma once

#include <cstddef>
#include <optional>
#include <string>
#include <vector>

#include "analysis/findings.h"
#include "analysis/summary.h"
#include "plan/plan.h"
#include "report/check_report.h"
#include "report/findings_text.h"

namespace obscheck::check_report_detail {

using report_text::cell;
using report_text::cell_text;
using report_text::config_id;
using report_text::csv_field;
using report_text::dose_axis;
using report_text::level_label;
using report_text::metric_name;
using report_text::num;
using report_text::on_dose_axis;
using report_text::counter_running;
using report_text::counter_validity_of;
using report_text::kValidityHeading;
using report_text::running_text;
using report_text::validity_state;

// Enough to see which configuration fails and how; the JSON lists every run.
inline constexpr std::size_t kIncomparableListed = 20;

// ---- check_report.cpp ---------------------------------------------------------------

// Terminal columns of UTF-8 text ("±", "ε", "×" are one column each), ANSI escapes skipped.
std::size_t display_width(const std::string& s);
// s padded with spaces to `width` terminal columns.
std::string pad(const std::string& s, std::size_t width);
std::string join(const std::vector<std::string>& items, const std::string& sep);
// The target's argv as a shell would read it back.
std::string command_line(const CheckContext& ctx);
std::vector<const LevelVerdict*> verdicts_of(const Findings& f, std::size_t metric);
// The metric's worst verdict, or none.
std::optional<Verdict> metric_verdict(const Findings& f, std::size_t metric);
// The verdict a comparison belongs to (none for the A/A control's).
const LevelVerdict* verdict_for(const Findings& f, const Comparison& c);
// The name a reader sees: with what it describes when that is not the target alone.
std::string shown_name(const MetricInfo& m);
std::vector<const Comparison*> aa_comparisons(const Findings& f);
// A verdict as the table shows it: "scaled" when decided on multiplexed counts.
std::string verdict_label(const LevelVerdict& v);

// ---- check_report_prose.cpp: the sentences ----------------------------------------

// The methods footer, shared by text, JSON and Markdown: every interval and test named.
std::vector<std::string> methods_lines(const Plan&, const Findings& f);
// The comparison that speaks for a dose: where the layout explains the move, the layout
// that moves most; else its held layout's, else its widest.
const Comparison* dose_comparison(const Findings& f, const LevelVerdict& v);
// What holds at one dose: the effect with its interval where the dose moves the metric,
// else the bound that holds ("no effect beyond ±3.2%").
std::string dose_bound_text(const Findings& f, const LevelVerdict& v);
// What deciding the undecided would take, or "" when nothing is undecided.
std::string to_decide_line(const Findings& f, const CheckContext& ctx);

// The profiler's cost: a metric that is not judged (MetricInfo::judged false, the
// target's and the profiler's usage together) at each dose on the dose axis, its held
// comparison (else its first) with at least one pair.
struct CostAtDose {
  std::size_t level = 0;      // plan level index
  const Comparison* comparison = nullptr;
};
std::vector<CostAtDose> profiler_cost_doses(const Plan& plan, const Findings& f, std::size_t metric);
// "user-time (target + profiler): 99Hz +3.5% [+1.0%, +6.0%], 999Hz +40% [+31%, +52%]",
// or "" when the metric is judged or has no pair yet.
std::string profiler_cost_text(const Plan& plan, const Findings& f, std::size_t metric);

}  // namespace obscheck::check_report_detail
