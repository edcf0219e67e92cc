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
#include <utility>
#include <vector>

namespace obscheck {

// A whole unsigned number, nothing else (Boost would read "-1" as 2^64-1); `option`
// names it in the error ("seed" for --seed).
std::uint64_t parse_whole_number(const char* option, const std::string& text);

// A number of seconds, 0 or more and finite; `option` as written ("--time-budget").
double parse_seconds(const char* option, const std::string& text);

// --probes auto:N (also --breakpoints): N a whole number from 1 to kMaxAutoProbes.
// Nothing for a list of symbols.
void check_auto_probes(const char* option, const std::string& value);

// A comma list of whole unsigned numbers (--sample-freq 0,100,1000): no minus sign,
// none above `max`, at least one and at most kMaxDoses of them.
void check_number_list(const char* option, const std::string& list, std::uint64_t max);

// The values a command line asks for that have ranges; an unset optional was not given.
struct AskedValues {
  std::optional<int> runs, max_runs;     // --runs, --max-runs: 1..kMaxBlocks, max >= runs
  int warmup = 1;                        // -w: 0..kMaxBlocks (the bound when given)
  bool warmup_given = false;
  std::optional<int> link_orders;        // --link-orders: 0..kMaxLinkOrders
  std::optional<int> contexts;           // --contexts: at least 1
  std::optional<int> cpu;                // --cpu: one this process may run on
  std::optional<std::string> levels;     // --levels: at most kMaxDoses
  std::optional<double> timeout_s;       // --timeout: (0, 30 days]
  double margin = 0.01;                  // --margin: (0, 1)
  double time_budget = 60;               // --time-budget: 0 or more, finite
  double confidence = 0.95;              // --confidence: (0, 1)
  // Event lists given, as (option, list): not empty, well formed.
  std::vector<std::pair<std::string, std::string>> event_lists;
  std::string leftovers = "kill";        // --leftovers: kill | fail
};

// Throws Error(usage) for the first value out of its range (Error(event) for a
// malformed event list).
void check_asked_values(const AskedValues& v);

}  // namespace obscheck
