// job/: the journals of one plan's shards merged (job/shards/shard_merge.h).
#include "job/shards/shard_merge.h"

#include <fmt/core.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <map>
#include <set>

#include "record/journal.h"
#include "record/plan_file.h"
#include "record/request.h"
#include "util/error.h"

namespace obscheck {
namespace {

struct ShardJournal {
  JournalData data;
  Plan plan;
  std::string digest;
};

std::string host_name(const nlohmann::json& manifest) {
  const std::optional<HostInfo> host = manifest_host_info(manifest);
  return !host || host->hostname.empty() ? "(unnamed host)" : host->hostname;
}

std::string cpu_model(const nlohmann::json& manifest) {
  const std::optional<HostInfo> host = manifest_host_info(manifest);
  return host ? host->cpu_model : "";
}

// Every journal, loaded; each must be a shard of a plan, all of the same plan.
std::vector<ShardJournal> load_shards(const std::vector<std::string>& paths) {
  std::vector<ShardJournal> shards;
  for (const std::string& path : paths) {
    ShardJournal s;
    s.data = load_journal(path);
    s.plan = plan_from_journal(s.data);
    s.digest = manifest_plan_digest(s.data.manifest);
    if (s.digest.empty() || !s.plan.spec.shard)
      throw Error(ErrorKind::usage, fmt::format("{} is not a shard of a plan: only shards' journals are merged", path),
                  "run shards with obscheck run --plan FILE --shard I/N; report a single check's journal alone");
    shards.push_back(std::move(s));
  }
  const nlohmann::json first = shard_shared_part(shards.front().data.manifest);
  for (std::size_t i = 1; i < shards.size(); ++i)
    if (const std::string diff = json_difference(first, shard_shared_part(shards[i].data.manifest)); !diff.empty())
      throw Error(ErrorKind::usage,
                  fmt::format("{} and {} are not shards of one plan: {}", shards.front().data.path, shards[i].data.path, diff),
                  "merge only the journals of one plan file's shards");
  return shards;
}

// Refuses mixed splits and a shard given twice; warns of torn tails and missing shards.
void check_split(const std::vector<ShardJournal>& shards, MergeContext& ctx) {
  const std::size_t count = shards.front().plan.spec.shard->count;
  std::set<std::size_t> seen;
  for (const ShardJournal& s : shards) {
    const Shard& sh = *s.plan.spec.shard;
    if (sh.count != count)
      throw Error(ErrorKind::usage, fmt::format("{} is shard {}/{}, the others are of {} shards", s.data.path, sh.index,
                                                sh.count, count),
                  "merge the shards of one split of the plan");
    if (!seen.insert(sh.index).second)
      throw Error(ErrorKind::usage, fmt::format("shard {}/{} is given twice (again in {})", sh.index, count, s.data.path),
                  "give each shard's journal once");
    if (s.data.torn_tail) ctx.warnings.push_back(s.data.path + ": its last line was incomplete and was ignored");
  }
  for (std::size_t i = 0; i < count; ++i)
    if (!seen.count(i))
      ctx.warnings.push_back(fmt::format("shard {}/{} is missing: its blocks are not in this report", i, count));
}

// Hosts in order of first appearance; each host's runs once (two shards on one host
// both ran the warm-up block: it is taken once), in index order.
std::vector<HostRuns> runs_by_host(const std::vector<ShardJournal>& shards, MergeContext& ctx) {
  const std::size_t count = shards.front().plan.spec.shard->count;
  std::vector<HostRuns> hosts;
  std::map<std::string, std::size_t> host_of;
  std::vector<std::set<std::size_t>> taken;
  for (const ShardJournal& s : shards) {
    const std::string name = host_name(s.data.manifest);
    auto [it, added] = host_of.try_emplace(name, hosts.size());
    if (added) {
      hosts.push_back(HostRuns{name, cpu_model(s.data.manifest), {}, {}});
      taken.emplace_back();
    }
    HostRuns& h = hosts[it->second];
    h.shards.push_back(s.plan.spec.shard->index);
    MergedJournal mj{s.data.path, s.plan.spec.shard->index, count, name, s.data.runs.size(), 0};
    for (const RunRecord& r : s.data.runs)
      if (taken[it->second].insert(r.index).second) {
        h.runs.push_back(r);
        ++mj.runs_taken;
      }
    ctx.journals.push_back(std::move(mj));
  }
  for (HostRuns& h : hosts)
    std::sort(h.runs.begin(), h.runs.end(), [](const RunRecord& a, const RunRecord& b) { return a.index < b.index; });
  return hosts;
}

}  // namespace

MergedShards merge_shards(const std::vector<std::string>& paths) {
  const std::vector<ShardJournal> shards = load_shards(paths);
  MergedShards m;
  m.ctx.plan_digest = shards.front().digest;
  m.ctx.target = fmt::format("{}", fmt::join(manifest_target(shards.front().data.manifest).argv, " "));
  check_split(shards, m.ctx);
  m.hosts = runs_by_host(shards, m.ctx);
  m.plan = whole_plan(shards.front().plan);
  m.recorded = request_from_manifest(shards.front().data.manifest);
  return m;
}

HostsFindings analyse_merged(MergedShards& m, std::optional<double> margin, bool allow_multiplex) {
  AnalysisOptions a{margin.value_or(m.recorded.margin), 0.05, 1, m.plan.seed(), 0, true};  // shards: fixed blocks, one look
  a.allow_multiplex = allow_multiplex || m.recorded.allow_multiplex;
  return analyse_hosts(m.plan, std::move(m.hosts), a);
}

std::vector<std::string> merged_outcomes(const HostsFindings& f) {
  std::vector<std::string> found;
  for (const PooledEffect& p : f.pooled) {
    found.emplace_back(verdict_key(p.verdict));
    for (const HostVerdict& h : p.hosts) found.emplace_back(verdict_key(h.verdict));
  }
  return found;
}

}  // namespace obscheck
