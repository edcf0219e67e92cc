#include "plan/observer.h"

#include <array>

namespace obscheck {

std::string_view to_string(ObserverKind k) {
  switch (k) {
    case ObserverKind::counters: return "counters";
    case ObserverKind::probes: return "probes";
    case ObserverKind::breakpoints: return "breakpoints";
    case ObserverKind::sampling: return "sampling";
    case ObserverKind::command: return "command";
    case ObserverKind::build: return "build";
  }
  return "counters";
}

std::optional<ObserverKind> observer_kind_from_string(std::string_view name) {
  static constexpr std::array kAll = {ObserverKind::counters, ObserverKind::probes,   ObserverKind::breakpoints,
                                      ObserverKind::sampling, ObserverKind::command, ObserverKind::build};
  for (ObserverKind k : kAll)
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
