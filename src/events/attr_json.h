// events/: perf_event_attr as JSON, field by field (golden tests, `events --json`).
#pragma once

#include <nlohmann/json.hpp>

#include "events/event.h"

namespace obscheck {

// The fields that define what is counted and how: type, config (and config1/config2,
// or bp_type/bp_addr/bp_len for PERF_TYPE_BREAKPOINT, whose union they share), the
// exclude_* bits, precise_ip, the per-open flags, read_format, sample_period/type.
// Every key is always present, zeros included, so two encodings compare key by key.
nlohmann::json attr_to_json(const perf_event_attr& a);

// The keys on which `actual` differs from `expected`; a key
// missing from `expected` means 0, a key `actual` lacks is a mismatch too. Sorted by
// key; empty when they agree.
std::vector<std::string> attr_json_mismatches(const nlohmann::json& expected,
                                              const nlohmann::json& actual);

}  // namespace obscheck
