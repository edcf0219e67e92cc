// obscheck plan: a check planned once, for several hosts; obscheck run --plan FILE
// --shard I/N: one host's share of it (job/shards/plan_job.h).
#include <fmt/core.h>
#include <fmt/ranges.h>

#include <filesystem>

#include "cli/request_from.h"
#include "job/check/check_resume.h"
#include "job/shards/plan_job.h"
#include "cli/commands.h"
#include "record/plan_file.h"
#include "util/error.h"

namespace obscheck {

PlanFile make_plan_file(const Options& o) { return plan_file_for(check_request_from(o)); }

int cmd_plan(const Options& o) {
  const std::string path = o.output.empty() ? "obscheck-plan.json" : o.output;
  const PlanFile f = make_plan_file(o);
  write_plan_file(f, path);  // refuses an existing file
  for (const std::string& n : f.notes) fmt::print(stderr, "obscheck: note: {}\n", n);
  const Plan plan = plan_from_json(f.plan);
  fmt::print("plan {} written to {}: {} configurations, {} blocks of {}\n", f.digest.substr(0, 12),
             path, plan.block_size(), *plan.spec.fixed_blocks, fmt::join(f.target.argv, " "));
  fmt::print("run shard I of N on each host:  obscheck run --plan {} --shard I/N\n", path);
  fmt::print("merge the shards' journals:     obscheck report {}.shard-*.jsonl\n",
             std::filesystem::path(path).replace_extension().string());
  return 0;
}

int cmd_run(const Options& o) {
  const PlanFile f = read_plan_file(o.plan_file);
  const Shard shard{o.shard_index, o.shard_count};
  const std::string path = o.journal.empty()
                               ? default_shard_journal(o.plan_file, shard.index, shard.count)
                               : o.journal;
  if (std::filesystem::exists(path)) {
    // A shard stopped part-way (Ctrl-C, a requeued array task) continues its journal;
    // the plan, not this command line, says how the shard runs.
    require_shard_journal(path, f, shard);
    fmt::print(stderr, "obscheck: resuming shard {}/{} from {}\n", shard.index, shard.count, path);
    return continue_check(o, path, {});
  }
  StartedCheck start = start_shard(f, shard, path, o.plan_file);
  fmt::print(stderr, "obscheck: shard {}/{} of plan {}: {} blocks into {}\n", shard.index,
             shard.count, f.digest.substr(0, 12), plan_looks(start.session.plan).back(), path);
  return run_check(o, start.prepared, start.session, start.journal, start.host);
}

}  // namespace obscheck
