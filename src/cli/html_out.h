// cli/: the picture files of a report — `--html FILE` (one self-contained page) and
// `--svg DIR` (every figure as its own .svg) — for the check (`obscheck check|report|
// demo`) and for the context sweeps (`obscheck bias|compare`). The bytes come from
// report/html_report.h and report/sweep_html.h; this file decides where they go.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "analysis/findings.h"
#include "cli/options.h"
#include "host/host_info.h"
#include "plan/plan.h"
#include "record/run_record.h"
#include "report/bias_report.h"
#include "report/check_report.h"

namespace obscheck {

// Writes what o.html and o.svg_dir ask for; nothing when both are empty. The SVG
// directory is created when missing; each file is written atomically (a temporary,
// then rename). Says on stderr what it wrote. Throws Error(io) naming the file or
// directory that could not be written.
void write_report_files(const Options& o, const Plan& plan, const Findings& f, const CheckContext& ctx,
                        const std::vector<RunRecord>& runs);

// Writes `bytes` to `file` (util/safe_write.h: a fresh file renamed over it) and says
// so on stderr. Throws Error(io) naming the file.
void write_and_say(const std::string& file, const std::string& bytes);

// The same for bias and compare, and --export-json / --export-csv FILE (the JSON report
// and the runs as CSV, beside what the terminal shows). The page's host section is
// `host`, judged by doctor_checks: the journal's host for obscheck report FILE; when
// unset, this host, read now (the sweep has just run on it).
void write_sweep_files(const Options& o, const SweepReport& r, const std::optional<HostInfo>& host = std::nullopt);

}  // namespace obscheck
