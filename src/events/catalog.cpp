// event_catalog: what this host offers, each entry probed for real.
#include <fmt/format.h>

#include "events/event.h"
#include "events/libpfm_events.h"
#include "events/papi_presets.h"
#include "events/sysfs_pmu.h"
#include "util/error.h"

namespace obscheck {
namespace {

CatalogEntry entry_for(const std::string& name, std::string description, std::string source) {
  CatalogEntry c;
  c.name = name;
  c.description = std::move(description);
  c.source = std::move(source);
  try {
    c.availability = probe_event(resolve_event(name));
  } catch (const Error& e) {
    // Resolution itself failed (no msr PMU for tsc, a PAPI preset with no mapping):
    // that is this host's answer for the entry.
    c.availability.reason = e.what();
    c.availability.hint = e.hint();
  }
  return c;
}

// One entry for a library that cannot be loaded: its events cannot be listed, and this
// says why and what to install.
CatalogEntry unloadable(const std::string& name, const std::string& source, const Error& e) {
  CatalogEntry c;
  c.name = name;
  c.source = source;
  c.availability.reason = e.what();
  c.availability.hint = e.hint();
  return c;
}

}  // namespace

std::vector<CatalogEntry> event_catalog(bool all) {
  std::vector<CatalogEntry> out;
  for (const auto& a : event_aliases()) out.push_back(entry_for(a.name, a.description, "alias"));
  if (!all) return out;

  const std::string root(kSysfsPmuRoot);
  for (const auto& p : list_sysfs_pmus(root))
    if (auto pmu = read_sysfs_pmu(root, p))
      for (const auto& [ev, terms] : pmu->events)
        out.push_back(entry_for(fmt::format("{}/{}/", p, ev), terms, "sysfs"));

  try {
    for (const auto& e : pfm_active_events()) out.push_back(entry_for(e.name, e.description, "libpfm4"));
  } catch (const Error& e) {
    out.push_back(unloadable("libpfm4", "libpfm4", e));
  }

  try {
    for (const auto& name : papi_preset_names()) {
      auto preset = papi_preset(name);
      out.push_back(entry_for(name, preset ? preset->description : "", "papi"));
    }
  } catch (const Error& e) {
    out.push_back(unloadable("PAPI", "papi", e));
  }
  return out;
}

}  // namespace obscheck
