// job/: the files a report writes beside what it prints: `--html FILE` (one
// self-contained page), `--svg DIR` (every figure as its own .svg) and, for the sweeps,
// `--export-json` / `--export-csv FILE`. The bytes come from report/html_report.h and
// report/sweep_html.h; this file puts them where the command line said, safely.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "analysis/findings.h"
#include "host/host_info.h"
#include "plan/plan.h"
#include "record/run_record.h"
#include "report/bias_report.h"
#include "report/check_report.h"

namespace obscheck {

// The file names a command line gives (empty: not asked for).
struct ReportFiles {
  std::string html;         // --html FILE
  std::string svg_dir;      // --svg DIR
  std::string export_json;  // --export-json FILE
  std::string export_csv;   // --export-csv FILE
};

// Writes what f.html and f.svg_dir ask for; nothing when both are empty. The SVG
// directory is created when missing; each file is written atomically (a temporary,
// then rename). Says on stderr what it wrote. Throws Error(io) naming the file or
// directory that could not be written.
void write_report_files(const ReportFiles& f, const Plan& plan, const Findings& findings,
                        const CheckContext& ctx, const std::vector<RunRecord>& runs);

// Writes `bytes` to `file` (util/safe_write.h: a fresh file renamed over it) and says
// so on stderr. Throws Error(io) naming the file.
void write_and_say(const std::string& file, const std::string& bytes);

// The same for bias and compare, with --export-json / --export-csv FILE (the JSON report
// and the runs as CSV, beside what the terminal shows). The page's host section is
// `host`, judged by doctor_checks: the journal's host for obscheck report FILE; when
// unset, this host, read now (the sweep has just run on it).
void write_sweep_files(const ReportFiles& f, const SweepReport& r,
                       const std::optional<HostInfo>& host = std::nullopt);

}  // namespace obscheck
