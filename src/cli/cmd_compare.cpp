// obscheck compare: two variants measured in the same sample of measurement
// contexts, paired per context (Mytkowicz et al., "Observer Effect and Measurement Bias in Performance Analysis" §5.2: variant generation turns the bias of
// any one context into random error), judged with the four outcomes of Rechistov, "Pitfalls of measuring software performance".
#include "cli/commands.h"
#include "cli/sweep_session.h"
#include "cli/html_out.h"
#include "job/sweep_verdicts.h"
#include "report/bias_report.h"

namespace obscheck {
namespace {

SweepJob compare_job(const Options& o) {
  const auto words = split_variants(o.target);  // BASELINE ARGS ::: CONTENDER ARGS
  return sweep_job(o, JobKind::compare, [&](const SweepRequest& r) { return compare_variants(r, words, o.aa); });
}

}  // namespace

int finish_compare(const Options& o, SweepReport report, const SweepBrief& brief, bool interrupted, bool live) {
  // The journal's choice, or report FILE --allow-multiplex re-judging it.
  report.allow_multiplex = report.allow_multiplex || o.request.allow_multiplex;
  const std::vector<std::string> found = judge_compare(report, brief, o.allow_output_diff);
  emit(o, o.json ? sweep_json(report) : o.csv ? sweep_csv(report) : compare_text(report, o.color));
  write_sweep_files(o, report, brief.host);
  if (live && interrupted) return interrupted_exit_code();
  return findings_exit_code(brief.fail_on, found, kCompareFailOn);  // the journal's --fail-on
}

int cmd_compare(const Options& o) { return run_sweep_command(o, JobKind::compare, compare_job, finish_compare); }

}  // namespace obscheck
