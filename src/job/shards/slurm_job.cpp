// job/: a check as a Slurm job array (job/shards/slurm_job.h). Writes, into one directory,
// the plan (obscheck plan), an sbatch script whose array tasks each run one shard of it
// on a node of their own (obscheck run --shard), a merge script that reports the shards
// with the host as a factor once every shard has succeeded (afterok), and submit.sh,
// which submits both. The scripts are plain so a user can read, edit and submit them by
// hand; --submit submits them now.
#include "job/shards/slurm_job.h"

#include <dirent.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <fmt/core.h>
#include <fmt/ranges.h>

#include <cerrno>
#include <cstring>
#include <chrono>
#include <ctime>
#include <filesystem>
#include <string>
#include <vector>

#include "launch/launcher.h"
#include "record/plan_json.h"
#include "run/link_order.h"
#include "run/measure.h"
#include "util/error.h"
#include "util/safe_write.h"

namespace obscheck {
namespace {

namespace fs = std::filesystem;

// A word for a POSIX shell, quoted only when it needs to be.
std::string sh_quote(const std::string& w) {
  if (!w.empty() && w.find_first_not_of("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789@%+=:,./-_") ==
                        std::string::npos)
    return w;
  std::string out = "'";
  for (char c : w) out += c == '\'' ? std::string("'\\''") : std::string(1, c);
  return out + "'";
}

// A word for a #SBATCH line. sbatch splits those lines itself, without a shell: it
// takes '...' and "..." as quotes and a backslash as an escape everywhere (inside either
// quote too), so a word sh_quote would write can lose its backslashes there. In double
// quotes with \\ and \" escaped, every printable character comes through as itself.
std::string sbatch_quote(const std::string& w) {
  if (!w.empty() && w.find_first_not_of("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789@%+=:,./-_") ==
                        std::string::npos)
    return w;
  std::string out = "\"";
  for (char c : w) {
    if (c == '\\' || c == '"') out += '\\';
    out += c;
  }
  return out + "\"";
}

std::string self_path() {
  std::error_code ec;
  const fs::path p = fs::read_symlink("/proc/self/exe", ec);
  return ec ? std::string("obscheck") : p.string();
}

std::string default_dir() {
  const std::time_t t = std::chrono::system_clock::to_time_t(std::chrono::system_clock::now());
  std::tm tm{};
  ::gmtime_r(&t, &tm);
  char stamp[32];
  std::strftime(stamp, sizeof stamp, "%Y%m%d-%H%M%S", &tm);
  return fmt::format("obscheck-slurm-{}", stamp);
}

// Names tried after the default one is taken (another job this second, or a
// directory planted by another user): -2, -3, ...
constexpr int kDefaultDirAttempts = 100;

// The job's directory, new: the default name (or the next free one) created here, so
// no other user can own it or have put anything in it.
fs::path create_default_dir() {
  const fs::path base = fs::absolute(default_dir()).lexically_normal();
  for (int k = 1; k <= kDefaultDirAttempts; ++k) {
    const fs::path dir = k == 1 ? base : fs::path(fmt::format("{}-{}", base.string(), k));
    if (::mkdir(dir.c_str(), kOutputDirMode) == 0) return dir;
    if (errno != EEXIST)
      throw Error(ErrorKind::io, fmt::format("cannot create {}: {}", dir.string(), std::strerror(errno)),
                  "give a directory with --dir DIR");
  }
  throw Error(ErrorKind::io, fmt::format("{} and its next {} names exist", base.string(), kDefaultDirAttempts - 1),
              "give a new directory with --dir DIR");
}

bool dir_is_empty(int dir_fd) {
  const int fd = ::openat(dir_fd, ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  DIR* d = fd < 0 ? nullptr : ::fdopendir(fd);
  if (d == nullptr) {
    if (fd >= 0) ::close(fd);
    return false;
  }
  bool empty = true;
  while (const dirent* e = ::readdir(d))
    if (std::strcmp(e->d_name, ".") != 0 && std::strcmp(e->d_name, "..") != 0) empty = false;
  ::closedir(d);
  return empty;
}

// A value written into a #SBATCH line: sbatch reads those lines itself (no shell), so
// quoting cannot make a newline or a quote safe there: only the characters of
// partition names and times pass (letters, digits, and . _ - , : +).
void require_sbatch_word(const char* option, const std::string& value) {
  const bool ok = !value.empty() && value.find_first_not_of("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz"
                                                            "0123456789._-,:+") == std::string::npos;
  if (!ok)
    throw Error(ErrorKind::usage,
                fmt::format("--{} '{}': only letters, digits and . _ - , : + go into a #SBATCH line", option, value),
                "e.g. --partition batch or --time 30:00 (nothing was written)");
}

// Paths go into the scripts quoted for sh(1) and into #SBATCH lines: a control
// character (a newline above all) would end the line there.
void require_printable_path(const std::string& what, const std::string& path) {
  for (unsigned char c : path)
    if (c < 0x20 || c == 0x7f)
      throw Error(ErrorKind::usage, fmt::format("{} holds a control character (a newline?): {}", what, path),
                  "give a directory whose name is printable (nothing was written)");
}

// The job's directory is Slurm's working directory, and slurmstepd names the output
// files from it as patterns: % starts a replacement and a backslash turns them all off
// (and is dropped), so no quoting keeps either; such a directory is refused.
void require_slurm_dir(const std::string& path) {
  if (path.find_first_of("%\\") != std::string::npos)
    throw Error(ErrorKind::usage,
                fmt::format("the job's directory holds % or \\, which Slurm reads as file name patterns: {}", path),
                "give a directory whose path has neither with --dir DIR (nothing was written)");
}

std::string sbatch_path() {
  try {
    return resolve_target("sbatch");
  } catch (const Error&) {
    throw Error(ErrorKind::host, "sbatch is not on this host's PATH: --submit cannot submit the job",
                "run obscheck slurm without --submit on a host with Slurm's client, or load its module first "
                "(nothing was written)");
  }
}

// Runs sbatch --parsable with `args`, as the link commands run (launch/, output
// captured), and returns the job id it printed. Error(host) with sbatch's last lines
// when it fails.
std::string submit_job(const std::string& sbatch, const std::vector<std::string>& args) {
  LaunchSpec launch;
  launch.path = sbatch;
  launch.argv = {sbatch, "--parsable"};
  launch.argv.insert(launch.argv.end(), args.begin(), args.end());
  launch.env = EnvBlock::from_current();
  launch.aslr = true;  // sbatch is not being measured
  launch.out = Stdio::capture;
  CorkedChild child = CorkedChild::spawn(launch);
  child.release();
  const ExitInfo exit = child.wait();
  if (!exit.ok())
    throw Error(ErrorKind::host,
                fmt::format("{} {}: {}", fmt::join(launch.argv, " "), describe_exit(exit, 0), tail_lines(exit.output, 4)),
                "the scripts are written: fix what sbatch says and run submit.sh");
  // --parsable prints "JOBID" or "JOBID;CLUSTER" on its last line (warnings come first).
  std::string id = tail_lines(exit.output, 1);
  id = id.substr(0, id.find(';'));
  if (id.empty() || id.find_first_not_of("0123456789_") != std::string::npos)
    throw Error(ErrorKind::host, "sbatch --parsable printed no job id: " + tail_lines(exit.output, 4));
  return id;
}

std::string sbatch_header(const SlurmRequest& o, const std::string& name) {
  std::string h = fmt::format("#SBATCH --job-name={}\n", name);
  if (!o.partition.empty()) h += fmt::format("#SBATCH --partition={}\n", o.partition);
  if (!o.time.empty()) h += fmt::format("#SBATCH --time={}\n", o.time);
  return h;
}

// The scripts are executable by all (sbatch runs them as the submitting user).
constexpr mode_t kScriptMode = 0755;

// Set once sbatch accepted the array: from then on the directory is the job's.
bool submitted_any = false;

SlurmJob write_and_submit(const SlurmRequest& o, const PlanFile& plan, SlurmJob job, int dir_fd, const std::string& sbatch,
                          const SlurmWritten& written);

}  // namespace

std::string slurm_preflight(const SlurmRequest& o) {
  if (!o.partition.empty()) require_sbatch_word("partition", o.partition);
  if (!o.time.empty()) require_sbatch_word("time", o.time);
  require_printable_path("obscheck's own path", self_path());
  return o.submit ? sbatch_path() : "sbatch";
}

SlurmJob write_slurm_job(const SlurmRequest& o, const std::string& sbatch, const PlanFile& plan,
                         const SlurmWritten& written) {
  SlurmJob job;
  // The plan file's plan, decoded by the plan's own decoder (Error(io) when malformed).
  const std::optional<std::size_t> fixed = plan_from_json(plan.plan).spec.fixed_blocks;
  if (!fixed) throw Error(ErrorKind::io, "the plan file's plan has no fixed number of blocks",
                          "write the plan again with obscheck plan");
  job.blocks = *fixed;
  if (static_cast<std::size_t>(o.shards) > job.blocks)
    throw Error(ErrorKind::usage,
                fmt::format("{} shards of a plan of {} blocks would leave some without a block", o.shards, job.blocks),
                "fewer shards, or more blocks with --runs after --");
  std::error_code ec;
  bool made_dir = o.dir.empty();
  if (made_dir) {
    require_slurm_dir(fs::current_path().string());
    job.dir = create_default_dir();
  } else {
    job.dir = fs::absolute(o.dir).lexically_normal();
    require_printable_path("--dir", job.dir.string());
    require_slurm_dir(job.dir.string());
    made_dir = !fs::exists(fs::symlink_status(job.dir, ec));
  }
  // The one rule for a directory root writes scripts into (util/safe_write.h): ours,
  // not a link, not writable by group or others; and empty, so nothing in it predates us.
  const UniqueFd dir_fd = open_output_dir(job.dir.string(), DirAccess::private_to_us);
  if (!dir_is_empty(dir_fd.get()))
    throw Error(ErrorKind::io, fmt::format("{} exists and is not empty", job.dir.string()),
                "give a new directory with --dir DIR: a job's plan, journals and report live there alone");
  try {
    return write_and_submit(o, plan, job, dir_fd.get(), sbatch, written);
  } catch (...) {
    // Nothing half written: the scripts without their plan, or a plan no shard runs.
    // What sbatch accepted before a later failure stays: its scripts are kept with it.
    if (!submitted_any) {
      for (const char* f : {"plan.json", "shard.sbatch", "merge.sbatch", "submit.sh"}) ::unlinkat(dir_fd.get(), f, 0);
      if (made_dir) ::rmdir(job.dir.c_str());
    }
    throw;
  }
}

namespace {

// The target's words for a comment line of a script: each quoted for sh(1), and any
// control character shown as '?', since a newline would end the comment and make the
// rest of the word a command.
std::string comment_text(const std::vector<std::string>& argv) {
  std::string out;
  for (const std::string& w : argv) out += (out.empty() ? "" : " ") + sh_quote(w);
  for (char& c : out)
    if (static_cast<unsigned char>(c) < 0x20 || c == 0x7f) c = '?';
  return out;
}

// The job array's script: one shard per task, each into its own journal.
// `d` is the directory quoted for sh, `sbatch_dir` quoted for a #SBATCH line; the
// output files are named relative to --chdir, so no path meets sbatch's % patterns.
std::string shard_script(const SlurmRequest& o, const PlanFile& plan, const std::string& array, const std::string& d,
                         const std::string& sbatch_dir, const std::string& self) {
  return fmt::format(
      "#!/bin/bash\n"
      "# One shard of obscheck plan {digest} ({target}) per array task: task I runs the\n"
      "# plan's blocks of shard I of {n} on its node, into its own journal. A requeued or\n"
      "# resubmitted task continues its journal. --fail-on none: a shard's own findings do\n"
      "# not fail the task (the merged report judges); any other error does.\n"
      "{header}"
      "#SBATCH --array={array}\n"
      "#SBATCH --nodes=1\n"
      "#SBATCH --ntasks=1\n"
      "{exclusive}"
      "#SBATCH --chdir={sbatch_dir}\n"
      "#SBATCH --output=shard-%a.out\n"
      "set -eu\n"
      "exec {self} run --plan {dir}/plan.json --shard \"${{SLURM_ARRAY_TASK_ID}}/{n}\" \\\n"
      "    --journal {dir}/\"shard-${{SLURM_ARRAY_TASK_ID}}.jsonl\" --fail-on none -o {dir}/\"shard-${{SLURM_ARRAY_TASK_ID}}.txt\"\n",
      fmt::arg("digest", plan.digest.substr(0, 12)), fmt::arg("target", comment_text(plan.target.argv)),
      fmt::arg("n", o.shards), fmt::arg("header", sbatch_header(o, "obscheck-shards")), fmt::arg("array", array),
      fmt::arg("exclusive", o.exclusive ? "#SBATCH --exclusive\n" : ""), fmt::arg("dir", d),
      fmt::arg("sbatch_dir", sbatch_dir), fmt::arg("self", self));
}

// The merge job's script: the report of every shard's journal, text and JSON.
std::string merge_script(const SlurmRequest& o, const PlanFile& plan, const std::string& d, const std::string& sbatch_dir,
                         const std::string& self) {
  return fmt::format(
      "#!/bin/bash\n"
      "# The shards of obscheck plan {digest}, merged with the host as a factor: each host's\n"
      "# verdicts, the pooled effect across hosts, and whether the hosts differ.\n"
      "{header}"
      "#SBATCH --ntasks=1\n"
      "#SBATCH --chdir={sbatch_dir}\n"
      "#SBATCH --output=merge.out\n"
      "set -eu\n"
      "{self} report {dir}/shard-*.jsonl --fail-on none -o {dir}/report.txt\n"
      "{self} report {dir}/shard-*.jsonl --fail-on none --json -o {dir}/report.json\n",
      fmt::arg("digest", plan.digest.substr(0, 12)), fmt::arg("header", sbatch_header(o, "obscheck-merge")),
      fmt::arg("dir", d), fmt::arg("sbatch_dir", sbatch_dir), fmt::arg("self", self));
}

// submit.sh: the array, then the merge once every shard succeeded.
std::string submit_script(const std::string& d) {
  return fmt::format(
      "#!/bin/sh\n"
      "# Submits the shards as one job array, then the merge once every shard succeeded.\n"
      "set -eu\n"
      "cd {dir}\n"
      "array=$(sbatch --parsable shard.sbatch)\n"
      "array=${{array%%;*}}\n"
      "merge=$(sbatch --parsable --dependency=afterok:\"$array\" merge.sbatch)\n"
      "merge=${{merge%%;*}}\n"
      "echo \"shards: job $array; merge: job $merge; report: \"{dir}/report.txt\n",
      fmt::arg("dir", d));
}

SlurmJob write_and_submit(const SlurmRequest& o, const PlanFile& plan, SlurmJob job, int dir_fd, const std::string& sbatch,
                          const SlurmWritten& written) {
  const fs::path& dir = job.dir;
  const std::string self = sh_quote(self_path()), d = sh_quote(dir.string()), sd = sbatch_quote(dir.string());
  job.array = fmt::format("0-{}{}", o.shards - 1, o.array_parallelism > 0 ? fmt::format("%{}", o.array_parallelism) : "");
  job.quoted_dir = d;
  // Each file new in the directory opened above (never through a name or link found there).
  const std::string shown = dir.string();
  write_file_at(dir_fd, shown, "plan.json", plan_file_json(plan).dump(2) + "\n", kOutputFileMode, Existing::refuse);
  write_file_at(dir_fd, shown, "shard.sbatch", shard_script(o, plan, job.array, d, sd, self), kScriptMode, Existing::refuse);
  write_file_at(dir_fd, shown, "merge.sbatch", merge_script(o, plan, d, sd, self), kScriptMode, Existing::refuse);
  write_file_at(dir_fd, shown, "submit.sh", submit_script(d), kScriptMode, Existing::refuse);
  written(job);
  if (!o.submit) return job;
  job.array_id = submit_job(sbatch, {(dir / "shard.sbatch").string()});
  submitted_any = true;
  job.merge_id = submit_job(sbatch, {"--dependency=afterok:" + *job.array_id, (dir / "merge.sbatch").string()});
  return job;
}

}  // namespace

}  // namespace obscheck
