// run/: the context-sweep runner behind `obscheck bias` and `obscheck compare`
// (Mytkowicz et al., "Observer Effect and Measurement Bias in Performance Analysis" §4.2 and §5.2). A measurement context is what the program cannot see
// but its layout can: the environment's size, the length of argv[0], the order its
// objects were linked in. The runner measures one or more variants of a program in
// every context, interleaving: each round visits the contexts in a fresh seeded
// order and, within a context, the variants in a fresh seeded order (a plan of plan/,
// so a journal can record it and a resume recompute it), so drift over time spreads
// over all contexts and variants instead of masquerading as bias. Never prints;
// progress and each finished run go through callbacks.
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "events/event.h"
#include "launch/launcher.h"
#include "observe/reading.h"
#include "observe/sim.h"
#include "plan/plan.h"
#include "run/measure.h"

namespace obscheck {

// Mytkowicz et al., "Observer Effect and Measurement Bias in Performance Analysis" §4.2.1: "The leftmost point is for an environment of 2 bytes; all
// subsequent points add 390 bytes to the environment; the last point is at 8192
// bytes." obscheck reads those sizes as the length of the dummy variable's value (the
// part the paper "simply extends"): the base environment is the user's, unchanged,
// plus one variable kPadName=<value of S bytes>, so the block is
// base + len(kPadName) + 2 + S bytes ("=" and the NUL count too). 22 contexts.
inline constexpr std::size_t kPaperEnvFrom = 2;
inline constexpr std::size_t kPaperEnvTo = 8192;
inline constexpr std::size_t kPaperEnvStep = 390;
inline constexpr const char* kPadName = "OBSCHECK_PAD";

// 5 runs per context by default: the paper used 15 (§4.2) and 3 (§5.2) per context;
// 5 gives a within-context variance for the spread test at a third of the cost.
inline constexpr int kDefaultContextRuns = 5;

struct ContextSpec {
  std::size_t id = 0;                  // index in SweepSpec::contexts
  std::string label;                   // "env+392", "order 2", "env+392 argv0+8 order 2"
  std::optional<std::size_t> env_pad;  // the dummy variable's value length; none: environment untouched
  std::size_t argv0_pad = 0;           // extra '/' put in front of an absolute argv[0]
  std::optional<std::size_t> link_order;  // index of the link variant
  std::vector<std::string> objects;    // that order's object list (for the record)
  std::string binary;                  // the linked binary to run instead of the variant's path
  std::string binary_sha256;
  std::string failure;                 // set: the context could not be prepared (link failed); not run
};

// A program to measure: the launch spec as the user gave it (path, argv, the base
// environment, ASLR, CPU, timeout). The runner applies each context on top of it.
struct VariantSpec {
  std::string name;  // "baseline", "contender", "baseline (A/A copy)"
  LaunchSpec launch;
  std::string sha256;  // of launch.path (filled by the caller)
};

struct SweepRun {
  std::size_t seq = 0;       // position in the time order of all runs, 0-based
  std::size_t round = 0;     // 0-based measured round (warm-ups are not SweepRuns)
  std::size_t context = 0;   // ContextSpec::id
  std::size_t variant = 0;   // index in SweepSpec::variants
  std::size_t env_bytes = 0;
  std::vector<std::string> argv;
  std::string binary;        // the executable that ran
  std::string binary_sha256;
  ExitInfo exit;
  std::vector<Reading> readings;
  std::string first_line;    // the target's first line of output (captured only)
  std::optional<std::uint64_t> stack_address;  // parsed from "stack=0x..." in the first line
  std::string failure;       // set when the run failed: "exited with code 1", a signal, an exec error
};

struct SweepSpec {
  std::vector<VariantSpec> variants;   // >= 1
  std::vector<ContextSpec> contexts;   // >= 1
  EventSet events;
  int runs = kDefaultContextRuns;      // per context and variant
  int warmup = 1;                      // unrecorded runs of each variant before the first round
  std::uint64_t seed = 0;              // the visiting order
  RunMeasurer measurer;                // the backend's (Backend::run_measurer); empty -> measure_with_counters
  // compare without --allow-output-diff: once the first round has run every context,
  // stop if in each of them the variants ran cleanly and printed different outputs
  // (captured, by digest): the comparison is incomparable whatever more rounds show.
  bool stop_when_outputs_differ = false;
};

struct ContextSweepResult {
  std::vector<SweepRun> runs;   // time order
  bool interrupted = false;
  bool outputs_differ = false;  // stopped after the first round (stop_when_outputs_differ)
};

using ContextSweepProgress = std::function<void(std::size_t done, std::size_t total)>;

// The launch spec of `variant` in `context`: padded environment, argv[0] padded,
// the linked binary for a link-order context. Throws Error(usage) when the
// environment is already larger than the pad allows (see EnvBlock::pad_to).
LaunchSpec context_launch(const VariantSpec& variant, const ContextSpec& context);

// The plan of a sweep (plan/): one configuration per (prepared context, variant),
// context-major, labelled "<context>/<variant>" with {"context": id, "variant": index}
// in its extra; `spec.runs` blocks, each visiting every context once in a fresh seeded
// order with that context's variants back to back, also in a fresh order (groups of
// the variants' count), so drift over time spreads over all contexts and variants
// instead of masquerading as bias, and a context's variants are as close in time as
// they can be. The layout is held: a context is a layout, and nothing else moves it.
// No A/A copy (compare --aa measures its own, as a variant) and no warm-up blocks
// (run_context_sweep's warm-ups are not recorded). Throws Error(internal) when no context
// could be prepared (there is nothing to plan). `kind`: bias or compare, the first part of
// every configuration id.
Plan sweep_plan(const SweepSpec& spec, PlanKind kind);

// Which context and variant a sweep plan's configuration runs.
struct SweepCell {
  std::size_t context = 0;  // ContextSpec::id
  std::size_t variant = 0;  // index in SweepSpec::variants
};
SweepCell sweep_cell(const Configuration& config);

// "stack=0x7ffe1234 environ=..." -> 0x7ffe1234; nullopt when absent or malformed.
std::optional<std::uint64_t> parse_stack_address(const std::string& line);

// Called with each run as soon as it ended, before the next starts (the journal's line).
using SweepRunDone = std::function<void(const Trial&, const SweepRun&)>;

// Runs the warm-ups (each variant `spec.warmup` times in the first prepared context,
// not recorded: a resumed sweep runs them again, the host settles again after the
// break), then `todo`, trials of sweep_plan(spec, ...), in their order: seq is the
// trial's index, round its block. A run that fails (non-zero exit, signal, timeout,
// exec error) is recorded with its failure and the sweep goes on: a context that
// breaks the program is a finding, not an abort. Ctrl-C ends it after the run in
// progress, which is dropped (killed by us: not a measurement). Throws Error(event)
// when the counters cannot be opened (checked before any run by the caller; this is
// the backstop).
ContextSweepResult run_context_sweep(const SweepSpec& spec, const Plan& plan, const std::vector<Trial>& todo,
                                     const ContextSweepProgress& progress = {}, const SweepRunDone& done = {});

}  // namespace obscheck
