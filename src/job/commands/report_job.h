// job/: `obscheck report FILE` for a check's journal: the findings recomputed from the
// runs, re-judged with what the report's command line gives, and what the check said of
// its own invocation from the journal's notes (the report's CheckContext). cli/cmd_report.cpp
// prints it and picks the exit code.
#pragma once

#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "analysis/check.h"
#include "plan/plan.h"
#include "record/journal.h"
#include "record/run_record.h"
#include "report/certificate.h"
#include "report/check_report.h"
#include "run/backend.h"

namespace obscheck {

// What the report's command line changes in the check's analysis.
struct ReportAsk {
  std::optional<double> margin;  // --margin: re-judge with this ε (else the journal's)
  bool allow_multiplex = false;  // --allow-multiplex: or the journal's own
};

// A check's report, analysed: the plan, the findings, the context (its exit code and
// verbosity are the caller's).
struct CheckReportData {
  Plan plan;
  Findings findings;
  CheckContext ctx;
};

// The report's backend, chosen once from the journal's first line (job/common/job_backend.h);
// none when that line is not a check's readable request (the reader refuses it later
// and names why).
std::shared_ptr<const Backend> report_backend(const nlohmann::json& manifest);

// A native check read in one streaming pass into columns (record/journal_reader.h),
// never a RunRecord per run, so a journal of a million runs is read in bounded memory;
// only the runs whose observer left something for the report keep their extras.
// `backend`: report_backend's (none: the journal's, once its manifest is read).
CheckReportData check_report_from_table(const std::string& path, const ReportAsk& ask,
                                        std::shared_ptr<const Backend> backend);

// A check's journal loaded whole, analysed by its backend's analysis (the exact one for
// a simulated check) or, with `sequential`, always the sequential one (a certificate).
CheckReportData check_report_from_journal(const JournalData& d, const ReportAsk& ask,
                                          std::shared_ptr<const Backend> backend, bool sequential = false);

// Whether a journal of `backend` (none: unreadable) is read into columns: a check whose
// backend does not count exactly (the exact analysis reads RunRecords).
bool report_reads_columns(const std::shared_ptr<const Backend>& backend);

// A plan given where a journal belongs reads as "line 1: not valid JSON" (a plan is
// one pretty-printed object): Error(io) saying what it is and what to do with it.
void refuse_plan_files(const std::vector<std::string>& files);

// report --certificate: a profiler command's check analysed as its certificate reads it
// (the sequential analysis), with what the certificate adds: the command, the rate each
// level asks for, the kernel's log scanned now. Error(usage) for a journal that is not
// a check's.
struct CertificateReport {
  CheckReportData report;
  CertificateInput input;
};
CertificateReport certificate_report(const std::string& path, const ReportAsk& ask);

}  // namespace obscheck
