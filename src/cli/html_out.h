// cli/: the report's picture files — `obscheck report FILE --html OUT --svg DIR`, and
// the page `obscheck demo` leaves behind. The bytes come from report/html_report.h;
// this file only decides where they go.
#pragma once

#include <string>
#include <vector>

#include "analysis/findings.h"
#include "cli/options.h"
#include "plan/plan.h"
#include "record/run_record.h"
#include "report/check_report.h"

namespace obscheck {

// Writes what o.html (one self-contained HTML page) and o.svg_dir (every figure as its
// own .svg file, the directory created when missing) ask for; nothing when both are
// empty. Each file is written atomically (a temporary, then rename). Says on stderr
// what it wrote. Throws Error(io) naming the file that could not be written.
void write_report_files(const Options& o, const Plan& plan, const Findings& f, const CheckContext& ctx,
                        const std::vector<RunRecord>& runs);

// The journal at `journal_path`, analysed exactly as `obscheck report` does (the
// journal's own margin), written as one HTML page to `out_path`. Throws Error(io) as
// load_journal, or when `out_path` cannot be written.
void write_check_html(const std::string& journal_path, const std::string& out_path);

}  // namespace obscheck
