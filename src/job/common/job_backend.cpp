#include "job/common/job_backend.h"

namespace obscheck {

std::shared_ptr<const Backend> job_backend(BackendKind kind, const std::string& sim_cache) {
  return choose_backend(kind, sim_cache);
}

std::shared_ptr<const Backend> job_backend(const CheckRequest& recorded) { return choose_backend(recorded); }

}  // namespace obscheck
