// events/: the event names Linux perf knows without any PMU description: its legacy
// hardware and software events and its cache-event spellings (perf list's "Hardware
// event", "Software event" and "Hardware cache event" sections), with perf's meaning.
#pragma once

#include <linux/perf_event.h>

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace obscheck {

struct PerfName {
  std::uint32_t type = 0;     // PERF_TYPE_HARDWARE, PERF_TYPE_SOFTWARE or PERF_TYPE_HW_CACHE
  std::uint64_t config = 0;
  std::string canonical;      // perf's first spelling: "cpu-cycles", "L1-dcache-load-misses"
};

// What perf reads `name` as (pure; case as perf's lexer has it: "LLC-loads" yes,
// "llc-loads" no). Cache names are TYPE[-OP][-RESULT] or TYPE-RESULT, with perf's
// aliases for each part ("l1d", "L1-data", "loads", "read", "miss", ...); a missing op
// means read, a missing result means access. nullopt for anything else, including an
// operation perf says the cache does not have (L1-icache-stores).
std::optional<PerfName> perf_legacy_name(std::string_view name);

// Every spelling perf_legacy_name accepts for the hardware and software events, and
// the canonical cache names (for did-you-mean).
std::vector<std::string> perf_legacy_spellings();

}  // namespace obscheck
