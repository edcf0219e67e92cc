#include "job/commands/report_job.h"

#include <fmt/core.h>

#include "analysis/deterministic.h"
#include "host/kernel_log.h"
#include "job/journal/journal_job.h"
#include "observe/wrap.h"
#include "job/check/check_context.h"
#include "record/journal_reader.h"
#include "record/run_record.h"
#include "record/plan_file.h"
#include "record/request.h"
#include "job/common/job_backend.h"
#include "run/backend.h"
#include "util/error.h"
#include "run/check.h"

namespace obscheck {
namespace {

constexpr const char* kTornTailWarning = "the journal's last line is incomplete (a run cut off mid-write); it was ignored";

// The check's analysis as recorded, re-judged with what the report's command line gives.
AnalysisOptions report_analysis(const ReportAsk& ask, const CheckRequest& recorded, std::size_t looks, const Plan& plan) {
  AnalysisOptions a{ask.margin.value_or(recorded.margin), 0.05, looks, plan.seed(), 0, plan.spec.fixed_blocks.has_value()};
  a.allow_multiplex = ask.allow_multiplex || recorded.allow_multiplex;
  return a;
}

// Only runs whose observer left something for the report (probe hits, samples, a
// profiler command's own cost, the kernel's sampling limit, processes left behind) are kept, and only their extras.
// Whether `extra` names one of those keys: one pass over its quotes, not one per key
// (a million runs' extras are read once each), and a key's first character compared
// before the key (most quotes open or close another name: the host's load's).
bool names_an_extra(std::string_view extra) {
  static constexpr std::string_view kKeys[] = {"probe_hits\"", "sampling\"",    "profiler_",
                                               "max_sample_rate\"", "wall_of\"", "left_behind\""};
  for (std::size_t q = extra.find('"'); q != std::string_view::npos; q = extra.find('"', q + 1)) {
    const std::string_view rest = extra.substr(q + 1);
    if (rest.empty()) break;
    for (std::string_view key : kKeys)
      if (rest.front() == key.front() && rest.starts_with(key)) return true;
  }
  return false;
}

void keep_extras(std::vector<RunRecord>& with_extras, const RunFields& f) {
  if (f.extra == "{}" || !names_an_extra(f.extra)) return;
  RunRecord& r = with_extras.emplace_back();
  r.index = f.index;
  r.config = f.config;
  r.block = f.block;
  r.warmup = f.warmup;
  read_run_extra(r, f.extra);  // Error(io) names the file and line (read_journal_table)
}

// The warnings every report of a check's runs carries about them.
void warn_of_runs(CheckContext& ctx, const Plan& plan, const std::vector<RunRecord>& runs, bool torn_tail) {
  ctx.observations = observations(plan, runs);
  if (auto w = left_behind_warning(runs); !w.empty()) ctx.warnings.push_back(w);
  if (auto w = command_wall_warning(plan, runs); !w.empty()) ctx.warnings.push_back(w);
  if (torn_tail) ctx.warnings.push_back(kTornTailWarning);
}

// The report's backend as given, else the journal's (its manifest read by now).
std::shared_ptr<const Backend> recorded_backend(std::shared_ptr<const Backend> backend, const nlohmann::json& manifest) {
  return backend ? backend : job_backend(request_from_manifest(manifest));
}

}  // namespace

std::shared_ptr<const Backend> report_backend(const nlohmann::json& manifest) {
  if (manifest.is_null()) return nullptr;
  try {
    return job_backend(request_from_manifest(manifest));
  } catch (const Error&) {
    return nullptr;
  }
}

bool report_reads_columns(const std::shared_ptr<const Backend>& backend) { return !backend || !backend->exact(); }

CheckReportData check_report_from_table(const std::string& path, const ReportAsk& ask,
                                        std::shared_ptr<const Backend> backend) {
  std::vector<RunRecord> with_extras;
  const JournalTable t = read_journal_table(path, [&](const RunFields& f) { keep_extras(with_extras, f); });
  JournalData shell;  // what the report's context reads of a journal: all but the runs
  shell.path = t.path;
  shell.manifest = t.manifest;
  shell.notes = t.notes;
  CheckReportData r{t.plan, analyse_check(t.plan, t.runs,
                                          report_analysis(ask, request_from_manifest(t.manifest), looks_of(shell), t.plan)),
                    manifest_context(shell, t.plan, *recorded_backend(backend, t.manifest))};
  r.ctx.runs_done = t.runs.size();
  warn_of_runs(r.ctx, t.plan, with_extras, t.scan.torn_tail);
  for (std::string& w : journal_continue_warnings(t.notes, t.plan, t.path, r.findings)) r.ctx.warnings.push_back(std::move(w));
  if (auto w = integrity_warning(t.scan); !w.empty()) r.ctx.warnings.push_back(w);
  return r;
}

CheckReportData check_report_from_journal(const JournalData& d, const ReportAsk& ask,
                                          std::shared_ptr<const Backend> backend, bool sequential) {
  const Plan plan = plan_from_journal(d);
  const CheckRequest recorded = request_from_manifest(d.manifest);
  backend = recorded_backend(std::move(backend), d.manifest);
  const bool exact = !sequential && backend->exact();
  CheckReportData r{plan,
                    exact ? analyse_deterministic(plan, d.runs, ask.margin.value_or(recorded.margin))
                          : analyse_check(plan, d.runs, report_analysis(ask, recorded, looks_of(d), plan)),
                    manifest_context(d, plan, *backend)};
  warn_of_runs(r.ctx, plan, d.runs, d.torn_tail);
  for (std::string& w : journal_continue_warnings(d.notes, plan, d.path, r.findings)) r.ctx.warnings.push_back(std::move(w));
  if (!sequential && d.unchecked_lines > 0)
    r.ctx.warnings.push_back(fmt::format("{} of the journal's {} lines carry no integrity check (written by an older "
                                         "obscheck): they were validated field by field, but a plausible changed value "
                                         "cannot be detected",
                                         d.unchecked_lines, d.lines));
  return r;
}

void refuse_plan_files(const std::vector<std::string>& files) {
  for (const std::string& f : files)
    if (read_manifest_line(f).is_null() && looks_like_plan_file(f))
      throw Error(ErrorKind::io, fmt::format("{} is a plan (written by obscheck plan), not a journal", f),
                  fmt::format("run its shards with obscheck run --plan {} --shard I/N, then report their journals", f));
}

CertificateReport certificate_report(const std::string& path, const ReportAsk& ask) {
  const JournalData d = load_journal(path);
  if (const std::optional<JobKind> kind = job_kind_of(d.manifest); !kind || *kind != JobKind::check)
    throw Error(ErrorKind::usage, path + " is not a check's journal: --certificate describes a check",
                "run the check with --observer-cmd 'PROFILER ... --' --levels 0,... --journal FILE");
  CertificateReport c{check_report_from_journal(d, ask, nullptr, true), {}};
  const CheckRequest recorded = request_from_manifest(d.manifest);
  c.input = {recorded.observer.command, scan_kernel_log(kPerfThrottleMessage), {}};
  const PlanSpec& spec = c.report.plan.spec;
  if (spec.doses_wrap_a_command())
    for (const Level& l : spec.levels) {
      const std::string level = wrap_word(l).value_or("");
      if (const auto hz = requested_frequency(c.input.profiler_command, level)) c.input.requested_hz[level] = *hz;
    }
  return c;
}

}  // namespace obscheck
