#include "stats/sequential.h"

#include <algorithm>
#include <stdexcept>
#include <string>

#include "stats/validate.h"

namespace obscheck::stats {

LookPlan plan_looks(std::size_t max_n, double alpha, std::size_t first) {
  require_alpha(alpha, "plan_looks");
  if (first == 0 || max_n == 0) {
    throw std::invalid_argument("plan_looks: first look and max_n must be at least 1, got first " +
                                std::to_string(first) + ", max_n " + std::to_string(max_n));
  }
  LookPlan plan{{}, alpha, alpha};
  for (std::size_t n = first; n <= max_n; n *= 2) {
    plan.looks.push_back(n);
    if (n > max_n / 2) break;  // the next doubling would pass max_n (or overflow)
  }
  if (plan.looks.empty() || plan.looks.back() != max_n) plan.looks.push_back(max_n);
  plan.alpha_per_look = alpha / static_cast<double>(plan.looks.size());
  return plan;
}

std::optional<std::size_t> look_index(const LookPlan& plan, std::size_t n) {
  const auto it = std::find(plan.looks.begin(), plan.looks.end(), n);
  if (it == plan.looks.end()) return std::nullopt;
  return static_cast<std::size_t>(it - plan.looks.begin());
}

}  // namespace obscheck::stats
