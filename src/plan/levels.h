// plan/: every observer's doses as plan levels, level 0 included (docs/design.md "How
// is level 0 chosen?"). One function per observer kind (plan/observer.h).
//
// Pure: each takes what job/ resolved on the host (job/check/check_setup.cpp: the symbols
// found, the frequencies parsed and allowed, the profiler's levels checked, the
// variants built) and returns the levels, least observation first, that PlanSpec::levels
// holds. Every observer but the counters programs the same `counters` at every level
// (they are its metrics) and names its dose in Level::knob, which the runner reads.
// A journal holds the knob as the level's "extra" object (record/plan_json.h).
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <variant>
#include <vector>

namespace obscheck {

// What a level sets at each run beside its counters, one type per kind of dose; the
// journal's key of each is in quotes.
struct ProbesAttached {  // probes, breakpoints: the first k are attached ("probes")
  std::size_t probes = 0;
  bool operator==(const ProbesAttached&) const = default;
};
struct SampledAt {  // sampling: the event sampled at `freq` Hz, 0 not sampled ("freq")
  std::uint64_t freq = 0;
  bool operator==(const SampledAt&) const = default;
};
struct WrappedAt {  // a profiler command: the --levels word put for {level}, "0" bare ("wrap")
  std::string wrap;
  bool operator==(const WrappedAt&) const = default;
};
struct BuiltVariantRun {  // a build: variant `variant` of --build runs, its sha256 ("variant", "sha256")
  std::size_t variant = 0;
  std::string sha256;
  bool operator==(const BuiltVariantRun&) const = default;
};
struct LayoutCell {  // bias, compare: one program variant in one layout context ("context", "variant")
  std::size_t context = 0;
  std::size_t variant = 0;
  bool operator==(const LayoutCell&) const = default;
};
// None (monostate) for the counter observer, whose dose is its counters, and measure.
using LevelKnob = std::variant<std::monostate, ProbesAttached, SampledAt, WrappedAt, BuiltVariantRun, LayoutCell>;

// One dose of one observer. Generic over observers: counters use programmed and
// announced; sampling, probes, profiler commands or build variants set their knob.
struct Level {
  int dose = 0;                          // how much observation (k counters, Hz, ...)
  std::string label;                     // unique within the plan, e.g. "2[cycles,l1d]"
  std::vector<std::size_t> programmed;   // indexes into PlanSpec::counters counted at this level
  std::vector<std::size_t> announced;    // counters named in the target's environment (in-process mode)
  LevelKnob knob;                        // the observer's own setting at this level
  bool operator==(const Level&) const = default;
};

// The --levels word a profiler command's level puts for {level}; nullopt at a level
// of any other observer.
std::optional<std::string> wrap_word(const Level& level);

// The counter observer's levels for a --counters list of n names (the paper's Figure
// 3): the prefixes 1..n (dose k: the first k counters), then each counter i = 2..n on
// its own (dose 1), so every counter has a baseline where it is collected alone
// (counter 1 alone is prefix 1). Labels: "<dose>[name,name,...]".
// With `reference`, a level 0 ("0[none]": no counter programmed, none announced) comes
// first and is the baseline: the driver's metrics (wall time, rusage) then answer
// "does counting change my program?" even for a single counter. Level 0 cannot
// measure a counter, so each counter is still compared against itself alone. job/
// asks for it when the backend times the program (not a simulator).
// Throws Error(usage) when `counters` is empty.
std::vector<Level> counter_levels(const std::vector<std::string>& counters, bool reference = false);

// Uprobes or hardware breakpoints on `symbols` (in the user's order): dose k probes the
// first k, k = 0..n; labels "0[none]", "1[f]", "2[f,g]"; knob ProbesAttached{k}. Level 0
// is the program unprobed.
std::vector<Level> probe_levels(const std::vector<std::string>& symbols, std::size_t counters);

// Sampling at each of `frequencies` Hz (as given, then ordered by frequency): dose f,
// label "<f>Hz", or "0Hz[none]" for 0 (not sampled: level 0 when the user lists it);
// knob SampledAt{f}.
std::vector<Level> sampling_levels(const std::vector<std::uint64_t>& frequencies, std::size_t counters);

// A profiler command's `levels` (the words of --levels, each substituted for {level}):
// dose the word's number (its position when it is not a number), label the word, or
// "0[bare]" for "0" (the target not wrapped: level 0 when the user lists it); knob
// WrappedAt{word}. Ordered by dose, ties in the given order.
std::vector<Level> command_levels(const std::vector<std::string>& levels, std::size_t counters);

// One built variant of --build: how many probe sites it compiles in, their mask, and the
// executable's sha256.
struct VariantDose {
  int dose = 0;
  std::uint64_t mask = 0;
  std::string digest;
};
// One level per variant: dose its sites, label "<dose>[mask <mask>]", knob BuiltVariantRun{its
// index in `variants`, digest}. Level 0 is the variant with no probe site.
std::vector<Level> build_levels(const std::vector<VariantDose>& variants, std::size_t counters);

}  // namespace obscheck
