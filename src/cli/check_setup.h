// cli/: from a command line to a check ready to run. The command line becomes one
// typed CheckRequest (record/request.h), once; the request is then resolved against
// this host: the counters it can count (or every reason it cannot), the observer's
// doses as plan levels, the runner's CheckSpec and the plan. A resumed check resolves
// the request its journal recorded the same way, so both start from one place.
#pragma once

#include <string>
#include <vector>

#include "cli/options.h"
#include "launch/launcher.h"
#include "plan/plan.h"
#include "record/request.h"
#include "record/journal.h"
#include "run/check.h"
#include "run/session.h"

namespace obscheck {

// The check the user asked for. Reads the options only; resolves nothing on the host
// but the simulated geometry (--backend sim: valgrind must be there before a journal
// is written). Throws Error(usage) for an observer that cannot act in this mode or
// under simulation.
CheckRequest check_request_from(const Options& o);

// How the target starts for every measuring command: resolved path, exact environment
// (padded with env_pad), ASLR, CPU, timeout, stdio, the user it runs as.
LaunchRequest launch_request_from(const Options& o);
LaunchSpec launch_spec_for(const LaunchRequest& r);

struct PreparedCheck {
  CheckRequest request;      // counters as they will be counted, `dropped` filled
  CheckSpec spec;            // what the runner needs
  PlanSpec plan;             // the levels and layouts (seed and budget from the request)
  std::vector<std::string> warnings;  // dropped counters, counting notes, a wrapper's changes
  std::vector<std::string> backend_notes;  // what the report says about the backend (run/backend.h)
};

// Resolves `r` on this host. Throws Error(event) naming every counter that cannot be
// counted (unless allow_missing drops them), Error(target) for a missing program.
PreparedCheck prepare_check(CheckRequest r);

// As prepare_check, for a plan other hosts will run (obscheck plan): a counter this
// host cannot count does not stop the counter observer's plan, whose levels need only
// the list; each such counter is named in `cannot_count`, and the hosts that run the
// plan must count it. Any other error is prepare_check's.
PreparedCheck prepare_plan(CheckRequest r, std::vector<std::string>& cannot_count);

// The journal's manifest for a check about to start (record/journal.h make_manifest).
nlohmann::json check_manifest(const PreparedCheck& p, const Plan& plan, const nlohmann::json& host);

// Runs a prepared check's session (new, or resumed with its journalled runs in `s`)
// to its end, prints the report and returns the exit code (cli/cmd_check.cpp).
int run_check(const Options& o, const PreparedCheck& p, Session& s, JournalWriter& journal, const nlohmann::json& host);

}  // namespace obscheck
