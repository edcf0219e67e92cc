// report/: `obscheck events` — what this host can count, what not, and why.
#pragma once

#include <string>
#include <vector>

#include "events/event.h"

namespace obscheck {

std::string events_text(const std::vector<CatalogEntry>& catalog, bool color);
std::string events_json(const std::vector<CatalogEntry>& catalog);

// `obscheck events --backend sim`: the simulated events (every one available, on any
// host), then `notes` (the default geometry, the cycle model), then how to use them.
std::string events_sim_text(const std::vector<CatalogEntry>& catalog, const std::vector<std::string>& notes,
                            bool color);

}  // namespace obscheck
