// job/: a check as a Slurm job array. Into one new directory, private to the user:
// the plan (plan.json), an sbatch script whose array tasks each run one shard of it
// (shard.sbatch: obscheck run --shard), a merge script that reports the shards with the
// host as a factor once every shard succeeded (merge.sbatch), and submit.sh, which
// submits both; with --submit, sbatch is called now. Nothing is left half written: a
// failure before sbatch accepted the array removes what was written.
#pragma once

#include <cstddef>
#include <filesystem>
#include <functional>
#include <optional>
#include <string>

#include "record/plan_file.h"

namespace obscheck {

// obscheck slurm's own options, as given.
struct SlurmRequest {
  std::string partition;      // --partition ("": sbatch's default)
  std::string time;           // --time, sbatch's format ("": the partition's limit)
  int shards = 0;             // --shards (or --nodes): array tasks, one shard each
  int array_parallelism = 0;  // --array-parallelism K (0: no limit)
  bool exclusive = true;      // a node to each task (--shared turns it off)
  bool submit = false;        // --submit: call sbatch
  std::string dir;            // --dir ("": a new obscheck-slurm-TIME here)
};

// What the request says before any plan is made: the #SBATCH values are plain words,
// obscheck's own path is printable, and with --submit sbatch is on the PATH. Returns the
// sbatch to call. Throws Error(usage) or Error(host); nothing is written.
std::string slurm_preflight(const SlurmRequest& r);

// The job as written (and submitted).
struct SlurmJob {
  std::filesystem::path dir;              // the job's directory, absolute
  std::string quoted_dir;                 // dir quoted for sh(1), as the scripts name it
  std::string array;                      // the array range, "0-N-1[%K]"
  std::size_t blocks = 0;                 // the plan's blocks, shared by the shards
  std::optional<std::string> array_id;    // --submit: the array's job id
  std::optional<std::string> merge_id;    // --submit: the merge's job id
};

// Writes the plan and the scripts into the request's directory (refused when it exists
// and is not empty, or is not the user's alone), calls `written` once they are all
// there, then with --submit submits the array and the merge. Throws Error(usage) when
// there are more shards than blocks, Error(io) or Error(host) (sbatch's own words).
using SlurmWritten = std::function<void(const SlurmJob&)>;
SlurmJob write_slurm_job(const SlurmRequest& r, const std::string& sbatch, const PlanFile& plan,
                         const SlurmWritten& written);

}  // namespace obscheck
