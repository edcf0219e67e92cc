// job/: a check planned once for several hosts (obscheck plan), and one host's shard of
// it (obscheck run --plan FILE --shard I/N). The plan file (record/plan_file.h) fixes
// what every host shares: the request with its seed and blocks, the configurations
// and the target's digest. A shard resolves the request on its own host, refuses the
// host when the plan would run otherwise there (another target, a counter it cannot
// count, other doses), and runs as a check of its blocks, with the check's journal,
// Ctrl-C and resume guarantees. The shards' journals are merged by job/shards/shard_merge.h.
#pragma once

#include <string>

#include <nlohmann/json.hpp>

#include "job/check/check_job.h"
#include "job/check/check_setup.h"
#include "plan/plan.h"
#include "record/journal.h"
#include "record/plan_file.h"
#include "run/session.h"

namespace obscheck {

// The plan of `s` (kDefaultPlanBlocks unless --runs says otherwise), resolved on this
// host; a counter this host cannot count is a note (every host that runs the plan
// must count it), not an error.
PlanFile plan_file_for(SettledRequest s);

// Writes `f` to `path`, a new file. Throws Error(io) when it exists: a plan is not
// overwritten (shards may be running it).
void write_plan_file(const PlanFile& f, const std::string& path);

// PLAN.json -> PLAN.shard-I-of-N.jsonl, beside the plan.
std::string default_shard_journal(const std::string& plan_path, std::size_t i, std::size_t n);

// An existing journal at `path` is shard `shard` of plan `f`, to be continued; throws
// Error(io) when it is anything else.
void require_shard_journal(const std::string& path, const PlanFile& f, const Shard& shard);

// A new shard's check, its journal created at `path`. Throws Error(target) when this
// host's target is not the plan's binary, Error(host) when this host would run another
// plan (a counter it cannot count, other doses).
StartedCheck start_shard(const PlanFile& f, const Shard& shard, const std::string& path, const std::string& plan_path);

}  // namespace obscheck
