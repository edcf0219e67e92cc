// The main job: obscheck [options] PROG ARGS. The command line becomes a typed request,
// the request a prepared check (job/check/check_setup.h), the check a session
// (job/check/check_job.h) that plans, runs, journals, looks and stops; the findings of its
// last look become the report and the exit code. `--resume FILE` (continue_check,
// job/check/check_resume.h) enters the same session from a journal; `report FILE` re-reads one.
#include <sys/ioctl.h>
#include <unistd.h>

#include <fmt/core.h>

#include "cli/request_from.h"
#include "cli/commands.h"
#include "job/journal/resume_options.h"
#include "job/check/check_context.h"
#include "job/check/check_job.h"
#include "job/check/check_resume.h"
#include "job/journal/journal_job.h"
#include "record/journal.h"
#include "report/brief_report.h"
#include "report/check_report.h"
#include "run/session.h"
#include "util/error.h"

namespace obscheck {
namespace {

// The terminal's width less one (a line that fills it wraps on some terminals), 79
// when it cannot be read.
std::size_t progress_columns() {
  winsize ws{};
  return ::ioctl(STDERR_FILENO, TIOCGWINSZ, &ws) == 0 && ws.ws_col > 20 ? ws.ws_col - 1u : 79u;
}

// The progress line on stderr: the run, the look it runs to, when the look ends, the
// budget. Only on a terminal, and never under --json or --csv.
SessionProgressFn progress_line(const Options& o) {
  if (!o.progress || o.json || o.csv) return {};
  return [](const SessionProgress& p) {
    if (p.config == nullptr) return fmt::print(stderr, "\r\x1b[K");
    // The look's own end, and the budget's, are what the user can wait for: the cap
    // (--max-runs) is rarely reached.
    const std::string budget =
        p.budget_s > 0 ? fmt::format(", {:.0f}/{:g} s", p.elapsed_s, p.budget_s) : "";
    std::string line = fmt::format(
        "  run {}, look at {} blocks in ~{:.0f} s{} | {}", p.runs_done, p.look, p.look_eta_s,
        budget, terminal_safe(p.verdicts.empty() ? p.config->id : p.verdicts, false));
    // One line that a terminal does not wrap (a wrapped line is not rewritten by \r).
    if (const std::size_t width = progress_columns(); line.size() > width)
      line = line.substr(0, width - 3) + "...";
    fmt::print(stderr, "\r\x1b[K{}", line);
  };
}

}  // namespace

void print_check(const Options& o, const Plan& plan, const Findings& findings,
                 const CheckContext& ctx) {
  emit(o, o.json                          ? check_json(plan, findings, ctx)
          : o.csv                         ? check_csv(plan, findings)
          : o.markdown                    ? check_markdown(plan, findings, ctx)
          : o.verbose || ctx.summary_only ? check_text(plan, findings, ctx, o.color)
                                          : check_brief(plan, findings, ctx));
  // As bias and compare (and hyperfine): the machine-readable report beside the terminal's.
  if (!o.export_json.empty()) write_and_say(o.export_json, check_json(plan, findings, ctx));
  if (!o.export_csv.empty()) write_and_say(o.export_csv, check_csv(plan, findings));
}

int run_check(const Options& o, const PreparedCheck& p, Session& s, JournalWriter& journal,
              const nlohmann::json& host) {
  CheckRun run =
      run_check_session(p, s, journal, host, {o.time_budget_auto, o.decide_all}, progress_line(o));
  const SessionOutcome& out = run.outcome;
  const Findings& findings = run.findings;
  CheckContext& ctx = run.ctx;
  const int findings_code = check_exit_code(o.fail_on, s.plan, findings);
  ctx.exit_code = out.interrupted        ? interrupted_exit_code()
                  : !out.failure.empty() ? static_cast<int>(ExitCode::target_failed)
                                         : findings_code;
  if (o.demo_part) ctx.exit_code = -1;  // the demo decides its own (cli/cmd_demo.cpp)
  ctx.verbose = o.verbose;
  ctx.summary_only = o.summary_only;
  print_check(o, s.plan, findings, ctx);
  write_report_files(files_of(o), s.plan, findings, ctx, s.runs);
  if (out.interrupted) return interrupted_exit_code();
  if (!out.failure.empty()) {
    journal.sync();  // here, where a failure to sync can still be reported
    throw Error(ErrorKind::target_failed, out.failure + " (journal: " + s.journal_path + ")",
                "use -i/--ignore-failure to record failing runs and go on");
  }
  return findings_code;
}

int continue_check(const Options& o, const std::string& path, const CheckResumeAsk& ask) {
  ResumedCheck c = resume_check(path, ask);
  if (c.complete) return report_complete_journal(o, c.journal.data);
  if (!c.notice.empty()) fmt::print(stderr, "obscheck: {}\n", terminal_safe(c.notice, false));
  return run_check(o, c.prepared, c.session, c.journal.writer, c.host);
}

namespace {

// A check's --resume FILE: its command line checked against the journal's request,
// this invocation's budget and raised cap taken.
int resume_check(const Options& o) {
  if (const nlohmann::json m = manifest_to_resume(o.resume, JobKind::check); !m.is_null())
    refuse_changed_options(o.given, asked_check_request(o), m);
  CheckResumeAsk ask{.time_budget_auto = o.time_budget_auto};
  if (o.gave("time-budget") && !o.time_budget_auto) ask.time_budget = o.request.time_budget;
  if (o.gave("max-runs")) ask.max_runs = o.request.max_runs;
  return continue_check(o, o.resume, ask);
}

}  // namespace

int cmd_resume(const Options& o) {
  const JobKind kind = o.command == Command::measure   ? JobKind::measure
                       : o.command == Command::bias    ? JobKind::bias
                       : o.command == Command::compare ? JobKind::compare
                                                       : journal_kind(o.resume);
  switch (kind) {
    case JobKind::bias:
    case JobKind::compare: return resume_sweep(o, kind);
    case JobKind::measure: return resume_measure(o);
    case JobKind::check: break;
  }
  return resume_check(o);
}

int cmd_check(const Options& o) {
  if (!o.resume.empty()) return cmd_resume(o);  // a demo's part, given --resume
  StartedCheck c =
      start_check(prepare_check(check_request_from(o)), o.journal, "", o.time_budget_auto);
  return run_check(o, c.prepared, c.session, c.journal, c.host);
}

}  // namespace obscheck
