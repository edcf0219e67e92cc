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

#include <optional>
#include <string_view>

namespace obscheck {

enum class ObserverKind { counters, probes, breakpoints, sampling, command, build };

// "counters" | "probes" | "breakpoints" | "sampling" | "command" | "build"
std::string_view to_string(ObserverKind k);
// The kind spelled `name` as to_string spells it; nullopt for any other name.
std::optional<ObserverKind> observer_kind_from_string(std::string_view name);

// What a plan's levels vary. A check's plan doses one observer (PlanSpec::observer);
// the other commands' plans dose none: measure repeats one configuration, bias and
// compare cross layout contexts with program variants.
enum class PlanKind { check, measure, bias, compare };

// "measure" | "bias" | "compare"; "check" (never written: a check's plan is named by
// its observer).
std::string_view to_string(PlanKind k);

}  // namespace obscheck
