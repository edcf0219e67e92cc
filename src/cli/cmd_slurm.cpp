// obscheck slurm [slurm options] -- [check options] PROG ARGS: a check as a Slurm job
// array (job/shards/slurm_job.h writes the plan and the scripts, and submits them).
#include <fmt/core.h>

#include "cli/commands.h"
#include "job/shards/slurm_job.h"
#include "record/plan_file.h"
#include "util/error.h"

namespace obscheck {

int cmd_slurm(const Options& o) {
  std::vector<const char*> argv{"obscheck", "plan"};
  for (const std::string& a : o.check_args) argv.push_back(a.c_str());
  const Parsed check = parse_command_line(static_cast<int>(argv.size()), argv.data());
  if (check.options.command != Command::plan)
    throw Error(ErrorKind::usage, "obscheck slurm: the check after -- asks for help, not a check");
  const SlurmRequest& r = o.slurm;
  const std::string sbatch = slurm_preflight(r);
  // The plan first: a check that cannot be planned leaves no directory behind.
  const PlanFile plan = make_plan_file(check.options);
  const SlurmJob job = write_slurm_job(r, sbatch, plan, [&](const SlurmJob& j) {
    fmt::print("plan {} and its scripts written to {}: {} shards of {} blocks\n",
               plan.digest.substr(0, 12), j.dir.string(), o.slurm.shards, j.blocks);
    if (!o.slurm.submit) fmt::print("submit with:  sh {}/submit.sh\n", j.quoted_dir);
  });
  if (!job.merge_id) return 0;
  fmt::print("submitted: shards job {} (array {}), merge job {}\n", *job.array_id, job.array,
             *job.merge_id);
  fmt::print("report: {}/report.txt (and report.json) once job {} has run\n", job.dir.string(),
             *job.merge_id);
  return 0;
}

}  // namespace obscheck
