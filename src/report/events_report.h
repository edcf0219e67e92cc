// report/: `obscheck events` — what this host can count, what not, and why.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "events/event.h"

namespace obscheck {

std::string events_text(const std::vector<CatalogEntry>& catalog, bool color);
std::string events_json(const std::vector<CatalogEntry>& catalog);

// `obscheck events --backend sim`: the simulated events (every one available, on any
// host), then `notes` (the default geometry, the cycle model), then how to use them.
std::string events_sim_text(const std::vector<CatalogEntry>& catalog, const std::vector<std::string>& notes,
                            bool color);

// `obscheck events --encode LIST`: per event, what it resolved through, its group and
// leader, and the perf_event_attr fields obscheck programs, in the layout and field
// names of `perf stat -vv` (non-zero fields only; the per-open flags observe/ adds —
// disabled, inherit, enable_on_exec, read_format — are left out), so the two can be diffed.
std::string events_encode_text(const EventSet& set);
// The same as JSON: {"spec", "notes", "groups": [{name, leader, members}], "events":
// [{index, name, source, pmu, resolved, group, leader, sample_read, precise_max,
// user_only_fallback, sampling_terms, attr: {every field, zeros included}}]}.
std::string events_encode_json(std::string_view spec, const EventSet& set);

}  // namespace obscheck
