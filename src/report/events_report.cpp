#include "report/events_report.h"

#include <fmt/format.h>

#include <algorithm>

#include <nlohmann/json.hpp>

#include "events/attr_json.h"

namespace obscheck {

std::string events_text(const std::vector<CatalogEntry>& catalog, bool color) {
  const char* green = color ? "\x1b[32m" : "";
  const char* red = color ? "\x1b[31m" : "";
  const char* dim = color ? "\x1b[2m" : "";
  const char* reset = color ? "\x1b[0m" : "";
  std::string avail, missing;
  std::size_t n_avail = 0, n_missing = 0;
  // A host without a PMU refuses every hardware event for one reason: its hint is
  // printed once, under the first, not under each.
  std::vector<std::string> hinted;
  for (const CatalogEntry& e : catalog) {
    if (e.availability.available) {
      ++n_avail;
      avail += fmt::format("  {}{:<22}{} {} {}({}){}\n", green, e.name, reset, e.description, dim, e.source, reset);
    } else {
      ++n_missing;
      missing += fmt::format("  {}{:<22}{} {}\n", red, e.name, reset, e.availability.reason);
      const std::string& hint = e.availability.hint;
      if (!hint.empty() && std::find(hinted.begin(), hinted.end(), hint) == hinted.end()) {
        missing += fmt::format("  {:<22} {}hint: {}{}\n", "", dim, hint, reset);
        hinted.push_back(hint);
      }
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

namespace {

// The group index and leader of every event (each event is in exactly one group).
std::vector<std::pair<std::size_t, std::size_t>> group_of(const EventSet& set) {
  std::vector<std::pair<std::size_t, std::size_t>> out(set.events.size(), {0, 0});
  for (std::size_t g = 0; g < set.groups.size(); ++g)
    for (std::size_t idx : set.groups[g]) out.at(idx) = {g, set.groups[g].front()};
  return out;
}

// read_format as perf prints it: flag names joined by '|'.
std::string read_format_names(std::uint64_t f) {
  static constexpr std::pair<std::uint64_t, const char*> kNames[] = {
      {PERF_FORMAT_TOTAL_TIME_ENABLED, "TOTAL_TIME_ENABLED"},
      {PERF_FORMAT_TOTAL_TIME_RUNNING, "TOTAL_TIME_RUNNING"},
      {PERF_FORMAT_ID, "ID"},
      {PERF_FORMAT_GROUP, "GROUP"},
      {PERF_FORMAT_LOST, "LOST"}};
  std::string out;
  for (const auto& [bit, name] : kNames)
    if (f & bit) out += (out.empty() ? "" : "|") + std::string(name);
  return out;
}

std::string attr_block(const perf_event_attr& a) {
  std::string out;
  auto line = [&](std::string_view key, std::uint64_t v, bool hex) {
    if (v == 0) return;
    out += fmt::format("  {:<32} {}\n", key, hex ? fmt::format("{:#x}", v) : fmt::format("{}", v));
  };
  // perf's order and spellings (tools/perf/util/perf_event_attr_fprintf.c).
  line("type", a.type, false);
  line("config", a.config, true);
  line("{ sample_period, sample_freq }", a.sample_period, false);
  if (a.read_format != 0) out += fmt::format("  {:<32} {}\n", "read_format", read_format_names(a.read_format));
  line("disabled", a.disabled, false);
  line("inherit", a.inherit, false);
  line("pinned", a.pinned, false);
  line("exclusive", a.exclusive, false);
  line("exclude_user", a.exclude_user, false);
  line("exclude_kernel", a.exclude_kernel, false);
  line("exclude_hv", a.exclude_hv, false);
  line("exclude_idle", a.exclude_idle, false);
  line("enable_on_exec", a.enable_on_exec, false);
  line("precise_ip", a.precise_ip, false);
  line("exclude_host", a.exclude_host, false);
  line("exclude_guest", a.exclude_guest, false);
  line("bp_type", a.type == PERF_TYPE_BREAKPOINT ? a.bp_type : 0, false);
  line("{ bp_addr, config1 }", a.config1, true);
  line("{ bp_len, config2 }", a.config2, true);
  return out;
}

}  // namespace

std::string events_encode_text(const EventSet& set) {
  std::string out;
  for (const std::string& n : set.notes) out += fmt::format("note: {}\n", n);
  const auto groups = group_of(set);
  for (std::size_t i = 0; i < set.events.size(); ++i) {
    const EventDesc& e = set.events[i];
    const auto [g, leader] = groups[i];
    std::string grouping;
    if (set.groups[g].size() > 1)
      grouping = fmt::format("group {}{}, {} events, {}", g,
                             set.group_names[g].empty() ? "" : " '" + set.group_names[g] + "'", set.groups[g].size(),
                             leader == i ? std::string("leader") : fmt::format("leader {}", set.events[leader].name));
    else
      grouping = "alone";
    out += fmt::format("{}: {} ({})\n", i, e.name, grouping);
    out += fmt::format("  resolved through {}: {}\n", e.source, e.resolved.empty() ? e.spec : e.resolved);
    std::vector<std::string> flags;
    if (e.sample_read) flags.emplace_back("S: the leader's samples read the group");
    if (e.precise_max) flags.emplace_back("P: highest precise_ip the host allows, when sampling");
    if (e.weak_group) flags.emplace_back("W: weak group");
    if (e.user_only_fallback) flags.emplace_back("user level only: kernel counting not allowed here");
    for (const auto& [k, v] : e.sampling_terms) flags.push_back(fmt::format("{}={} applies only when sampling", k, v));
    for (const std::string& f : flags) out += fmt::format("  {}\n", f);
    out += "------------------------------------------------------------\nperf_event_attr:\n";
    out += attr_block(counting_attr(set, i));
    out += "------------------------------------------------------------\n";
  }
  return out;
}

std::string events_encode_json(std::string_view spec, const EventSet& set) {
  const auto groups = group_of(set);
  nlohmann::ordered_json j;
  j["spec"] = spec;
  j["notes"] = set.notes;
  nlohmann::ordered_json gs = nlohmann::ordered_json::array();
  for (std::size_t g = 0; g < set.groups.size(); ++g)
    gs.push_back({{"name", set.group_names[g]}, {"leader", set.groups[g].front()}, {"members", set.groups[g]}});
  j["groups"] = gs;
  nlohmann::ordered_json evs = nlohmann::ordered_json::array();
  for (std::size_t i = 0; i < set.events.size(); ++i) {
    const EventDesc& e = set.events[i];
    nlohmann::ordered_json terms = nlohmann::ordered_json::object();
    for (const auto& [k, v] : e.sampling_terms) terms[k] = v;
    evs.push_back({{"index", i},
                   {"name", e.name},
                   {"source", e.source},
                   {"pmu", e.pmu},
                   {"resolved", e.resolved},
                   {"group", groups[i].first},
                   {"leader", groups[i].second},
                   {"sample_read", e.sample_read},
                   {"precise_max", e.precise_max},
                   {"weak_group", e.weak_group},
                   {"user_only_fallback", e.user_only_fallback},
                   {"sampling_terms", terms},
                   {"attr", attr_to_json(counting_attr(set, i))}});
  }
  j["events"] = evs;
  return j.dump(2) + "\n";
}

}  // namespace obscheck
