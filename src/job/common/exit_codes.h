// job/: which exit code a finished or stopped command's results call for
// (docs/exit-codes.md): the outcomes it found against --fail-on, or the signal that
// stopped it. cli/ returns the code; deciding it needs no option but --fail-on's set.
#pragma once

#include <string>
#include <vector>

#include "record/fail_on.h"

namespace obscheck {

struct Findings;
struct Plan;

// The exit code of a sweep stopped by a signal: 128 + its number, as a shell reports
// a process killed by it (130 SIGINT, 143 SIGTERM, 129 SIGHUP); the results so far
// are kept and printed first.
int interrupted_exit_code();

// The exit code of a command that ran to the end: 1 (ExitCode::findings) when one of
// `found` (the outcomes this run produced: verdict keys, "worse", "bias", ...) is in
// `fail_on` (--fail-on's, or a sweep journal's), or in `command`'s default when it is
// empty (job/common/request_bounds.h default_fail_on); else 0. "none" in --fail-on never fails.
int findings_exit_code(const FailOn& fail_on, const std::vector<std::string>& found,
                       FailOnOf command);

// The exit code of a check (or its report) that ran to the end: `fail_on` over the
// verdicts it reached, per metric and level.
int check_exit_code(const FailOn& fail_on, const Plan& plan, const Findings& f);

}  // namespace obscheck
