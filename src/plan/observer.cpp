#include "plan/observer.h"

#include <cstddef>

namespace obscheck {

namespace {

// Each kind's words, in the enum's order: its name in the journal and the noun of one
// of its doses (observe/observer_kinds.h holds the rest of its row).
struct KindWords {
  std::string_view name;
  std::string_view dose_noun;
};
constexpr std::array<KindWords, kAllObserverKinds.size()> kWords = {{
    {"counters", "counter"},
    {"probes", "uprobe"},
    {"breakpoints", "breakpoint"},
    {"sampling", ""},  // a rate: its level's label names it
    {"command", ""},   // a profiler's level word: its label names it
    {"build", "probe site"},
}};

// kWords is indexed by the enum's value: the kinds are 0..n-1 in that order.
static_assert(static_cast<std::size_t>(kAllObserverKinds.back()) + 1 == kAllObserverKinds.size());

const KindWords& words_of(ObserverKind k) {
  const auto i = static_cast<std::size_t>(k);
  return kWords.at(i < kWords.size() ? i : 0);
}

}  // namespace

std::string_view to_string(ObserverKind k) { return words_of(k).name; }

std::string_view dose_noun(ObserverKind k) { return words_of(k).dose_noun; }

std::optional<ObserverKind> observer_kind_from_string(std::string_view name) {
  for (ObserverKind k : kAllObserverKinds)
    if (to_string(k) == name) return k;
  return std::nullopt;
}

std::string_view to_string(PlanKind k) {
  switch (k) {
    case PlanKind::check: return "check";
    case PlanKind::measure: return "measure";
    case PlanKind::bias: return "bias";
    case PlanKind::compare: return "compare";
  }
  return "check";
}

}  // namespace obscheck
