// cli/: the picture files of `obscheck bias` and `obscheck compare` — `--html FILE` and
// `--svg DIR`. The bytes come from report/sweep_html.h; this file reads the host (for
// the page's host section and doctor warnings) and decides where the bytes go. Kept
// apart from html_out.h because the check's Comparison (analysis/findings.h) and the
// sweep's (analysis/compare.h) cannot meet in one translation unit.
#pragma once

#include "cli/options.h"
#include "report/bias_report.h"

namespace obscheck {

// Writes what o.html (the page) and o.svg_dir (every figure as its own .svg file, the
// directory created when missing) ask for; nothing when both are empty. Each file is
// written atomically (a temporary, then rename). The host is read now (read_host) and
// judged by doctor_checks: the sweep has just run on it. Says on stderr what it wrote.
// Throws Error(io) naming the file or directory that could not be written.
void write_sweep_files(const Options& o, const SweepReport& r);

}  // namespace obscheck
