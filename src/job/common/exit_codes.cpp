#include "job/common/exit_codes.h"

#include "analysis/summary.h"
#include "job/common/request_bounds.h"  // default_fail_on
#include "run/signals.h"
#include "util/error.h"

namespace obscheck {

int findings_exit_code(const FailOn& fail_on, const std::vector<std::string>& found,
                       FailOnOf command) {
  const FailOn rule = fail_on.empty() ? default_fail_on(command) : fail_on;
  for (const std::string& word : found)
    if (const std::optional<FindingKind> o = outcome_named(word); o && rule.has(*o))
      return static_cast<int>(ExitCode::findings);
  return static_cast<int>(ExitCode::ok);
}

int interrupted_exit_code() {
  const int sig = InterruptGuard::signal_number();
  return sig > 0 ? 128 + sig : static_cast<int>(ExitCode::interrupted);
}

int check_exit_code(const FailOn& fail_on, const Plan& plan, const Findings& f) {
  return findings_exit_code(fail_on, summarize_check(plan, f).outcomes, FailOnOf::check);
}

}  // namespace obscheck
