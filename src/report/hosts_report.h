// report/: the merged report of one plan run on several hosts (analysis/hosts.h):
// the hosts and their shards, per metric and level the pooled effect with its
// between-host spread and every host's own verdict, and the hosts by CPU model.
#pragma once

#include <string>
#include <vector>

#include "analysis/hosts.h"
#include "plan/plan.h"

namespace obscheck {

// What the merge read: each journal, its shard and host, and how many of its runs
// the merge took (a warm-up block two shards of one host both ran is taken once).
struct MergedJournal {
  std::string path;
  std::size_t shard = 0, shards = 1;
  std::string host;
  std::size_t runs = 0, runs_taken = 0;
};

struct MergeContext {
  std::string plan_digest;
  std::string target;                // argv, as one line
  std::vector<MergedJournal> journals;
  std::vector<std::string> warnings;  // missing shards, torn tails
};

std::string hosts_text(const Plan& plan, const HostsFindings& f, const MergeContext& ctx);
std::string hosts_json(const Plan& plan, const HostsFindings& f, const MergeContext& ctx);

// The merged report as one self-contained page (report --html FILE): the journals and
// hosts, the hosts by CPU model, and per metric and level a table with one row per
// host and the pooled row (<tr class="host-row verdict-KEY" data-host>, <tr
// class="pooled-row verdict-KEY">), beside a forest plot: each host's effect and
// interval, then the pooled one as a diamond, the ±ε band shaded (<svg class="plot
// hosts-forest" data-metric data-level>, series data-series="host|pooled").
std::string hosts_html(const Plan& plan, const HostsFindings& f, const MergeContext& ctx);

}  // namespace obscheck
