// job/: the values of a command line checked against their ranges before anything
// runs, is allocated or is written (a refused command line writes no journal and
// builds no variant): block counts, doses, seconds, fractions, a CPU this process may
// use, event lists well formed by the event grammar. Each refusal is Error(usage)
// naming the option and its value (an event list's grammar error is the event error
// every command gives for it, with the caret). cli/options.cpp reads the options and
// asks these.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "plan/counter_list.h"
#include "plan/observer.h"
#include "record/fail_on.h"  // FailOn, FailOnOf: the outcomes the rules below name
#include "util/words.h"  // parse_whole_number, which cli/ reads --seed and --env-pad with

namespace obscheck {

// A number of seconds, 0 or more and finite; `option` as written ("--time-budget").
double parse_seconds(const char* option, const std::string& text);

// --margin: a fraction (0.01) or a percentage (1%), as the reports print it ("±1%");
// the range is checked with the other values (check_asked_values).
double parse_margin(const std::string& text);

// The values a command line asks for that have ranges; an unset optional was not given.
struct AskedValues {
  std::optional<int> runs, max_runs;     // --runs, --max-runs: 1..kMaxBlocks, max >= runs
  int warmup = 1;                        // -w: 0..kMaxBlocks (the bound when given)
  bool warmup_given = false;
  std::optional<int> link_orders;        // --link-orders: 0..kMaxLinkOrders
  std::optional<int> contexts;           // --contexts: at least 1
  std::optional<int> cpu;                // --cpu: one this process may run on
  std::optional<double> timeout_s;       // --timeout: (0, 30 days]
  double margin = 0.01;                  // --margin: (0, 1)
  double time_budget = 60;               // --time-budget: 0 or more, finite
  double confidence = 0.95;              // --confidence: (0, 1)
  // Event lists given, as (option, list): not empty, well formed.
  std::vector<std::pair<std::string, std::string>> event_lists;
};

// Throws Error(usage) for the first value out of its range (Error(event) for a
// malformed event list). Returns the event lists, each parsed once into its items, in
// the order given.
std::vector<CounterList> check_asked_values(const AskedValues& v);

// The observer a check doses, as the command line names it: one at a time, each with
// the knobs that go with it (--levels with --observer-cmd alone, --probe-sites 1..64,
// --probes auto:N, a list of frequencies). Error(usage) for the first rule broken;
// else `r` (its command, build and probe sites as read) gets its kind and each list,
// parsed once (plan/observer.h read_symbols, ...). The texts are the options' words,
// "" when not given.
struct AskedObserver {
  std::string probes, breakpoints, sample_freq, levels;
  bool command_given = false;  // --observer-cmd given (an empty one is refused)
};
void read_asked_observer(const AskedObserver& o, ObserverRequest& r);

// fidelity: --tolerance a share in (0, 1), --top 1..1000 functions.
void check_fidelity_bounds(double tolerance, int top);

// What fails a command when --fail-on is not given, a finding a person must act on:
// the check's perturbed, layout and incomparable; bias's bias, failed and incomparable;
// compare's incomparable and aa (job/sweep/sweep_verdicts.h says what each means).
FailOn default_fail_on(FailOnOf command);
// --ci: the check's gate that fails closed, every verdict but "not perturbed" (the
// inconclusive too); Error(usage) when --fail-on was given as well.
FailOn ci_fail_on(bool fail_on_given);

// run --shard I/N as (I, N), or N alone with `slurm_task` ($SLURM_ARRAY_TASK_ID, "" when
// unset) as I; Error(usage) for a shard out of 0..N-1 or no I at all.
std::pair<std::size_t, std::size_t> parse_shard(const std::string& text, const std::string& slurm_task);

// slurm: the array tasks asked for (unset: not given, four), 1..kMaxShards; at most K
// at once, K not negative.
int slurm_shards(std::optional<int> asked, int array_parallelism);

}  // namespace obscheck
