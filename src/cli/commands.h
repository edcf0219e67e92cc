// cli/: one function per subcommand. Each returns the process exit code; errors are
// thrown as Error and printed by cli_main, once.
#pragma once

#include <string>

#include <nlohmann/json.hpp>

#include "cli/options.h"
#include "job/check/check_setup.h"
#include "job/common/exit_codes.h"    // the exit code of findings, or of a signal
#include "job/common/report_files.h"  // write_and_say, the --html/--svg/--export-* files
#include "job/common/request_bounds.h"
#include "report/terminal_text.h"  // every text output passes terminal_safe

namespace obscheck {

int cmd_measure(const Options& o);
// A measure's report from its journal alone: the same bytes measure printed
// (cli/cmd_measure.cpp).
struct JournalData;
int report_measure(const Options& o, const JournalData& d);
int cmd_events(const Options& o);
int cmd_doctor(const Options& o);
int cmd_check(const Options& o);  // the main job
// --resume FILE of check, measure, bias or compare: the one place a journal's kind
// decides which job continues it (cli/cmd_check.cpp). `obscheck --resume FILE`
// continues what the journal records; measure, bias and compare continue their own
// kind and refuse another's (job/journal/journal_job.h manifest_to_resume: exit 2).
int cmd_resume(const Options& o);
int resume_measure(const Options& o);  // measure --resume FILE (cli/cmd_measure.cpp)
// A check continued from its journal at `path` with `ask` (job/check/check_resume.h): what
// is missing run and reported, or a complete journal's report (cli/cmd_check.cpp).
struct CheckResumeAsk;
int continue_check(const Options& o, const std::string& path, const CheckResumeAsk& ask);
// --resume of a complete journal: says so on stderr and prints its report as
// `obscheck report` does; appends nothing (cli/cmd_report.cpp).
int report_complete_journal(const Options& o, const JournalData& d);
int cmd_report(const Options& o);
int cmd_demo(const Options& o);
int cmd_bias(const Options& o);      // measurement bias across contexts
int cmd_compare(const Options& o);   // two variants over sampled contexts
int cmd_plan(const Options& o);      // a check planned once for several hosts
int cmd_run(const Options& o);       // one host's shard of a plan
int cmd_slurm(const Options& o);     // the plan and sbatch scripts of a Slurm job array
int cmd_journals(const Options& o);  // the state directory's journals, listed or removed
int cmd_fidelity(const Options& o);  // a sampling profile against an exact reference, per rate

// The plan `o` asks for, not written (cli/cmd_plan.cpp).
struct PlanFile;
PlanFile make_plan_file(const Options& o);

// The files a report writes beside what it prints, as the options name them.
inline ReportFiles files_of(const Options& o) {
  return {o.html, o.svg_dir, o.export_json, o.export_csv};
}

// Writes a finished report to -o FILE (util/safe_write.h: a fresh file renamed over
// FILE, never through a planted name or link) or stdout.
void emit(const Options& o, const std::string& bytes);

// A check's report in the format asked (--json, --csv, --markdown, else text), emitted.
struct CheckContext;
void print_check(const Options& o, const Plan& plan, const Findings& findings,
                 const CheckContext& ctx);

// Runs a prepared check's session (new, or resumed with its journalled runs in `s`)
// to its end, prints the report and returns the exit code (cli/cmd_check.cpp).
int run_check(const Options& o, const PreparedCheck& p, Session& s, JournalWriter& journal,
              const nlohmann::json& host);

// Run as root through sudo without --run-as, by a command that runs a target: says
// once, on stderr, that the target runs as root too and how to change that.
void warn_if_target_runs_as_root(const Options& o);

}  // namespace obscheck
