// obscheck report FILE: a check's report from its journal alone, exactly as the check
// printed it (job/commands/report_job.h recomputes the findings from the runs; what the check
// said of its own invocation comes from the journal's notes); several shards' journals
// merged (job/shards/shard_merge.h); a measure's or a sweep's report.
#include <fmt/core.h>

#include "job/journal/journal_job.h"
#include "job/commands/report_job.h"
#include "job/shards/shard_merge.h"
#include "cli/commands.h"
#include "cli/sweep_session.h"
#include "record/journal.h"
#include "report/certificate.h"
#include "report/check_report.h"
#include "util/error.h"

namespace obscheck {
namespace {

// What this command line changes in the check's analysis.
ReportAsk report_ask(const Options& o) {
  return {o.margin_given ? std::optional<double>(o.request.margin) : std::nullopt,
          o.request.allow_multiplex};
}

// Prints a check's report and returns its exit code.
int print_report(const Options& o, CheckReportData& r) {
  r.ctx.exit_code = check_exit_code(o.fail_on, r.plan, r.findings);
  r.ctx.verbose = o.verbose;
  print_check(o, r.plan, r.findings, r.ctx);
  return r.ctx.exit_code;
}

// report --certificate: a profiler command's check as a certificate (report/certificate.h):
// text, or --json; --html FILE writes its page.
int report_certificate(const Options& o) {
  if (o.csv || o.markdown || !o.svg_dir.empty())
    throw Error(ErrorKind::usage, "--certificate is text, --json or --html FILE",
                "leave out --csv, --markdown and --svg");
  CertificateReport c = certificate_report(o.report_file, report_ask(o));
  const Plan& plan = c.report.plan;
  const Findings& findings = c.report.findings;
  c.report.ctx.exit_code = check_exit_code(o.fail_on, plan, findings);
  const nlohmann::json cert = certificate_json(plan, findings, c.report.ctx, c.input);
  emit(o, o.json ? cert.dump(2) + "\n" : certificate_text(cert));
  if (!o.html.empty()) write_and_say(o.html, certificate_html(plan, findings, cert));
  return c.report.ctx.exit_code;
}

// The report of the one journal at `path`, the command's the manifest says it is.
int report_journal(const Options& o, const std::string& path) {
  const nlohmann::json manifest = read_manifest_line(path);
  const std::optional<JobKind> kind = job_kind_of(manifest);
  if (kind && is_sweep(*kind)) return report_sweep(o, load_journal(path));
  if (kind == JobKind::measure) {
    if (!o.svg_dir.empty())
      throw Error(
          ErrorKind::usage, path + " is a measure's journal: its report has no figures",
          "obscheck report FILE prints it as measure did (--json, --csv, --markdown, --html FILE)");
    return report_measure(o, load_journal(path));
  }
  // The simulated backend's analysis and the figures (--html, --svg) read RunRecords.
  std::shared_ptr<const Backend> backend = report_backend(manifest);
  if (o.html.empty() && o.svg_dir.empty() && report_reads_columns(backend)) {
    CheckReportData r = check_report_from_table(path, report_ask(o), std::move(backend));
    return print_report(o, r);
  }
  const JournalData d = load_journal(path);
  CheckReportData r = check_report_from_journal(d, report_ask(o), std::move(backend));
  const int code = print_report(o, r);
  write_report_files(files_of(o), r.plan, r.findings, r.ctx, d.runs);
  return code;
}

// obscheck report with several journals: the shards of one plan, merged with the host
// as a factor (job/shards/shard_merge.h).
int report_merged(const Options& o) {
  if (!o.svg_dir.empty())
    throw Error(ErrorKind::usage,
                "--svg is for one check's journal; the merged report's figures are in --html FILE");
  MergedShards m = merge_shards(o.report_files);
  const ReportAsk ask = report_ask(o);
  const HostsFindings f = analyse_merged(m, ask.margin, ask.allow_multiplex);
  emit(o, o.json ? hosts_json(m.plan, f, m.ctx) : hosts_text(m.plan, f, m.ctx));
  if (!o.html.empty()) write_and_say(o.html, hosts_html(m.plan, f, m.ctx));
  return findings_exit_code(o.fail_on, merged_outcomes(f), FailOnOf::check);
}

}  // namespace

int report_complete_journal(const Options& o, const JournalData& d) {
  fmt::print(stderr,
             "obscheck: journal {} is complete ({} runs): nothing to run, nothing written; its "
             "report follows\n",
             d.path, d.runs.size());
  return report_journal(o, d.path);
}

int cmd_report(const Options& o) {
  refuse_plan_files(o.report_files);
  if (o.certificate) {
    if (o.report_files.size() > 1)
      throw Error(ErrorKind::usage, "--certificate describes one journal");
    return report_certificate(o);
  }
  return o.report_files.size() > 1 ? report_merged(o) : report_journal(o, o.report_file);
}

}  // namespace obscheck
