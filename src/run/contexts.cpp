#include "run/contexts.h"

#include <fmt/core.h>
#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <limits>
#include <map>
#include <set>

#include "launch/descendants.h"
#include "observe/counters.h"
#include "run/measure.h"
#include "run/signals.h"
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

}  // namespace

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

Plan sweep_plan(const SweepSpec& spec, PlanKind kind) {
  PlanSpec p;
  p.kind = kind;
  for (const ContextSpec& c : spec.contexts) {
    if (!c.failure.empty()) continue;
    for (std::size_t v = 0; v < spec.variants.size(); ++v) {
      Level level;
      level.label = fmt::format("{}/{}", c.label, spec.variants[v].name);
      level.knob = LayoutCell{c.id, v};
      p.levels.push_back(std::move(level));
    }
  }
  if (p.levels.empty()) throw Error(ErrorKind::internal, "sweep_plan: no context could be prepared");
  p.layouts = {Layout::held};
  p.seed = spec.seed;
  p.fixed_blocks = static_cast<std::size_t>(spec.runs);
  p.warmup_blocks = 0;
  p.aa_control = false;
  p.group_size = spec.variants.size();
  return make_plan(p);
}

SweepCell sweep_cell(const Configuration& config) {
  if (const auto* cell = std::get_if<LayoutCell>(&config.level.knob)) return SweepCell{cell->context, cell->variant};
  throw Error(ErrorKind::io, fmt::format("configuration {} names no context and variant", config.id),
              "the journal is not one of obscheck bias or compare");
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

namespace {

// One run of `variant` in `context`: its record, with the failure when it failed. A
// counter that cannot be opened is thrown (the counter set is the experiment).
SweepRun run_once(const SweepSpec& spec, const RunMeasurer& measure, const Trial& trial, std::size_t c, std::size_t v,
                  const LaunchSpec& launch) {
  SweepRun run;
  run.seq = trial.index;
  run.round = trial.block;
  run.context = c;
  run.variant = v;
  run.env_bytes = launch.env.size_bytes();
  run.argv = launch.argv;
  run.binary = launch.path;
  run.binary_sha256 = spec.contexts[c].binary.empty() ? spec.variants[v].sha256 : spec.contexts[c].binary_sha256;
  try {
    RunOutcome out = measure(launch, spec.events);
    run.exit = std::move(out.exit);
    run.readings = std::move(out.readings);
    if (!run.exit.ok()) run.failure = describe_exit(run.exit, launch.timeout_s);
  } catch (const Error& e) {
    if (e.kind() == ErrorKind::event) throw;
    run.failure = e.what();
  }
  return run;
}

}  // namespace

namespace {

// Every prepared context has run each variant once in round 0, cleanly, with captured
// output, and in every one of them the variants' outputs differ.
bool outputs_differ_everywhere(const std::vector<SweepRun>& runs, std::size_t contexts, std::size_t variants) {
  std::map<std::size_t, std::set<std::string>> digests;  // context -> its variants' output digests
  std::size_t seen = 0;
  for (const SweepRun& r : runs) {
    if (r.round != 0) continue;
    if (!r.exit.ok() || r.exit.output_digest.empty()) return false;
    digests[r.context].insert(r.exit.output_digest);
    ++seen;
  }
  if (seen != contexts * variants || digests.size() != contexts) return false;
  for (const auto& [context, ds] : digests)
    if (ds.size() < 2) return false;
  return true;
}

}  // namespace

ContextSweepResult run_context_sweep(const SweepSpec& spec, const Plan& plan, const std::vector<Trial>& todo,
                                     const ContextSweepProgress& progress, const SweepRunDone& done) {
  if (spec.variants.empty() || spec.contexts.empty() || spec.runs < 1)
    throw Error(ErrorKind::internal, "run_context_sweep needs a variant, a context and at least one run");
  const RunMeasurer measure = spec.measurer ? spec.measurer : RunMeasurer(measure_with_counters);

  std::vector<std::size_t> live;  // contexts that could be prepared
  for (const ContextSpec& c : spec.contexts)
    if (c.failure.empty()) live.push_back(c.id);
  ContextSweepResult result;
  if (live.empty() || todo.empty()) return result;
  // What a run leaves running is killed before the next starts (launch/descendants.h).
  DescendantGuard descendants;
  InterruptGuard guard;
  // Launch specs once per (context, variant): the padding is the same every round. Every
  // run is spawned under the guard's handlers (see non_default_signals).
  const std::vector<int> resets = non_default_signals();
  std::vector<std::vector<LaunchSpec>> launches(spec.contexts.size());
  for (std::size_t c : live)
    for (const VariantSpec& v : spec.variants) {
      launches[c].push_back(context_launch(v, spec.contexts[c]));
      launches[c].back().reset_signals = resets;
    }

  // Warm-ups: each variant in the first live context, not recorded (caches, page
  // cache, CPU frequency settle).
  for (int w = 0; w < spec.warmup && !InterruptGuard::interrupted(); ++w)
    for (const LaunchSpec& launch : launches[live.front()]) {
      try {
        measure(launch, spec.events);
      } catch (const Error& e) {
        if (e.kind() == ErrorKind::event) throw;  // the counter set is the experiment
      }
      kill_descendants();
    }

  for (const Trial& trial : todo) {
    if (InterruptGuard::interrupted()) break;
    const SweepCell cell = sweep_cell(plan.configs.at(trial.config));
    if (cell.context >= spec.contexts.size() || launches[cell.context].size() <= cell.variant)
      throw Error(ErrorKind::internal,
                  fmt::format("trial {} names context {} variant {}, not prepared", trial.index, cell.context, cell.variant));
    SweepRun run = run_once(spec, measure, trial, cell.context, cell.variant, launches[cell.context][cell.variant]);
    kill_descendants();
    if (InterruptGuard::interrupted()) break;  // killed by us: not a measurement
    run.first_line = first_line_of(run.exit.output);
    run.stack_address = parse_stack_address(run.first_line);
    if (done) done(trial, run);
    result.runs.push_back(std::move(run));
    if (progress) progress(result.runs.size(), todo.size());
    if (spec.stop_when_outputs_differ && spec.variants.size() > 1 &&
        result.runs.size() == live.size() * spec.variants.size() &&
        outputs_differ_everywhere(result.runs, live.size(), spec.variants.size())) {
      result.outputs_differ = true;
      break;
    }
  }
  result.interrupted = InterruptGuard::interrupted();
  return result;
}

}  // namespace obscheck
