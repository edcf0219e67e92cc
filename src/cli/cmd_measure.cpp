// obscheck measure: one configuration, repeated (perf stat -r's job), with the
// median's interval. With --journal FILE every run is recorded as it ends, in the
// check's journal format: a plan of one configuration ("measure", no A/A copy), one
// run per block, the typed request in the manifest. Ctrl-C leaves the journal valid,
// --resume FILE runs what is missing, and obscheck report FILE prints the same report
// from the file alone: the live report and the journal's go through one function.
#include <fmt/core.h>

#include <optional>

#include "cli/commands.h"
#include "cli/request_from.h"
#include "job/journal/resume_options.h"
#include "job/journal/journal_job.h"
#include "job/commands/measure_job.h"
#include "record/journal.h"
#include "report/brief_report.h"
#include "report/measure_html.h"
#include "report/measure_report.h"
#include "util/error.h"

namespace obscheck {
namespace {

// The report in the format asked, then the exit code: 130 when this invocation was
// interrupted (`ended` false), Error(target_failed) for a run that stopped it.
int print_measure(const Options& o, const MeasureOutcome& m, bool ended) {
  const MeasureFindings& f = m.findings;
  if (f.runs > 0 || o.json)
    emit(o, o.json                       ? measure_json(f)
            : o.csv                      ? measure_csv(f)
            : o.markdown                 ? measure_markdown(f)
            : !o.field_separator.empty() ? measure_separated(f, o.field_separator)
            : o.verbose                  ? measure_text(f, o.color)
                                         : measure_brief(f));
  // The files named beside what is printed, as bias, compare and the check write them.
  if (!o.html.empty()) write_and_say(o.html, measure_html(f));
  if (!o.export_json.empty()) write_and_say(o.export_json, measure_json(f));
  if (!o.export_csv.empty()) write_and_say(o.export_csv, measure_csv(f));
  if (!ended && m.failure.empty()) return interrupted_exit_code();
  if (!m.failure.empty())
    throw Error(ErrorKind::target_failed, m.failure,
                "use -i/--ignore-failure to record failing runs and go on, or --show-output to see "
                "what it printed");
  return 0;
}

// Shows "run k/n" on stderr while the runs go, when the user sees a terminal.
Progress progress_of(const Options& o) {
  if (!o.progress || o.json) return {};
  return [](int done, int total) { fmt::print(stderr, "\r  run {}/{}", done, total); };
}

int run_and_report(const Options& o, MeasureSetup& m, std::vector<RunRecord> recorded,
                   JournalWriter* journal) {
  const Progress progress = progress_of(o);
  const MeasureOutcome out = run_measure_session(m, std::move(recorded), journal, progress);
  if (progress) fmt::print(stderr, "\r\x1b[K");
  return print_measure(o, out, out.ended);
}

}  // namespace

int resume_measure(const Options& o) {
  if (const nlohmann::json m = manifest_to_resume(o.resume, JobKind::measure); !m.is_null())
    refuse_changed_options(o.given, asked_check_request(o), m);
  ResumedMeasure r = open_measure_journal(o.resume);
  if (r.complete) return report_complete_journal(o, r.journal.data);
  MeasureSetup& m = r.setup;
  if (r.journal.data.torn_tail) fmt::print(stderr, "obscheck: {}\n", kTornTailNotice);
  fmt::print(stderr, "obscheck: resuming {} from run {} of {}\n", o.resume, m.spec.first_run + 1,
             m.spec.warmup + m.spec.runs);
  return run_and_report(o, m, r.journal.data.runs, &r.journal.writer);
}

int cmd_measure(const Options& o) {
  MeasureSetup m = measure_setup(measure_request(check_request_from(o), o.runs_given));
  std::optional<JournalWriter> journal = create_measure_journal(m, o.journal);
  return run_and_report(o, m, {}, journal ? &*journal : nullptr);
}

int report_measure(const Options& o, const JournalData& d) {
  // An incomplete journal is not this invocation's interruption: exit as a report does.
  return print_measure(o, journal_measure_outcome(d), true);
}

}  // namespace obscheck
