#include "run/contexts.h"

#include <fmt/core.h>
#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <limits>

#include "launch/descendants.h"
#include "observe/counters.h"
#include "run/measure.h"
#include "run/signals.h"
#include "stats/rng.h"
#include "util/error.h"

namespace obscheck {
namespace {

std::string absolute(const std::string& path) {
  if (!path.empty() && path[0] == '/') return path;
  char buf[4096];
  if (getcwd(buf, sizeof buf) == nullptr) return path;
  return std::string(buf) + "/" + path;
}

std::string first_line_of(const std::string& output) {
  return output.substr(0, output.find('\n'));
}

// Distinct streams per round from one recorded seed (SplitMix64 over seed ^ round).
std::uint64_t round_seed(std::uint64_t seed, std::size_t round) {
  std::uint64_t s = seed ^ (0x9E3779B97F4A7C15ull * (round + 1));
  return stats::splitmix64(s);
}

template <class T>
void shuffle(std::vector<T>& v, stats::Rng& rng) {
  for (std::size_t i = v.size(); i > 1; --i) std::swap(v[i - 1], v[rng.index(i)]);
}

}  // namespace

RunOutcome measure_with_counters(const LaunchSpec& launch, const EventSet& events) {
  CorkedChild child = CorkedChild::spawn(launch);
  InterruptGuard::set_current_group(child.pid());
  struct ClearGroup {
    ~ClearGroup() { InterruptGuard::set_current_group(-1); }
  } clear_group;
  CounterSet counters = CounterSet::open(child.pid(), events);
  child.release();
  RunOutcome out;
  out.exit = child.wait();
  out.readings = counters.read();
  return out;
}

RunMeasurer sim_measurer(const SimGeometry& geometry, const std::vector<SimEvent>& events) {
  return [geometry, events](const LaunchSpec& launch, const EventSet&) {
    SimRun run = run_sim_interruptible(launch, geometry, events);
    return RunOutcome{std::move(run.exit), std::move(run.readings)};
  };
}

LaunchSpec context_launch(const VariantSpec& variant, const ContextSpec& context) {
  LaunchSpec l = variant.launch;
  if (!context.binary.empty()) l.path = context.binary;
  if (context.env_pad) {
    // The pad's value is env_pad bytes: the block is the base plus "NAME=" + value + NUL.
    EnvBlock base = l.env;
    base.unset(kPadName);
    l.env = base;
    l.env.pad_to(base.size_bytes() + std::string(kPadName).size() + 2 + *context.env_pad, kPadName);
  }
  if (context.argv0_pad > 0 && !l.argv.empty()) {
    // Extra slashes in front of an absolute path name the same file, so the program
    // sees a longer argv[0] (the stack moves) and nothing else changes.
    l.argv[0] = std::string(context.argv0_pad, '/') + absolute(l.path);
  } else if (!context.binary.empty() && !l.argv.empty()) {
    l.argv[0] = context.binary;
  }
  return l;
}

std::vector<std::pair<std::size_t, std::size_t>> round_order(std::size_t contexts, std::size_t variants,
                                                             std::uint64_t seed, std::size_t round) {
  stats::Rng rng(round_seed(seed, round));
  std::vector<std::size_t> cs(contexts), vs(variants);
  for (std::size_t i = 0; i < contexts; ++i) cs[i] = i;
  shuffle(cs, rng);
  std::vector<std::pair<std::size_t, std::size_t>> order;
  for (std::size_t c : cs) {
    for (std::size_t i = 0; i < variants; ++i) vs[i] = i;
    shuffle(vs, rng);
    for (std::size_t v : vs) order.emplace_back(c, v);
  }
  return order;
}

std::optional<std::uint64_t> parse_stack_address(const std::string& line) {
  const std::size_t at = line.find("stack=0x");
  if (at == std::string::npos) return std::nullopt;
  const char* begin = line.c_str() + at + 8;
  char* end = nullptr;
  errno = 0;
  const unsigned long long v = std::strtoull(begin, &end, 16);
  if (end == begin || errno != 0) return std::nullopt;
  return static_cast<std::uint64_t>(v);
}

ContextSweepResult run_sweep(const SweepSpec& spec, const ContextSweepProgress& progress) {
  if (spec.variants.empty() || spec.contexts.empty() || spec.runs < 1)
    throw Error(ErrorKind::internal, "run_sweep needs a variant, a context and at least one run");
  const RunMeasurer measure = spec.measurer ? spec.measurer : RunMeasurer(measure_with_counters);

  std::vector<std::size_t> live;  // contexts that could be prepared
  for (const ContextSpec& c : spec.contexts)
    if (c.failure.empty()) live.push_back(c.id);

  // Launch specs once per (context, variant): the padding is the same every round.
  std::vector<std::vector<LaunchSpec>> launches(spec.contexts.size());
  for (std::size_t c : live)
    for (const VariantSpec& v : spec.variants) launches[c].push_back(context_launch(v, spec.contexts[c]));

  ContextSweepResult result;
  // What a run leaves running is killed before the next starts (launch/descendants.h).
  DescendantGuard descendants;
  InterruptGuard guard;
  // Every run is spawned under the guard's handlers (see non_default_signals).
  const std::vector<int> resets = non_default_signals();
  for (auto& per_context : launches)
    for (LaunchSpec& l : per_context) l.reset_signals = resets;
  const std::size_t total = live.size() * spec.variants.size() * static_cast<std::size_t>(spec.runs);
  if (live.empty()) return result;

  // Warm-ups: each variant in the first live context, not recorded (caches, page
  // cache, CPU frequency settle).
  for (int w = 0; w < spec.warmup && !InterruptGuard::interrupted(); ++w)
    for (std::size_t v = 0; v < spec.variants.size(); ++v) {
      try {
        measure(launches[live.front()][v], spec.events);
      } catch (const Error& e) {
        if (e.kind() == ErrorKind::event) throw;  // the counter set is the experiment
      }
    }

  for (std::size_t round = 0; round < static_cast<std::size_t>(spec.runs); ++round) {
    for (auto [ci, v] : round_order(live.size(), spec.variants.size(), spec.seed, round)) {
      if (InterruptGuard::interrupted()) break;
      const std::size_t c = live[ci];
      const LaunchSpec& launch = launches[c][v];
      SweepRun run;
      run.seq = result.runs.size();
      run.round = round;
      run.context = c;
      run.variant = v;
      run.env_bytes = launch.env.size_bytes();
      run.argv = launch.argv;
      run.binary = launch.path;
      run.binary_sha256 =
          spec.contexts[c].binary.empty() ? spec.variants[v].sha256 : spec.contexts[c].binary_sha256;
      try {
        RunOutcome out = measure(launch, spec.events);
        run.exit = std::move(out.exit);
        run.readings = std::move(out.readings);
        if (!run.exit.ok()) run.failure = describe_exit(run.exit, launch.timeout_s);
      } catch (const Error& e) {
        if (e.kind() == ErrorKind::event) throw;
        run.failure = e.what();
      }
      kill_descendants();
      if (InterruptGuard::interrupted()) break;  // killed by us: not a measurement
      run.first_line = first_line_of(run.exit.output);
      run.stack_address = parse_stack_address(run.first_line);
      result.runs.push_back(std::move(run));
      if (progress) progress(result.runs.size(), total);
    }
    if (InterruptGuard::interrupted()) break;
  }
  result.interrupted = InterruptGuard::interrupted();
  return result;
}

}  // namespace obscheck
