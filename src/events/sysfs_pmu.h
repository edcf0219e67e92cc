// events/: PMUs described by sysfs (/sys/bus/event_source/devices/<pmu>/{type,format,events}),
// as perf(1) reads them. The root is a parameter so tests can use a fixture tree.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "events/event.h"

namespace obscheck {

// One format term, e.g. "umask" = "config:8-15" or "ldlat" = "config1:0-15", possibly
// split: "config:0-7,21-23" (the value's low bits go to the first range).
struct FormatField {
  std::string name;
  std::string word;                         // "config", "config1" or "config2"
  std::vector<std::pair<int, int>> ranges;  // inclusive bit ranges, in value order
  int width() const;
};

struct SysfsPmu {
  std::string name;
  std::uint32_t type = 0;
  std::map<std::string, FormatField> formats;
  std::map<std::string, std::string> events;  // name -> terms ("event=0x3c,umask=0x00")
};

// Parses a format file's text (pure). Throws Error(event) on malformed text.
FormatField parse_format(std::string_view name, std::string_view text);

// Reads <root>/<name>; nullopt if there is no such PMU directory.
std::optional<SysfsPmu> read_sysfs_pmu(const std::string& root, const std::string& name);

// The PMU names under root, sorted; empty if root does not exist.
std::vector<std::string> list_sysfs_pmus(const std::string& root);

// Encodes "event=0x3c,umask=0x01,cmask=2,edge" or a sysfs event name ("tsc") for this
// PMU: attr.type = pmu.type, format terms placed into config/config1/config2, the raw
// terms config=, config1=, config2= accepted as perf accepts them, a term without a
// value meaning 1. Throws Error(event) for an unknown term or a value that does not fit.
perf_event_attr encode_sysfs_event(const SysfsPmu& pmu, std::string_view terms);

}  // namespace obscheck
