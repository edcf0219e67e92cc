// obscheck plan: a check planned once, for several hosts; obscheck run --plan FILE
// --shard I/N: one host's share of it. The plan file (record/plan_file.h) fixes what
// every host shares: the request with its seed and blocks, the configurations and the
// target's digest. A shard resolves the request on its own host, refuses the host when
// the plan would run otherwise there (a counter it cannot count, another target,
// other doses), and runs as a check of its blocks, with the check's journal, Ctrl-C
// and resume guarantees. obscheck report merges the shards' journals (cli/merge.cpp).
#include <fmt/core.h>
#include <fmt/ranges.h>

#include <chrono>
#include <ctime>
#include <filesystem>

#include "cli/request_from.h"
#include "job/check_setup.h"
#include "cli/commands.h"
#include "cli/resume.h"
#include "host/host_info.h"
#include "record/plan_file.h"
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

// PLAN.json -> PLAN.shard-I-of-N.jsonl, beside the plan.
std::string default_shard_journal(const std::string& plan_path, std::size_t i, std::size_t n) {
  std::filesystem::path p(plan_path);
  p.replace_extension();
  return fmt::format("{}.shard-{}-of-{}.jsonl", p.string(), i, n);
}

}  // namespace

PlanFile make_plan_file(const Options& o) {
  CheckRequest r = check_request_from(o);
  if (r.runs == 0) r.runs = kDefaultPlanBlocks;
  std::vector<std::string> cannot_count;
  const PreparedCheck p = prepare_plan(r, cannot_count);
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

PlanFile write_plan(const Options& o, const std::string& path) {
  const PlanFile f = make_plan_file(o);
  if (std::filesystem::exists(path))
    throw Error(ErrorKind::io, fmt::format("{} exists: a plan is not overwritten (shards may be running it)", path),
                "choose another name with -o FILE, or remove the old plan");
  // Refused also if another planner wrote the name since the check above.
  write_file_safely(path, plan_file_json(f).dump(2) + "\n", kOutputFileMode, Existing::refuse);
  return f;
}

int cmd_plan(const Options& o) {
  const std::string path = o.output.empty() ? "obscheck-plan.json" : o.output;
  const PlanFile f = write_plan(o, path);
  for (const std::string& n : f.notes) fmt::print(stderr, "obscheck: note: {}\n", n);
  const Plan plan = plan_from_json(f.plan);
  fmt::print("plan {} written to {}: {} configurations, {} blocks of {}\n", f.digest.substr(0, 12), path,
             plan.block_size(), *plan.spec.fixed_blocks, fmt::join(f.target.argv, " "));
  fmt::print("run shard I of N on each host:  obscheck run --plan {} --shard I/N\n", path);
  fmt::print("merge the shards' journals:     obscheck report {}.shard-*.jsonl\n",
             std::filesystem::path(path).replace_extension().string());
  return 0;
}

int cmd_run(const Options& o) {
  const PlanFile f = read_plan_file(o.plan_file);
  const Shard shard{o.shard_index, o.shard_count};
  const std::string path = o.journal.empty() ? default_shard_journal(o.plan_file, shard.index, shard.count) : o.journal;
  if (std::filesystem::exists(path)) {
    // A shard stopped part-way (Ctrl-C, a requeued array task) continues its journal.
    const nlohmann::json m = read_manifest_line(path);
    const nlohmann::json want = {{"index", shard.index}, {"count", shard.count}};
    if (m.is_null() || m.value("plan_digest", "") != f.digest || m.at("plan").value("shard", nlohmann::json()) != want)
      throw Error(ErrorKind::io, fmt::format("{} exists and is not shard {}/{} of plan {}", path, shard.index, shard.count,
                                             f.digest.substr(0, 12)),
                  "choose another journal with --journal FILE");
    fmt::print(stderr, "obscheck: resuming shard {}/{} from {}\n", shard.index, shard.count, path);
    Options resume = o;
    resume.command = Command::check;
    resume.resume = path;
    resume.time_budget = 0;
    resume.given.clear();  // the plan, not this command line, says how the shard runs
    return cmd_resume(resume);
  }
  CheckRequest r = request_from_manifest(plan_file_json(f));
  r.time_budget = 0;  // a plan runs its blocks
  PreparedCheck p = prepare_check(r);
  const std::string here = sha256_file(p.spec.base.path);
  if (here != f.target.sha256)
    throw Error(ErrorKind::target,
                fmt::format("{} on this host is not the plan's target (sha256 {}, the plan's {})", p.spec.base.path,
                            here.substr(0, 12), f.target.sha256.substr(0, 12)),
                "every host must run the same binary: copy it, or plan again");
  if (const std::string diff = json_difference(f.plan, plan_to_json(make_plan(p.plan))); !diff.empty())
    throw Error(ErrorKind::host, "this host would run another plan than " + o.plan_file + ": " + diff,
                "run the shard on a host like the one that planned it, or plan on this kind of host");
  p.plan.shard = shard;
  Session s;
  s.spec = p.spec;
  s.plan = make_plan(p.plan);
  const nlohmann::json host = read_host();
  nlohmann::json manifest = check_manifest(p, s.plan, host);
  manifest["plan_digest"] = f.digest;
  JournalWriter journal = JournalWriter::create(path, manifest);
  s.journal_path = journal.path();
  fmt::print(stderr, "obscheck: shard {}/{} of plan {}: {} blocks into {}\n", shard.index, shard.count,
             f.digest.substr(0, 12), plan_looks(s.plan).back(), path);
  return run_check(o, p, s, journal, host);
}

}  // namespace obscheck
