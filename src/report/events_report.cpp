#include "report/events_report.h"

#include <fmt/core.h>

#include <nlohmann/json.hpp>

namespace obscheck {

std::string events_text(const std::vector<CatalogEntry>& catalog, bool color) {
  const char* green = color ? "\x1b[32m" : "";
  const char* red = color ? "\x1b[31m" : "";
  const char* dim = color ? "\x1b[2m" : "";
  const char* reset = color ? "\x1b[0m" : "";
  std::string avail, missing;
  std::size_t n_avail = 0, n_missing = 0;
  for (const CatalogEntry& e : catalog) {
    if (e.availability.available) {
      ++n_avail;
      avail += fmt::format("  {}{:<22}{} {} {}({}){}\n", green, e.name, reset, e.description, dim, e.source, reset);
    } else {
      ++n_missing;
      missing += fmt::format("  {}{:<22}{} {}\n", red, e.name, reset, e.availability.reason);
      if (!e.availability.hint.empty())
        missing += fmt::format("  {:<22} {}instead: {}{}\n", "", dim, e.availability.hint, reset);
    }
  }
  std::string out = fmt::format("Available here ({}):\n{}", n_avail, avail);
  if (n_missing > 0) out += fmt::format("\nNot available here ({}):\n{}", n_missing, missing);
  out += "\nUse the names on the left with --counters; groups as {a,b}; also pmu/event=0x..,umask=0x../,\n"
         "libpfm4 names, PAPI presets, uprobe:PROG:SYMBOL and bp:PROG:SYMBOL (obscheck events --all lists more).\n";
  return out;
}

std::string events_sim_text(const std::vector<CatalogEntry>& catalog, const std::vector<std::string>& notes,
                            bool color) {
  const char* green = color ? "\x1b[32m" : "";
  const char* dim = color ? "\x1b[2m" : "";
  const char* reset = color ? "\x1b[0m" : "";
  std::string out = fmt::format("Simulated events (--backend sim: valgrind cachegrind, on any host) ({}):\n", catalog.size());
  for (const CatalogEntry& e : catalog)
    out += fmt::format("  {}{:<22}{} {}\n", green, e.name, reset, e.description);
  out += "\n";
  for (const std::string& n : notes) out += fmt::format("{}{}{}\n", dim, n, reset);
  out += "\nUse the names on the left with --backend sim --counters, e.g.\n"
         "  obscheck --backend sim --counters cycles,l1d ./prog\n"
         "The counts are exact and repeat run after run: one run per configuration suffices.\n";
  return out;
}

std::string events_json(const std::vector<CatalogEntry>& catalog) {
  nlohmann::json arr = nlohmann::json::array();
  for (const CatalogEntry& e : catalog)
    arr.push_back({{"name", e.name},
                   {"description", e.description},
                   {"source", e.source},
                   {"available", e.availability.available},
                   {"errno", e.availability.err},
                   {"reason", e.availability.reason},
                   {"hint", e.availability.hint}});
  return nlohmann::json{{"events", arr}}.dump(2) + "\n";
}

}  // namespace obscheck
