// events/: the simulated PMU's events (`--backend sim`).
//
// Under simulation the target runs in valgrind's cachegrind with cache and branch
// simulation on. Cachegrind counts thirteen raw quantities per run (its "events:"
// line): Ir I1mr ILmr Dr D1mr DLmr Dw D1mw DLmw Bc Bcm Bi Bim. Every simulated event
// is a fixed weighted sum of them, so it is exact and deterministic; `cycles` is the
// one estimate, a stated model rather than a measurement:
//
//   estimated cycles = Ir + 10·(I1mr + D1mr + D1mw) + 100·(ILmr + DLmr + DLmw)
//
// (one cycle per instruction, 10 per first-level miss, a further 100 per last-level
// miss: the weights of callgrind's cycle estimate, without its branch term). A report
// must print "estimated" beside it and name the model (kSimCyclesModel).
//
// This list is the catalog `obscheck events --backend sim` prints on any host: it
// depends on nothing but cachegrind, never on the host's PMU.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace obscheck {

// Cachegrind's raw event names, in the order of its "events:" line with
// --cache-sim=yes --branch-sim=yes (valgrind 3.19).
inline constexpr std::string_view kCachegrindEvents[] = {
    "Ir", "I1mr", "ILmr", "Dr", "D1mr", "DLmr", "Dw", "D1mw", "DLmw", "Bc", "Bcm", "Bi", "Bim"};

// The cycle model, as reports print it.
inline constexpr std::string_view kSimCyclesModel =
    "estimated cycles = Ir + 10*(I1mr + D1mr + D1mw) + 100*(ILmr + DLmr + DLmw)";

struct SimTerm {
  std::string counter;       // one of kCachegrindEvents
  std::uint64_t weight = 1;
};

struct SimEvent {
  std::string name;          // what to type after --counters
  std::string description;
  std::string formula;       // e.g. "D1mr + D1mw"
  std::vector<SimTerm> terms;
  bool estimated = false;    // true for a model (cycles), false for an exact simulated count
};

// Every simulated event, in the order `obscheck events --backend sim` lists them:
// instructions, cycles, l1d, l1d-reads, l1i, llc, branches, branch-misses.
const std::vector<SimEvent>& sim_events();

// Parses a --counters list for the simulated backend: comma-separated names from
// sim_events(), in the user's order; braces (groups) are accepted and ignored, since
// simulated counts never multiplex. Surrounding spaces are trimmed.
// Throws Error(usage) for a uprobe:/bp: probe ("does not apply under simulation": the
// simulated program has no perf_event attachment point), Error(event) for an unknown
// name, with a did-you-mean and the list of simulated events, and Error(usage) for an
// empty list or a repeated name.
std::vector<SimEvent> resolve_sim_events(std::string_view counters);

}  // namespace obscheck
