// obscheck bias: one program measured in many measurement contexts (Mytkowicz et al., "Observer Effect and Measurement Bias in Performance Analysis" §4.2):
// how far does its metric swing when only the context changes, and is the swing
// larger than run-to-run noise?
#include "cli/commands.h"
#include "cli/sweep_session.h"
#include "cli/html_out.h"
#include "job/sweep_verdicts.h"
#include "report/bias_report.h"

namespace obscheck {
namespace {

SweepJob bias_job(const Options& o) {
  return sweep_job(o, JobKind::bias,
                   [&o](const SweepRequest& r) { return std::vector<VariantSpec>{make_variant(r, o.target, "program")}; });
}

}  // namespace

int finish_bias(const Options& o, SweepReport report, const SweepBrief& brief, bool interrupted, bool live) {
  // The journal's choice, or report FILE --allow-multiplex re-judging it.
  report.allow_multiplex = report.allow_multiplex || o.request.allow_multiplex;
  const std::vector<std::string> found = judge_bias(report, brief, interrupted);
  emit(o, o.json ? sweep_json(report) : o.csv ? sweep_csv(report) : bias_text(report, o.color));
  write_sweep_files(o, report, brief.host);
  if (live && interrupted) return interrupted_exit_code();
  return findings_exit_code(brief.fail_on, found, kBiasFailOn);  // the journal's --fail-on
}

int cmd_bias(const Options& o) { return run_sweep_command(o, JobKind::bias, bias_job, finish_bias); }

}  // namespace obscheck
