// obscheck bias: one program measured in many measurement contexts (Mytkowicz et al., "Observer Effect and Measurement Bias in Performance Analysis" §4.2):
// how far does its metric swing when only the context changes, and is the swing
// larger than run-to-run noise? Its report: cli/sweep_session.cpp.
#include "cli/commands.h"
#include "cli/sweep_session.h"

namespace obscheck {
namespace {

SweepJob bias_job(const Options& o) {
  return sweep_job(o, JobKind::bias,
                   [&o](const SweepRequest& r) { return std::vector<VariantSpec>{make_variant(r, o.target, "program")}; });
}

}  // namespace

int cmd_bias(const Options& o) { return run_sweep_command(o, JobKind::bias, bias_job); }

}  // namespace obscheck
