// report/: the main job's reporters — `obscheck ./prog` and `obscheck report FILE`.
//
// They turn a finished analysis (Findings, from analysis/) plus the Plan it came from
// and a little context the CLI knows (argv, journal path, host) into bytes: terminal
// text, JSON (schema in docs/report-schema.md), CSV and GitHub-flavoured Markdown.
// They never write files, never compute statistics and never print. The output is a
// pure function of the arguments, so the same journal always gives the same report.
//
// Edge cases every reporter accepts: no comparisons at all (a sweep interrupted before
// its first measured block), comparisons without a LevelVerdict (verdict columns stay
// empty), NaN effects or intervals (text "n/a", JSON null, CSV empty field), metrics
// without any comparison (no plot), an empty host object (host "not recorded").
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "analysis/findings.h"
#include "plan/plan.h"

namespace obscheck {

// What the observer itself recorded at one level over its measured runs (probe hits,
// samples, a profiler command's own cost, the kernel's sampling limit): a side effect
// of the dose, not a metric. A quantity absent from a level's runs (the profiler's
// cost where no profiler runs) has no Observation there.
struct Observation {
  std::string level;  // the level's label
  int dose = 0;
  std::string key;    // machine key: "profiler_wall_ms", "probe_hits:NAME", ... (docs/report-schema.md)
  std::string what;   // for a reader: "profiler command's own time"
  std::string unit;   // "ms", "count", "Hz"
  std::size_t n = 0;  // runs it was read in
  double min = 0, max = 0, mean = 0;
  int digits = 0;     // decimals to print
};
// "1: profiler command's own time (ms) per run = 48.1..52.0 (mean 50.2)".
std::string observation_text(const Observation& o);
nlohmann::json observation_json(const Observation& o);

// What the reporters need beyond the findings: how the sweep was started and where it
// was recorded. Filled by cli/ from the live sweep or from a journal's manifest.
struct CheckContext {
  std::vector<std::string> argv;  // the target's argv, argv[0] first
  std::string mode;               // "external" | "inprocess"
  std::uint64_t seed = 0;
  std::string journal_path;
  nlohmann::json host = nlohmann::json::object();  // HostInfo as JSON (host/host_info.h)
  std::vector<nlohmann::json> doctor;              // host Finding JSON: id, severity, what, why, fix
  std::size_t env_bytes = 0;                       // the target's environment block, bytes
  bool complete = true;                            // false: interrupted or stopped by a failure
  std::size_t runs_planned = 0, runs_done = 0;     // journalled runs, warm-ups included
  std::vector<std::string> warnings;               // e.g. counters dropped with --allow-missing
  std::vector<Observation> observations;           // what the observer itself recorded per level
                                                   // (probe hit counts, samples taken and lost)
  // Empty for the host's own counters; under --backend sim one line each: the
  // simulator and its determinism, the geometry and its source, the cycle model.
  std::vector<std::string> backend;
  // The pace of the check's runs (seconds per measured block), when it was timed: the
  // report turns "about N blocks would decide" into seconds. 0: not known (a report).
  double seconds_per_block = 0;
  // How the check's runs went, one line each: its stretches (the blocks each
  // invocation added and why it stopped) and the configurations it stopped running
  // once settled, with the runs saved.
  std::vector<std::string> sweep;
  // The exit code the check gives for these findings (cli/'s --fail-on rule), printed
  // on the summary's last line; -1: not known (the line then names no code).
  int exit_code = -1;
  // Show every metric's rows and plots (--verbose); otherwise a driver metric with
  // nothing to act on is named only in the summary's one line.
  bool verbose = false;
  // The header and the answer alone, and where the detail is (the demo's second part).
  bool summary_only = false;
};

// The summary that opens every report: one line per metric the user asked about
// (and any other with a finding), one for the quiet driver metrics, the safe doses,
// and the whole check's verdict. Lines without an end-of-line; no colour.
std::vector<std::string> summary_lines(const Plan& plan, const Findings& f, const CheckContext& ctx);

// The A/A control in one line, saying what it tested: "no significant difference on N
// metrics; resolution ±x%", equivalence only where shown; or FAILED and why.
std::string aa_line(const Findings& f);

// Terminal text, in this order: a header (command, mode, blocks × configurations,
// seed, journal, margin), the verdict table (one row per metric × level, grouped by
// metric under its worst verdict, one column per layout of the plan with the effect
// and its CI, the verdict, the reason on a dim continuation line; when a row would
// pass 120 columns the verdict moves to the start of the reason line instead, for the
// whole table), the A/A control,
// incomparable runs, notes and warnings, then per metric with comparisons a text plot
// of effect against dose (textplot.h), the host manifest and doctor warnings, and a
// "methods:" footer naming every interval and test method used. `color` adds ANSI
// colour (perturbed red, layout yellow, not perturbed green, incomparable magenta,
// inconclusive dim); without it the output is plain bytes.
std::string check_text(const Plan& plan, const Findings& f, const CheckContext& ctx, bool color);

// One JSON document, "schema": "obscheck-check-report", "version": 1, every field
// described in docs/report-schema.md. Non-finite numbers are null. Ends with "\n".
std::string check_json(const Plan& plan, const Findings& f, const CheckContext& ctx);

// One row per comparison (A/A included) after a header row, RFC 4180 quoting (a field
// with a comma, quote or line break is quoted, quotes doubled), "\n" line ends:
// metric,unit,config_id,level,dose,layout,aa,n,effect,ci_lo,ci_hi,p,p_holm,significant,
// equivalent,verdict,reason,running_min,running_median,scaled_runs,never_ran,faults,
// baseline_running_min,baseline_running_median,baseline_scaled_runs,baseline_never_ran,
// baseline_faults,determinism. verdict (a verdict_key) and reason come from the
// metric's LevelVerdict at that level and are empty for the A/A rows. Effects are
// fractions (0.041 = +4.1%) in the shortest form that reads back exactly; non-finite
// is empty. The counter validity columns (Findings::counters) are the metric's in the
// comparison's configuration, then in its baseline, and the metric's determinism key;
// empty for a driver metric.
std::string check_csv(const Plan& plan, const Findings& f);

// For pasting into an issue: the verdict table as a GFM table, the A/A line, the
// counters' validity (each counter's determinism, then a table of its running
// fraction and readings per configuration) and the methods. `|` inside cells is
// escaped.
std::string check_markdown(const Plan& plan, const Findings& f, const CheckContext& ctx);

// "+4.1% [+3.2, +5.0]": an effect (fraction) and its CI as percentages, with as many
// decimals as the largest magnitude needs (2 below 1%, 1 below 100%, else 0); "n/a"
// when the effect is not finite, the CI part omitted when the CI is not.
std::string format_effect_ci(double effect, double lo, double hi);

// A fraction as percent, -0 folded into +0 (so "-0.0" never prints); "±1%" for ε.
double pct(double fraction);
std::string format_margin(double margin);

}  // namespace obscheck
