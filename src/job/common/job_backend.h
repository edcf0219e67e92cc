// job/: the one place a job chooses its backend (run/backend.h choose_backend), once:
// a new job from its command line's --backend and --sim-cache, or a recorded job (a
// journal's, a plan file's) as its request records it. The job then carries the chosen
// Backend in what it prepares (SettledRequest, CheckSpec, MeasureSetup, SweepSetup,
// the report's data) and asks it, never choosing again.
#pragma once

#include <memory>
#include <string>
#include <string_view>

#include "record/request.h"
#include "run/backend.h"

namespace obscheck {

// A new job's backend, as the command line's --backend asks, and --sim-cache over this
// host's geometry. Throws Error(usage) for a malformed geometry. Nothing is checked on
// the host: the job calls require_here() before it writes.
std::shared_ptr<const Backend> job_backend(BackendKind kind, const std::string& sim_cache);

// A recorded job's backend, as its request records it (no host check).
std::shared_ptr<const Backend> job_backend(const CheckRequest& recorded);

}  // namespace obscheck
