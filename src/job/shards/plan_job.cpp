#include "job/shards/plan_job.h"

#include <fmt/core.h>

#include <chrono>
#include <ctime>
#include <filesystem>

#include "host/host_info.h"
#include "job/journal/journal_job.h"
#include "record/plan_json.h"
#include "record/request.h"
#include "util/digest.h"
#include "util/error.h"
#include "util/safe_write.h"

namespace obscheck {
namespace {

// A plan's blocks unless --runs says otherwise: shared by the shards, so any count of
// shards up to it gets a share (120 divides by 2, 3, 4, 5, 6 and 8).
constexpr int kDefaultPlanBlocks = 120;

std::string utc_now() {
  const std::time_t t = std::chrono::system_clock::to_time_t(std::chrono::system_clock::now());
  std::tm tm{};
  ::gmtime_r(&t, &tm);
  char text[32];
  std::strftime(text, sizeof text, "%Y-%m-%dT%H:%M:%SZ", &tm);
  return text;
}


}  // namespace

PlanFile plan_file_for(SettledRequest s) {
  if (s.request.runs == 0) s.request.runs = kDefaultPlanBlocks;
  std::vector<std::string> cannot_count;
  const PreparedCheck p = prepare_plan(std::move(s), cannot_count);
  const Plan plan = make_plan(p.plan);
  PlanFile f;
  f.obscheck_version = OBSCHECK_VERSION;
  f.created = utc_now();
  f.options = request_to_json(p.request);
  f.plan = plan_to_json(plan);
  f.target = TargetInfo{p.spec.base.path, p.spec.base.argv, sha256_file(p.spec.base.path)};
  for (const std::string& c : cannot_count)
    f.notes.push_back("the planning host " + c + "; every host that runs the plan must count it");
  f.digest = plan_digest(f.options, f.plan, f.target);
  return f;
}

void write_plan_file(const PlanFile& f, const std::string& path) {
  if (std::filesystem::exists(path))
    throw Error(ErrorKind::io, fmt::format("{} exists: a plan is not overwritten (shards may be running it)", path),
                "choose another name with -o FILE, or remove the old plan");
  // Refused also if another planner wrote the name since the check above.
  write_file_safely(path, plan_file_json(f).dump(2) + "\n", kOutputFileMode, Existing::refuse);
}

std::string default_shard_journal(const std::string& plan_path, std::size_t i, std::size_t n) {
  std::filesystem::path p(plan_path);
  p.replace_extension();
  return fmt::format("{}.shard-{}-of-{}.jsonl", p.string(), i, n);
}

void require_shard_journal(const std::string& path, const PlanFile& f, const Shard& shard) {
  const nlohmann::json m = read_manifest_line(path);
  if (m.is_null() || manifest_plan_digest(m) != f.digest || manifest_shard(m) != shard)
    throw Error(ErrorKind::io, fmt::format("{} exists and is not shard {}/{} of plan {}", path, shard.index, shard.count,
                                           f.digest.substr(0, 12)),
                "choose another journal with --journal FILE");
}

StartedCheck start_shard(const PlanFile& f, const Shard& shard, const std::string& path, const std::string& plan_path) {
  CheckRequest r = request_from_manifest(plan_file_json(f));
  // The plan's profiler command must not write over the shard's journal or the plan.
  check_files_before_running(r.observer, "", {}, {{"the shard's journal", path}, {"--plan", plan_path}});
  r.time_budget = 0;  // a plan runs its blocks
  PreparedCheck p = prepare_check(settled_as_recorded(std::move(r)));
  const std::string here = sha256_file(p.spec.base.path);
  if (here != f.target.sha256)
    throw Error(ErrorKind::target,
                fmt::format("{} on this host is not the plan's target (sha256 {}, the plan's {})", p.spec.base.path,
                            here.substr(0, 12), f.target.sha256.substr(0, 12)),
                "every host must run the same binary: copy it, or plan again");
  if (const std::string diff = json_difference(f.plan, plan_to_json(make_plan(p.plan))); !diff.empty())
    throw Error(ErrorKind::host, "this host would run another plan than " + plan_path + ": " + diff,
                "run the shard on a host like the one that planned it, or plan on this kind of host");
  p.plan.shard = shard;
  return start_check(std::move(p), path, f.digest);
}

}  // namespace obscheck
