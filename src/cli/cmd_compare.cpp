// obscheck compare: two variants measured in the same sample of measurement
// contexts, paired per context (Mytkowicz et al., "Observer Effect and Measurement Bias in Performance Analysis" §5.2: variant generation turns the bias of
// any one context into random error), judged with the four outcomes of Rechistov, "Pitfalls of measuring software performance".
// Its report: cli/sweep_session.cpp.
#include "cli/commands.h"
#include "cli/sweep_session.h"
#include "job/sweep_verdicts.h"

namespace obscheck {
namespace {

SweepJob compare_job(const Options& o) {
  const auto words = split_variants(o.target);  // BASELINE ARGS ::: CONTENDER ARGS
  SweepJob job = sweep_job(o, JobKind::compare, [&](const SweepRequest& r) { return compare_variants(r, words, o.aa); });
  // Outputs that differ in every context after the first round make the comparison
  // incomparable whatever the other rounds show: it says so then, not after its budget.
  job.spec.stop_when_outputs_differ = !o.allow_output_diff;
  return job;
}

}  // namespace

int cmd_compare(const Options& o) { return run_sweep_command(o, JobKind::compare, compare_job); }

}  // namespace obscheck
