// report/: `obscheck bias` and `obscheck compare` as text, JSON and CSV. Every
// context and every run is exported with what made it a context (environment bytes,
// argv, link order, the binary's sha256) — the record hyperfine never keeps when it
// randomizes its environment offset. Reporters return bytes and compute nothing.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "analysis/bias.h"
#include "analysis/compare.h"
#include "record/journal_notes.h"

namespace obscheck {

struct SweepContextRecord {
  std::size_t id = 0;
  std::string label;
  std::optional<std::size_t> env_pad;     // the dummy variable's value length
  std::size_t env_bytes = 0;              // the whole block the first variant saw
  std::size_t argv0_pad = 0;
  std::optional<std::size_t> link_order;
  std::vector<std::string> objects;
  std::string binary, binary_sha256;      // link-order contexts only
  std::string failure;                    // could not be prepared
};

struct SweepRunRecord {
  std::size_t seq = 0, round = 0, context = 0, variant = 0;
  std::size_t env_bytes = 0;
  std::vector<std::string> argv;
  std::string binary, binary_sha256;
  bool ok = true;
  std::string status;                     // "exited with code 0", ...
  std::uint64_t wall_ns = 0;
  std::vector<std::pair<std::string, double>> metrics;  // counters then wall-time
  bool multiplexed = false;               // some counter was multiplexed in this run
  // Each counter's time_running / time_enabled in this run (1 exact, below 1 its value
  // was scaled up from part of the run), by name; wall and user time have none.
  std::vector<std::pair<std::string, double>> running;
  std::string output_digest, first_line;
  std::optional<std::uint64_t> stack_address;
  std::string failure;
};

struct SweepVariantRecord {
  std::string name;                       // "baseline", "contender", "baseline (A/A)"
  std::vector<std::string> argv;
  std::string binary_sha256;
};

struct SweepReport {
  JobKind command = JobKind::bias;        // bias | compare
  std::vector<SweepVariantRecord> variants;
  std::vector<SweepContextRecord> contexts;
  std::vector<SweepRunRecord> runs;       // time order
  std::uint64_t seed = 0;
  int runs_per_context = 0, warmup = 0;
  std::string events;                     // the --counters spec
  std::string metric;                     // the one the verdicts are on
  std::string pad_name;
  // bias: one analysis per metric (the chosen metric first).
  std::vector<BiasAnalysis> bias;
  // compare: the A/A control (with --aa) and the comparison itself.
  std::optional<VariantComparison> aa;
  std::optional<VariantComparison> comparison;
  double margin = 0.01, alpha = 0.05;
  // --allow-multiplex: a multiplexed counter's scaled values are analysed (labelled
  // scaled) instead of the metric being incomparable.
  bool allow_multiplex = false;
  std::vector<std::string> notes;         // interrupted, failed contexts, ...
};

// The unit of a sweep metric for format_value: "ns" for the clocks (task-clock,
// cpu-clock, wall-time, user-time), "count" for everything else.
std::string sweep_metric_unit(const std::string& metric);

std::string bias_text(const SweepReport& r, bool color);
std::string compare_text(const SweepReport& r, bool color);
std::string sweep_json(const SweepReport& r);
// One row per run: seq,round,context,label,variant,env_pad,env_bytes,argv0_pad,
// link_order,binary_sha256,ok,status,<metric columns...>,<counter>:running...,
// stack_address,first_line; a <counter>:running column holds the counter's time
// running / time enabled in that run (below 1: its value was scaled up).
std::string sweep_csv(const SweepReport& r);

}  // namespace obscheck
