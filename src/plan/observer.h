// plan/: the observer vocabulary: which kind of observation a check doses, and what
// else a plan's levels can vary. Below both plan/plan.h (PlanSpec names its observer
// by this enum) and observe/ (the simulator admits some observers), so one enum serves
// the option parser, the plan, the journal and the runner; only the journal's reader
// and writer spell the names (to_string, observer_kind_from_string).
//
// The counter observer doses the counters themselves; every other observer programs
// the same counters at every level and doses something else: uprobes, hardware
// breakpoints, a sampling frequency, a profiler command, or a build variant.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace obscheck {

enum class ObserverKind { counters, probes, breakpoints, sampling, command, build };
// Every kind, in the enum's order (each has one row in observe/observer_kinds.h).
inline constexpr std::array<ObserverKind, 6> kAllObserverKinds = {ObserverKind::counters, ObserverKind::probes,
                                                                  ObserverKind::breakpoints, ObserverKind::sampling,
                                                                  ObserverKind::command, ObserverKind::build};

// "counters" | "probes" | "breakpoints" | "sampling" | "command" | "build"
std::string_view to_string(ObserverKind k);
// The kind spelled `name` as to_string spells it; nullopt for any other name.
std::optional<ObserverKind> observer_kind_from_string(std::string_view name);
// What one dose of the kind is, for a sentence (PlanSpec::dose_noun): "counter",
// "uprobe", "breakpoint", "probe site"; empty where a level's label names the dose.
std::string_view dose_noun(ObserverKind k);

// The dose, as asked: the kind, and that kind's knobs (the others stay empty). Each
// list is parsed once, where its text is read (the command line: job/common/request_bounds.h
// read_asked_observer; a journal's manifest: record/request.cpp), by the readers
// below; the journal records the text they write back (symbols_text, ...).
// Each kind's doses are resolved on the host by its row of observe/observer_kinds.h.
struct ObserverRequest {
  ObserverKind kind = ObserverKind::counters;
  std::vector<std::string> symbols;       // probes, breakpoints: "f,g"
  std::size_t auto_symbols = 0;           // probes, breakpoints: "auto:N" (then no symbols)
  std::vector<std::uint64_t> frequencies; // sampling: 0,100,1000 (Hz)
  std::string sample_event;    // sampling: the event sampled ("" = the host's default)
  std::string command;         // command: the wrapper template with {level}
  std::vector<std::string> levels;        // command: 0,99,999 (0 = the bare target)
  std::string build;           // build: the build template with {mask} and {out}
  int probe_sites = 8;         // build: doses 0..N
  bool operator==(const ObserverRequest&) const = default;
};

// The most --probes/--breakpoints auto:N takes: a dose per probe, so N + 1 levels each
// run in every block; 4096 doses are far beyond any check that could finish, and N is
// checked before any symbol table is read.
inline constexpr std::uint64_t kMaxAutoProbes = 4096;
// The most sampling frequencies or profiler levels: each is a dose of its own.
inline constexpr std::size_t kMaxDoses = 64;

// The readers of the lists, each bounded before anything is allocated for its doses;
// Error(usage) naming the option (`option` without its dashes: "probes").
// --probes/--breakpoints: "f,g" into r.symbols, or "auto:N" (N 1..kMaxAutoProbes)
// into r.auto_symbols.
void read_symbols(const char* option, const std::string& text, ObserverRequest& r);
// --sample-freq: whole numbers in Hz, at least one, at most kMaxDoses.
std::vector<std::uint64_t> read_frequencies(const std::string& text);
// --levels: the non-empty words, at most kMaxDoses.
std::vector<std::string> read_levels(const std::string& text);
// The lists as the options spell them: "f,g" or "auto:N"; "0,100"; "0,99".
std::string symbols_text(const ObserverRequest& r);
std::string frequencies_text(const std::vector<std::uint64_t>& hz);
std::string levels_text(const std::vector<std::string>& levels);

// What a plan's levels vary. A check's plan doses one observer (PlanSpec::observer);
// the other commands' plans dose none: measure repeats one configuration, bias and
// compare cross layout contexts with program variants.
enum class PlanKind { check, measure, bias, compare };

// "measure" | "bias" | "compare"; "check" (never written: a check's plan is named by
// its observer).
std::string_view to_string(PlanKind k);

}  // namespace obscheck
