// obscheck compare: two variants measured in the same sample of measurement contexts,
// paired per context (Mytkowicz et al., "Observer Effect and Measurement Bias in
// Performance Analysis" §5.2: variant generation turns the bias of any one context into
// random error), judged with the four outcomes of Rechistov, "Pitfalls of measuring
// software performance".
// Its job: job/sweep/sweep_setup.h sweep_job_for; its report: cli/sweep_session.cpp.
#include "cli/commands.h"
#include "cli/sweep_session.h"

namespace obscheck {

int cmd_compare(const Options& o) { return run_sweep_command(o, JobKind::compare); }

}  // namespace obscheck
