// job/: obscheck report SHARD.jsonl...: the journals of one plan's shards, from any
// number of hosts, gathered for analysis with the host as a factor (analysis/hosts.h).
// Journals of different plans are refused, naming the difference; a shard given twice
// is refused; a missing shard or a torn tail is a warning (its blocks are not in the
// report).
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "analysis/hosts.h"
#include "plan/plan.h"
#include "record/request.h"
#include "report/hosts_report.h"

namespace obscheck {

// The shards' runs by host, and what the report says of the merge.
struct MergedShards {
  Plan plan;                    // the whole plan, every shard's blocks
  std::vector<HostRuns> hosts;  // in order of first appearance; each host's runs once
  MergeContext ctx;             // the plan's digest, the target, the journals, warnings
  CheckRequest recorded;        // the request the plan was made from (the first shard's)
};

// Loads and merges the journals at `paths`. Throws Error(usage) for a journal that is
// not a shard of a plan, shards of different plans or splits, or a shard given twice;
// Error(io) for an unreadable journal.
MergedShards merge_shards(const std::vector<std::string>& paths);

// The merged shards analysed with the host as a factor: a fixed number of blocks, one
// look; `margin` and `allow_multiplex` re-judge (unset, false: the plan's request's).
HostsFindings analyse_merged(MergedShards& m, std::optional<double> margin, bool allow_multiplex);

// The outcomes the merged analysis reached (the pooled and each host's verdict keys),
// for --fail-on.
std::vector<std::string> merged_outcomes(const HostsFindings& f);

}  // namespace obscheck
