#include "events/sim_events.h"

#include <fmt/core.h>
#include <fmt/format.h>

#include <algorithm>

#include "events/did_you_mean.h"
#include "util/error.h"

namespace obscheck {
namespace {

// The cycle model's weights (kSimCyclesModel): callgrind's cycle estimate charges 10
// cycles per L1 miss and 100 per last-level miss.
constexpr std::uint64_t kL1MissCycles = 10;
constexpr std::uint64_t kLLMissCycles = 100;

std::vector<SimEvent> build() {
  std::vector<SimEvent> v;
  v.push_back({"instructions", "instructions executed (simulated)", "Ir", {{"Ir", 1}}, false});
  v.push_back({"cycles", "cycles, estimated from a model (not simulated)", std::string(kSimCyclesModel),
               {{"Ir", 1},
                {"I1mr", kL1MissCycles},
                {"D1mr", kL1MissCycles},
                {"D1mw", kL1MissCycles},
                {"ILmr", kLLMissCycles},
                {"DLmr", kLLMissCycles},
                {"DLmw", kLLMissCycles}},
               true});
  // l1d, l1i and llc mean what they mean natively (docs/events.md): the read misses
  // perf calls L1-dcache-load-misses, L1-icache-load-misses and LLC-load-misses.
  v.push_back({"l1d", "L1 data cache read misses (simulated; = L1-dcache-load-misses)", "D1mr", {{"D1mr", 1}}, false});
  v.push_back({"l1d-reads", "L1 data cache read misses (simulated; the same as l1d)", "D1mr", {{"D1mr", 1}}, false});
  v.push_back({"l1i", "L1 instruction cache read misses (simulated; = L1-icache-load-misses)", "I1mr",
               {{"I1mr", 1}}, false});
  v.push_back({"llc", "last-level cache data read misses (simulated; = LLC-load-misses)", "DLmr", {{"DLmr", 1}},
               false});
  v.push_back({"branches", "conditional and indirect branches executed (simulated)", "Bc + Bi",
               {{"Bc", 1}, {"Bi", 1}}, false});
  v.push_back({"branch-misses", "mispredicted branches (simulated predictor)", "Bcm + Bim",
               {{"Bcm", 1}, {"Bim", 1}}, false});
  return v;
}

// A word of the counter list without the spaces and tabs around it.
std::string_view strip_blanks(std::string_view s) {
  while (!s.empty() && (s.front() == ' ' || s.front() == '\t')) s.remove_prefix(1);
  while (!s.empty() && (s.back() == ' ' || s.back() == '\t')) s.remove_suffix(1);
  return s;
}

std::vector<std::string> names() {
  std::vector<std::string> n;
  for (const auto& e : sim_events()) n.push_back(e.name);
  return n;
}

}  // namespace

const std::vector<SimEvent>& sim_events() {
  static const std::vector<SimEvent> events = build();
  return events;
}

std::vector<SimEvent> resolve_sim_events(std::string_view counters) {
  std::vector<SimEvent> out;
  const std::vector<std::string> known = names();
  std::size_t start = 0;
  while (start <= counters.size()) {
    std::size_t end = counters.find(',', start);
    if (end == std::string_view::npos) end = counters.size();
    std::string_view word = strip_blanks(counters.substr(start, end - start));
    start = end + 1;
    // Groups only schedule hardware counters together; a simulation has no slots.
    while (!word.empty() && word.front() == '{') word = strip_blanks(word.substr(1));
    while (!word.empty() && word.back() == '}') word = strip_blanks(word.substr(0, word.size() - 1));
    if (word.empty()) {
      if (counters.find_first_not_of(" \t,{}") == std::string_view::npos)
        throw Error(ErrorKind::usage, "no simulated event given",
                    fmt::format("choose from: {}", fmt::join(known, ", ")));
      throw Error(ErrorKind::usage, fmt::format("empty name in the counter list '{}'", counters));
    }
    if (word.starts_with("uprobe:") || word.starts_with("bp:")) {
      throw Error(ErrorKind::usage,
                  fmt::format("'{}' does not apply under simulation: the program runs inside valgrind, "
                              "where perf_event probes cannot attach",
                              word),
                  "drop --backend sim to use probes, or count simulated events instead");
    }
    const auto& all = sim_events();
    auto it = std::find_if(all.begin(), all.end(), [&](const SimEvent& e) { return e.name == word; });
    if (it == all.end()) {
      throw Error(ErrorKind::event,
                  fmt::format("unknown simulated event '{}'{}; simulated events: {}", word,
                              did_you_mean_suffix(word, known), fmt::join(known, ", ")),
                  "obscheck events --backend sim lists them with their formulas");
    }
    if (std::any_of(out.begin(), out.end(), [&](const SimEvent& e) { return e.name == word; }))
      throw Error(ErrorKind::usage, fmt::format("simulated event '{}' given twice", word));
    out.push_back(*it);
  }
  return out;
}

}  // namespace obscheck
