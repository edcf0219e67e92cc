#include "job/job_backend.h"

namespace obscheck {

std::shared_ptr<const Backend> job_backend(std::string_view name, const std::string& sim_cache) {
  return choose_backend(name, sim_cache);
}

std::shared_ptr<const Backend> job_backend(const CheckRequest& recorded) { return choose_backend(recorded); }

}  // namespace obscheck
