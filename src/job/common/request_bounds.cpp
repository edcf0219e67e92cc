#include "job/common/request_bounds.h"

#include <sched.h>
#include <unistd.h>

#include <fmt/core.h>

#include <algorithm>
#include <cerrno>
#include <cmath>
#include <cstdlib>
#include <sstream>

#include "events/event.h"
#include "observe/observer_kinds.h"
#include "observe/variants.h"  // kMaxProbeSites: a build variant's probe mask is a 64-bit word
#include "record/journal_notes.h"  // kMaxTimeBudgetSeconds, kMaxMeasuredBlocks
#include "util/error.h"
#include "util/words.h"

namespace obscheck {
namespace {

// The longest --timeout taken: 30 days. Far beyond any run worth repeating, and its
// nanoseconds still fit the 64-bit clock arithmetic of launch/.
constexpr double kMaxTimeoutSeconds = 30.0 * 24 * 3600;
// The most measured or warm-up blocks a command line may ask for: the plan holds a
// trial per block and level before the first run, so the bound keeps a typo
// (--runs 2000000000) from allocating gigabytes; a million blocks of even one
// millisecond each is already more than fifteen minutes per level. A journal's plan
// and its resumes are held to the same bound (record/journal_notes.h).
constexpr int kMaxBlocks = static_cast<int>(kMaxMeasuredBlocks);
// The most link orders: each is a binary linked before the first run.
constexpr int kMaxLinkOrders = 10000;
// slurm: four shards unless told, at most 10000 (one array task each; Slurm's own
// default MaxArraySize is 1001, sites raise it).
constexpr int kDefaultShards = 4;
constexpr int kMaxShards = 10000;
// An event list is not empty (a command-line mistake, exit 2) and is well formed by
// the event grammar: a malformed list gets the error every command gives for it (the
// list with a caret under the column at fault, exit 4), before anything runs.
CounterList check_event_list(const std::string& option, const std::string& list) {
  if (list.find_first_not_of(" \t,") == std::string::npos)
    throw Error(ErrorKind::usage, "--" + option + " is empty",
                "name at least one event (see obscheck events), or leave the option out for the default list");
  return CounterList(split_event_list(list));
}

// --runs, --max-runs and --warmup: at least 1 (0 for the warm-up), the cap not below
// the runs, none above kMaxBlocks.
void check_blocks(const AskedValues& v) {
  if (v.runs && *v.runs < 1) throw Error(ErrorKind::usage, "--runs must be at least 1, not " + std::to_string(*v.runs));
  if (v.max_runs && *v.max_runs < 1)
    throw Error(ErrorKind::usage, "--max-runs must be at least 1, not " + std::to_string(*v.max_runs));
  if (v.runs && v.max_runs && *v.max_runs < *v.runs)
    throw Error(ErrorKind::usage,
                "--max-runs " + std::to_string(*v.max_runs) + " is below --runs " + std::to_string(*v.runs));
  if (v.warmup < 0) throw Error(ErrorKind::usage, "--warmup cannot be negative");
  const std::optional<int> warmup = v.warmup_given ? std::optional(v.warmup) : std::nullopt;
  for (auto [name, value] : {std::pair{"runs", v.runs}, {"max-runs", v.max_runs}, {"warmup", warmup}})
    if (value && *value > kMaxBlocks)
      throw Error(ErrorKind::usage, fmt::format("--{} {} is above the most a command line may ask for, {}", name, *value,
                                                kMaxBlocks));
}

// --timeout, --margin, --time-budget and --confidence.
void check_fractions_and_seconds(const AskedValues& v) {
  if (v.timeout_s && !(*v.timeout_s > 0 && *v.timeout_s <= kMaxTimeoutSeconds))
    throw Error(ErrorKind::usage, "--timeout is a number of seconds above 0 and at most 30 days",
                "leave it out to wait for the target as long as it runs");
  if (!(v.margin > 0 && v.margin < 1))
    throw Error(ErrorKind::usage, "--margin is between 0 and 1 (0.01), or between 0% and 100% (1%)");
  if (!(v.time_budget >= 0 && v.time_budget <= kMaxTimeBudgetSeconds))
    throw Error(ErrorKind::usage, fmt::format("--time-budget is a number of seconds from 0 (no limit) to {:g} (a year)",
                                              kMaxTimeBudgetSeconds));
  if (!(v.confidence > 0 && v.confidence < 1))
    throw Error(ErrorKind::usage, "--confidence is a level between 0 and 1 (0.95 = 95%)");
}

// --cpu N: a CPU this process may run on.
void check_cpu(int cpu) {
  cpu_set_t allowed;
  CPU_ZERO(&allowed);
  const bool known = ::sched_getaffinity(0, sizeof allowed, &allowed) == 0;
  if (!known || cpu < 0 || cpu >= CPU_SETSIZE || !CPU_ISSET(cpu, &allowed))
    throw Error(ErrorKind::usage, "--cpu " + std::to_string(cpu) + ": no such CPU is available to this process",
                "choose one of the " + std::to_string(CPU_COUNT(&allowed)) + " CPUs listed by taskset -cp " +
                    std::to_string(::getpid()));
}

}  // namespace

// A number of seconds, 0 or more and finite; "auto" is the caller's.
double parse_seconds(const char* option, const std::string& text) {
  char* end = nullptr;
  const double v = std::strtod(text.c_str(), &end);
  if (text.empty() || *end != '\0' || !(v >= 0 && v <= kMaxTimeBudgetSeconds))
    throw Error(ErrorKind::usage, fmt::format("{} is a number of seconds from 0 (no limit) to {:g} (a year), or auto; not '{}'",
                                              option, kMaxTimeBudgetSeconds, text));
  return v;
}

double parse_margin(const std::string& text) {
  const bool percent = !text.empty() && text.back() == '%';
  const std::string number = percent ? text.substr(0, text.size() - 1) : text;
  char* end = nullptr;
  const double v = std::strtod(number.c_str(), &end);
  if (number.empty() || *end != '\0' || !std::isfinite(v))
    throw Error(ErrorKind::usage, "--margin is a fraction (0.01) or a percentage (1%), not '" + text + "'");
  return percent ? v / 100 : v;
}

std::vector<CounterList> check_asked_values(const AskedValues& v) {
  check_blocks(v);
  if (v.link_orders && *v.link_orders > kMaxLinkOrders)
    throw Error(ErrorKind::usage, fmt::format("--link-orders is at most {}", kMaxLinkOrders));
  check_fractions_and_seconds(v);
  if (v.cpu) check_cpu(*v.cpu);
  std::vector<CounterList> lists;
  for (const auto& [option, list] : v.event_lists) lists.push_back(check_event_list(option, list));
  if (v.link_orders && *v.link_orders < 0) throw Error(ErrorKind::usage, "--link-orders cannot be negative");
  if (v.contexts && *v.contexts < 1) throw Error(ErrorKind::usage, "--contexts must be at least 1");
  return lists;
}

namespace {

// The options that choose an observer, from the table of kinds: "--probes, ..., --build".
std::string observer_options() {
  std::string out;
  for (const ObserverKindInfo& k : observer_kinds())
    if (!k.option.empty()) out += (out.empty() ? "" : ", ") + std::string(k.option);
  return out;
}

}  // namespace

void read_asked_observer(const AskedObserver& o, ObserverRequest& r) {
  const int observers = !o.probes.empty() + !o.breakpoints.empty() + !o.sample_freq.empty() + !r.command.empty() +
                        !r.build.empty();
  if (observers > 1)
    throw Error(ErrorKind::usage, "one observer at a time: " + observer_options(), "run one check per observer");
  if (o.command_given && r.command.find_first_not_of(" \t\n") == std::string::npos)
    throw Error(ErrorKind::usage, "--observer-cmd is empty: give the profiler command that wraps the target",
                "e.g. --observer-cmd 'perf record -F {level} -o /dev/null --' --levels 0,99,999");
  if (!r.command.empty() && o.levels.empty())
    throw Error(ErrorKind::usage, "--observer-cmd needs --levels (e.g. --levels 0,99,999; 0 = not wrapped)");
  if (r.command.empty() && !o.levels.empty()) throw Error(ErrorKind::usage, "--levels goes with --observer-cmd");
  if (r.probe_sites < 1 || r.probe_sites > kMaxProbeSites)
    throw Error(ErrorKind::usage, fmt::format("--probe-sites is 1..{}", kMaxProbeSites));
  const bool uprobes = !o.probes.empty();
  read_symbols(uprobes ? "probes" : "breakpoints", uprobes ? o.probes : o.breakpoints, r);
  if (!o.sample_freq.empty()) r.frequencies = read_frequencies(o.sample_freq);
  if (!o.levels.empty()) r.levels = read_levels(o.levels);
  r.kind = uprobes                   ? ObserverKind::probes
           : !o.breakpoints.empty()  ? ObserverKind::breakpoints
           : !o.sample_freq.empty()  ? ObserverKind::sampling
           : !r.command.empty()      ? ObserverKind::command
           : !r.build.empty()        ? ObserverKind::build
                                     : ObserverKind::counters;
}

void check_fidelity_bounds(double tolerance, int top) {
  if (!(tolerance > 0 && tolerance < 1))
    throw Error(ErrorKind::usage, "--tolerance is a share between 0 and 1 (0.05 = five share points)");
  if (top < 1 || top > 1000) throw Error(ErrorKind::usage, "--top is 1..1000 functions");
}

FailOn default_fail_on(FailOnOf command) {
  // A finding a person must act on; compare's worse and better are its answer, not a failure.
  using O = FindingKind;
  return command == FailOnOf::compare ? FailOn{O::incomparable, O::aa}
         : command == FailOnOf::bias  ? FailOn{O::bias, O::failed, O::incomparable}
                                      : FailOn{O::perturbed, O::layout, O::incomparable};
}

FailOn ci_fail_on(bool fail_on_given) {
  // What a gate needs: nothing passes that was not measured to a decision.
  if (fail_on_given)
    throw Error(ErrorKind::usage, "--ci and --fail-on: choose one",
                "--ci is --fail-on perturbed,layout,incomparable,inconclusive");
  return {FindingKind::perturbed, FindingKind::layout, FindingKind::incomparable, FindingKind::inconclusive};
}

std::pair<std::size_t, std::size_t> parse_shard(const std::string& text, const std::string& slurm_task) {
  const std::size_t slash = text.find('/');
  std::string index = slash == std::string::npos ? "" : text.substr(0, slash);
  const std::string count = slash == std::string::npos ? text : text.substr(slash + 1);
  if (index.empty()) {
    if (slurm_task.empty())
      throw Error(ErrorKind::usage, "--shard " + text + ": which shard? write I/N, or run it as a Slurm array task",
                  "e.g. --shard 0/4 (shards are numbered 0..N-1)");
    index = slurm_task;
  }
  const std::size_t i = parse_whole_number("shard", index), n = parse_whole_number("shard", count);
  if (n == 0 || i >= n)
    throw Error(ErrorKind::usage, fmt::format("--shard {}/{} is out of range", i, n),
                "shards are numbered 0..N-1, as Slurm's array task ids");
  return {i, n};
}

int slurm_shards(std::optional<int> asked, int array_parallelism) {
  const int shards = asked.value_or(kDefaultShards);
  if (shards < 1 || shards > kMaxShards)
    throw Error(ErrorKind::usage, fmt::format("--shards (or --nodes) is 1..{}, not {}", kMaxShards, shards),
                "one array task per shard, each on a node of its own");
  if (array_parallelism < 0) throw Error(ErrorKind::usage, "--array-parallelism cannot be negative");
  return shards;
}

}  // namespace obscheck
