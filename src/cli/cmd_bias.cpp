// obscheck bias: one program measured in many measurement contexts (Mytkowicz et al.,
// "Observer Effect and Measurement Bias in Performance Analysis" §4.2): how far does its
// metric swing when only the context changes, and is the swing larger than run-to-run
// noise? Its job: job/sweep/sweep_setup.h sweep_job_for; its report:
// cli/sweep_session.cpp.
#include "cli/commands.h"
#include "cli/sweep_session.h"

namespace obscheck {

int cmd_bias(const Options& o) { return run_sweep_command(o, JobKind::bias); }

}  // namespace obscheck
