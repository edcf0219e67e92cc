#include "observe/observer.h"

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

}  // namespace obscheck
