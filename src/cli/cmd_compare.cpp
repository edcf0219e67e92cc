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
  return sweep_job(o, JobKind::compare, [&](const SweepRequest& r) { return compare_variants(r, words, o.aa); });
}

}  // namespace

int cmd_compare(const Options& o) { return run_sweep_command(o, JobKind::compare, compare_job); }

}  // namespace obscheck
