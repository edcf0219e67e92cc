// report/: `obscheck events` — what this host can count, what not, and why.
#pragma once

#include <string>
#include <vector>

#include "events/event.h"

namespace obscheck {

std::string events_text(const std::vector<CatalogEntry>& catalog, bool color);
std::string events_json(const std::vector<CatalogEntry>& catalog);

}  // namespace obscheck
