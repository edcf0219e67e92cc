// record/: the check as the user asked for it, typed. cli/ builds it from argv once;
// everything downstream reads its fields, never a string it must parse again; the
// journal's manifest stores it and a resume or a report restores it through the one
// function pair below, so a continuation runs exactly as the check began.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "observe/sim.h"
#include "plan/counter_list.h"
#include "plan/observer.h"
#include "plan/plan.h"

namespace obscheck {

// Where counts come from: perf_event on this host, or the simulated PMU (cachegrind).
// Chosen once, here; the runner and the reports read it from the request.
enum class BackendKind { native, sim };
std::string_view to_string(BackendKind b);
// "native" | "sim"; throws Error(usage) naming the accepted values.
BackendKind backend_from_string(std::string_view text);

// What a run that leaves processes behind means (--leftovers): they are killed and the
// run marked, or the run also fails.
enum class Leftovers { kill, fail };
std::string_view to_string(Leftovers l);
// "kill" | "fail"; throws Error(usage) naming the accepted values.
Leftovers leftovers_from_string(std::string_view text);


// How the target is started: the measurement context held constant over the check.
struct LaunchRequest {
  std::vector<std::string> argv;   // PROG ARGS, argv[0] as written
  bool aslr = false;
  int cpu = -1;
  std::optional<std::size_t> env_pad;
  double timeout_s = 0;
  bool show_output = false;
  std::string run_as;              // "" = as obscheck runs
  bool keep_output_head = false;
  bool operator==(const LaunchRequest&) const = default;
};

struct CheckRequest {
  // The counters, as items. Before resolution: as asked (empty: the default for this
  // host and observer); after: the ones that will be counted, with `dropped` saying
  // what --allow-missing left out and why.
  CounterList counters;
  std::vector<std::string> dropped;
  bool allow_missing = false;
  ObserverRequest observer;
  BackendKind backend = BackendKind::native;
  std::string sim_cache;                  // --sim-cache as given ("" = the host's geometry)
  std::optional<SimGeometry> sim;         // the geometry in use (backend sim, once resolved)
  CountingMode mode = CountingMode::external;
  double margin = 0.01;
  // --allow-multiplex: multiplexed counters are compared as scaled values (analysis/check.h).
  bool allow_multiplex = false;
  std::uint64_t seed = 0;                 // 0 with !seed_given: drawn when the plan is made
  bool seed_given = false;
  int runs = 0;                           // --runs: fixed measured blocks (0: sequential looks)
  int max_runs = 0;                       // --max-runs: cap on measured blocks (0: the default)
  int warmup = 1;
  bool warmup_given = false;
  double time_budget = 60;                // seconds, 0..kMaxTimeBudgetSeconds (record/journal_notes.h); 0: none (an invocation's, not the check's)
  bool ignore_failure = false;
  Leftovers leftovers = Leftovers::kill;
  LaunchRequest launch;
  bool operator==(const CheckRequest&) const = default;
};

// The request as a manifest's "options" object, and back. The keys are the journal
// format's (docs/report-schema.md); a journal written before a key existed gets that
// field's default. request_from_manifest reads the whole manifest (the target's argv
// and the seed live beside "options") and throws Error(io) naming a malformed field.
nlohmann::json request_to_json(const CheckRequest& r);
CheckRequest request_from_manifest(const nlohmann::json& manifest);

// The simulated cache geometry as a manifest records it, and back (exactly: size,
// assoc and line of each cache, its source and notes); from_json throws Error(io).
nlohmann::json sim_geometry_json(const SimGeometry& g);
SimGeometry sim_geometry_from_json(const nlohmann::json& j);

}  // namespace obscheck
