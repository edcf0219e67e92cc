// job/: a check's request made ready to run. The command line becomes one typed
// CheckRequest (record/request.h) in cli/, once; here the request is resolved against
// this host: the backend it counts with, the counters it can count (or every reason it
// cannot), the observer's doses as plan levels, the runner's CheckSpec and the plan. A
// resumed check resolves the request its journal recorded the same way, so both start
// from one place.
#pragma once

#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "events/event.h"
#include "launch/launcher.h"
#include "observe/observer_kinds.h"
#include "plan/plan.h"
#include "record/request.h"
#include "record/journal.h"
#include "run/backend.h"
#include "run/check.h"
#include "run/session.h"
#include "util/output_paths.h"

namespace obscheck {

// A request with the backend its job counts with, chosen once (job/common/job_backend.h) and
// carried to everything the job prepares.
struct SettledRequest {
  CheckRequest request;
  std::shared_ptr<const Backend> backend;
};

// Chooses the backend the request asks for by name ("native" | "sim", with --sim-cache
// for the simulated geometry) and records it in the request: the kind, the geometry in
// use and where it came from. Resolves nothing else on the host but the simulator
// (valgrind must be there before a journal is written). Throws Error(usage) for an
// observer that cannot act in the request's mode or under the simulator, or for an
// unknown backend.
SettledRequest settle_backend(CheckRequest r);

// A request a journal or a plan file recorded, with its backend as recorded (no host
// check: a resumed job calls require_here() itself).
SettledRequest settled_as_recorded(CheckRequest r);

// How the target starts for every measuring command: resolved path, exact environment
// (padded with env_pad), ASLR, CPU, timeout, stdio, the user it runs as.
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
PreparedCheck prepare_check(SettledRequest s);

// As prepare_check, for a plan other hosts will run (obscheck plan): a counter this
// host cannot count does not stop the counter observer's plan, whose levels need only
// the list; each such counter is named in `cannot_count`, and the hosts that run the
// plan must count it. Any other error is prepare_check's.
PreparedCheck prepare_plan(SettledRequest s, std::vector<std::string>& cannot_count);

// The journal's manifest for a check about to start (record/journal.h make_manifest),
// with the plan file's digest when a shard of one runs ("" otherwise).
nlohmann::json check_manifest(const PreparedCheck& p, const Plan& plan, const nlohmann::json& host,
                              const std::string& plan_digest);

// The files a command names, checked before anything runs: util/output_paths.h
// check_output_paths, then its profiler command (`given`'s template, or for a --resume
// of `resume` the journal's; "" for none), which writes files of its own by the paths
// in its words: Error(usage) (util/output_paths.h check_command_words) when a word
// names one of the outputs or inputs, at any level it runs with. A journal that
// cannot be read is left to the resume, which says why.
void check_files_before_running(const ObserverRequest& given, const std::string& resume,
                                const std::vector<NamedPath>& outputs, const std::vector<NamedPath>& inputs);

}  // namespace obscheck
