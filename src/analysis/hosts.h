// analysis/: one plan run on several hosts (obscheck run --plan FILE --shard I/N),
// merged with the host as a factor (Kalibera & Jones, "Rigorous benchmarking in
// reasonable time": the machine is an upper level of the experiment).
//
// Each host's runs are analysed as a check of their own (paired within the host and
// its blocks), so every host has its verdicts. Per metric and level, the hosts' held
// effects are then pooled with a random-effects model (stats/meta.h): the pooled
// interval carries the between-host variation, and Cochran's Q says whether the
// effect differs between hosts. A metric within ±margin in every block of every host
// (an exact count, say) is decided on the pooled blocks instead (pooled_range).
#pragma once

#include <cstddef>
#include <map>
#include <string>
#include <vector>

#include "analysis/check.h"
#include "analysis/findings.h"
#include "plan/plan.h"
#include "record/run_record.h"

namespace obscheck {

struct HostRuns {
  std::string name;                 // the manifest's host.hostname (unique among hosts)
  std::string cpu_model;            // host.cpu_model ("" when unknown)
  std::vector<std::size_t> shards;  // the shards it ran
  std::vector<RunRecord> runs;      // its shards' runs, each once, in index order
};

struct HostVerdict {
  std::string host;
  Verdict verdict = Verdict::inconclusive;
  double effect = 0, lo = 0, hi = 0;  // the held comparison's, on its scale (NaN/inf: none)
  std::size_t n = 0;
};

struct PooledEffect {
  std::string metric;
  std::string level;                // the level's label
  std::size_t level_index = 0;
  Scale scale = Scale::ratio;
  double margin = 0;                // on the scale, as the hosts' comparisons
  std::vector<HostVerdict> hosts;   // every host, in host order
  std::size_t pooled_hosts = 0;     // hosts with a bounded interval, pooled
  double effect = 0, lo = 0, hi = 0;  // pooled, on the scale (ratio: minus one)
  double coverage = 0.90;          // of the interval (the hosts' comparisons')
  double tau = 0;                   // between-host standard deviation, on d's scale
  double q = 0, p_heterogeneity = 1, i2 = 0;
  Verdict verdict = Verdict::inconclusive;
  std::size_t perturbed_hosts = 0;  // hosts whose own verdict is "perturbed"
  std::string note;                 // why nothing was pooled, when so
  // Every block of every host has d within ±margin (pooled_range): the pooled blocks
  // decide by their range; lo/hi are then the smallest and largest d of all of them.
  std::size_t blocks_within = 0;    // the pooled blocks, when so (0: pooled as above)
  bool equal = false;               // ... and d is exactly 0 in every one of them
  std::size_t cover_doses = 1;      // the doses the intermittent cover is split over (Comparison::cover_doses)
};

// The hosts' held comparisons of one metric and level as one sample of blocks: when
// every host's d lies within ±margin (its own and `margin`) in every block, the median
// of all the blocks taken together lies in [smallest d, largest d] except with
// probability 2^(1 - N) over N blocks (each block falls below that median with
// probability at most 1/2 whatever its host, so all N on one side have at most 2^-N on
// each). Returns N when 2^(1 - N) <= 1 - coverage and N >= intermittent_cover_blocks
// over the metric's doses (analysis/check.h: an effect on 1 run in 4 would have shown
// in N blocks at every dose together), else 0;
// lo/hi are set on the comparisons' scale. A merge is one look, so no price for looks
// is due.
std::size_t pooled_range(const std::vector<const Comparison*>& held, double margin, double coverage, double& lo,
                         double& hi);

struct HostsFindings {
  std::vector<HostRuns> hosts;                  // as given
  std::vector<Findings> per_host;               // one per host
  std::vector<MetricInfo> metrics;              // the first host's
  std::vector<PooledEffect> pooled;             // metric-major, then level order
  std::map<std::string, std::vector<std::string>> cpu_models;  // model -> its hosts
};

// Analyses each host's runs under `plan` (the whole plan, no shard) and pools the held
// effects per metric and level. Throws Error(usage) when `hosts` is empty.
HostsFindings analyse_hosts(const Plan& plan, std::vector<HostRuns> hosts, const AnalysisOptions& o);

}  // namespace obscheck
