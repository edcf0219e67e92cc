// obscheck report FILE: a check's report from its journal alone, exactly as the check
// printed it (the findings are recomputed from the runs; what the check said of its
// own invocation comes from the journal's notes).
#include <fmt/core.h>

#include "analysis/check.h"
#include "analysis/deterministic.h"
#include "job/check_context.h"
#include "job/journal_job.h"
#include "job/shard_merge.h"
#include "cli/commands.h"
#include "cli/sweep_session.h"
#include "cli/html_out.h"
#include "cli/resume.h"
#include "observe/wrap.h"
#include "record/journal.h"
#include "record/journal_reader.h"
#include "record/plan_file.h"
#include "record/request.h"
#include "report/certificate.h"
#include "report/check_report.h"
#include "util/safe_write.h"
#include "run/backend.h"
#include "run/check.h"
#include "util/error.h"

namespace obscheck {
namespace {

constexpr const char* kTornTail = "the journal's last line is incomplete (a run cut off mid-write); it was ignored";

void print_check(const Options& o, const Plan& plan, const Findings& findings, const CheckContext& ctx) {
  emit(o, o.json       ? check_json(plan, findings, ctx)
          : o.csv      ? check_csv(plan, findings)
          : o.markdown ? check_markdown(plan, findings, ctx)
                       : check_text(plan, findings, ctx, o.color));
}

// The check's ε, or the one given to re-judge it with.
double margin_of(const Options& o, const CheckRequest& recorded) { return o.margin_given ? o.margin : recorded.margin; }

// The check's analysis as recorded, re-judged with what this command line gives
// (--margin, --allow-multiplex).
AnalysisOptions analysis_of(const Options& o, const CheckRequest& recorded, std::size_t looks, const Plan& plan) {
  AnalysisOptions a{margin_of(o, recorded), 0.05, looks, plan.seed(), 0, plan.spec.fixed_blocks.has_value()};
  a.allow_multiplex = o.allow_multiplex || recorded.allow_multiplex;
  return a;
}

// Only runs whose observer left something for the report (probe hits, samples, a
// profiler command's own cost, the kernel's sampling limit, processes left behind) are kept, and only their extras.
void keep_extras(std::vector<RunRecord>& with_extras, const RunFields& f) {
  if (f.extra == "{}") return;
  if (f.extra.find("\"probe_hits\"") == std::string_view::npos &&
      f.extra.find("\"sampling\"") == std::string_view::npos &&
      f.extra.find("\"profiler_") == std::string_view::npos &&
      f.extra.find("\"max_sample_rate\"") == std::string_view::npos &&
      f.extra.find("\"wall_of\"") == std::string_view::npos &&
      f.extra.find("\"left_behind\"") == std::string_view::npos)
    return;
  RunRecord& r = with_extras.emplace_back();
  r.index = f.index;
  r.config = f.config;
  r.block = f.block;
  r.warmup = f.warmup;
  r.extra = nlohmann::json::parse(f.extra, nullptr, false);
  if (!r.extra.is_object()) r.extra = nlohmann::json::object();
}

// A native check without figures: one streaming pass into columns (record/
// journal_reader.h), never a RunRecord per run, so a journal of a million runs is read
// in bounded memory.
int report_from_table(const Options& o) {
  std::vector<RunRecord> with_extras;
  const JournalTable t = read_journal_table(o.report_file, [&](const RunFields& f) { keep_extras(with_extras, f); });
  JournalData shell;  // what the report's context reads of a journal: all but the runs
  shell.path = t.path;
  shell.manifest = t.manifest;
  shell.notes = t.notes;
  const Findings findings =
      analyse_check(t.plan, t.runs, analysis_of(o, request_from_manifest(t.manifest), looks_of(shell), t.plan));
  CheckContext ctx = manifest_context(shell, t.plan);
  ctx.runs_done = t.runs.size();
  ctx.observations = observations(t.plan, with_extras);
  if (auto w = left_behind_warning(with_extras); !w.empty()) ctx.warnings.push_back(w);
  if (auto w = command_wall_warning(t.plan, with_extras); !w.empty()) ctx.warnings.push_back(w);
  if (t.scan.torn_tail) ctx.warnings.push_back(kTornTail);
  if (auto w = integrity_warning(t.scan); !w.empty()) ctx.warnings.push_back(w);
  ctx.exit_code = check_exit_code(o, t.plan, findings);
  ctx.verbose = o.verbose;
  print_check(o, t.plan, findings, ctx);
  return ctx.exit_code;
}

// A plan given where a journal belongs reads as "line 1: not valid JSON" (a plan is
// one pretty-printed object): say what it is and what to do with it.
void refuse_plan_files(const Options& o) {
  for (const std::string& f : o.report_files)
    if (read_manifest_line(f).is_null() && looks_like_plan_file(f))
      throw Error(ErrorKind::io, fmt::format("{} is a plan (written by obscheck plan), not a journal", f),
                  fmt::format("run its shards with obscheck run --plan {} --shard I/N, then report their journals", f));
}

// report --certificate: a profiler command's check as a certificate (report/certificate.h):
// text, or --json; --html FILE writes its page. The kernel's log is read now.
int report_certificate(const Options& o) {
  if (!o.csv && !o.markdown && o.svg_dir.empty()) {
    const JournalData d = load_journal(o.report_file);
    if (const std::optional<JobKind> kind = job_kind_of(d.manifest); !kind || *kind != JobKind::check)
      throw Error(ErrorKind::usage, o.report_file + " is not a check's journal: --certificate describes a check",
                  "run the check with --observer-cmd 'PROFILER ... --' --levels 0,... --journal FILE");
    const Plan plan = plan_from_journal(d);
    const CheckRequest recorded = request_from_manifest(d.manifest);
    const Findings findings = analyse_check(plan, d.runs, analysis_of(o, recorded, looks_of(d), plan));
    CheckContext ctx = manifest_context(d, plan);
    ctx.observations = observations(plan, d.runs);
    if (auto w = left_behind_warning(d.runs); !w.empty()) ctx.warnings.push_back(w);
    if (auto w = command_wall_warning(plan, d.runs); !w.empty()) ctx.warnings.push_back(w);
    if (d.torn_tail) ctx.warnings.push_back(kTornTail);
    ctx.exit_code = check_exit_code(o, plan, findings);
    CertificateInput in{recorded.observer.command, scan_kernel_log(kPerfThrottleMessage), {}};
    if (plan.spec.doses_wrap_a_command())
      for (const Level& l : plan.spec.levels) {
        const std::string level = l.extra.value("wrap", std::string());
        if (const auto hz = requested_frequency(in.profiler_command, level)) in.requested_hz[level] = *hz;
      }
    const nlohmann::json cert = certificate_json(plan, findings, ctx, in);
    emit(o, o.json ? cert.dump(2) + "\n" : certificate_text(cert));
    if (!o.html.empty()) {
      write_file_safely(o.html, certificate_html(plan, findings, cert));
      fmt::print(stderr, "obscheck: wrote {}\n", o.html);
    }
    return ctx.exit_code;
  }
  throw Error(ErrorKind::usage, "--certificate is text, --json or --html FILE",
              "leave out --csv, --markdown and --svg");
}

}  // namespace

int cmd_report(const Options& o) {
  refuse_plan_files(o);
  if (o.certificate) {
    if (o.report_files.size() > 1) throw Error(ErrorKind::usage, "--certificate describes one journal");
    return report_certificate(o);
  }
  if (o.report_files.size() > 1) return report_merged(o);
  // The manifest alone says which command's report this is.
  const nlohmann::json manifest = read_manifest_line(o.report_file);
  const std::optional<JobKind> kind = job_kind_of(manifest);
  if (kind && is_sweep(*kind)) return report_sweep(o, load_journal(o.report_file));
  if (kind == JobKind::measure) {
    if (!o.html.empty() || !o.svg_dir.empty())
      throw Error(ErrorKind::usage, o.report_file + " is a measure's journal: its report has no figures",
                  "obscheck report FILE prints it as measure did (--json, --csv, --markdown)");
    return report_measure(o, load_journal(o.report_file));
  }
  // The simulated backend's analysis and the figures (--html, --svg) read RunRecords.
  if (o.html.empty() && o.svg_dir.empty() && !journal_counts_exactly(manifest)) return report_from_table(o);
  const JournalData d = load_journal(o.report_file);
  const Plan plan = plan_from_journal(d);
  const CheckRequest recorded = request_from_manifest(d.manifest);
  const double margin = margin_of(o, recorded);
  const Findings findings = choose_backend(recorded)->exact() ? analyse_deterministic(plan, d.runs, margin)
                                      : analyse_check(plan, d.runs, analysis_of(o, recorded, looks_of(d), plan));
  CheckContext ctx = manifest_context(d, plan);
  ctx.observations = observations(plan, d.runs);
  if (auto w = left_behind_warning(d.runs); !w.empty()) ctx.warnings.push_back(w);
  if (auto w = command_wall_warning(plan, d.runs); !w.empty()) ctx.warnings.push_back(w);
  if (d.torn_tail) ctx.warnings.push_back(kTornTail);
  if (d.unchecked_lines > 0)
    ctx.warnings.push_back(fmt::format("{} of the journal's {} lines carry no integrity check (written by an older "
                                       "obscheck): they were validated field by field, but a plausible changed value "
                                       "cannot be detected",
                                       d.unchecked_lines, d.lines));
  ctx.exit_code = check_exit_code(o, plan, findings);
  ctx.verbose = o.verbose;
  print_check(o, plan, findings, ctx);
  write_report_files(o, plan, findings, ctx, d.runs);
  return ctx.exit_code;
}

int report_merged(const Options& o) {
  if (!o.svg_dir.empty())
    throw Error(ErrorKind::usage, "--svg is for one check's journal; the merged report's figures are in --html FILE");
  MergedShards m = merge_shards(o.report_files);
  AnalysisOptions a{o.margin_given ? o.margin : m.recorded.margin, 0.05, 1, m.plan.seed(), 0, true};  // shards: fixed blocks, one look
  a.allow_multiplex = o.allow_multiplex || m.recorded.allow_multiplex;
  const HostsFindings f = analyse_hosts(m.plan, std::move(m.hosts), a);
  emit(o, o.json ? hosts_json(m.plan, f, m.ctx) : hosts_text(m.plan, f, m.ctx));
  if (!o.html.empty()) {
    write_file_safely(o.html, hosts_html(m.plan, f, m.ctx));
    fmt::print(stderr, "obscheck: wrote {}\n", o.html);
  }
  std::vector<std::string> found;
  for (const PooledEffect& p : f.pooled) {
    found.emplace_back(verdict_key(p.verdict));
    for (const HostVerdict& h : p.hosts) found.emplace_back(verdict_key(h.verdict));
  }
  return findings_exit_code(o, found, kCheckFailOn);
}

}  // namespace obscheck
