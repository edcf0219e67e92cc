// events/: what an event spec means and whether this host can count it.
//
// Grammar (comma-separated, perf-style):
//   obscheck aliases     cycles instructions l1d l1i llc branches branch-misses task-clock
//                        cpu-clock page-faults minor-faults major-faults ctx-switches
//                        migrations tsc(=msr/tsc/)
//   sysfs PMU events     pmu/event=0x3c,umask=0x00/   pmu/name/   (formats from
//                        /sys/bus/event_source/devices/<pmu>/{type,format,events})
//   libpfm4 strings      e.g. INST_RETIRED:ANY_P  (pfm_get_os_event_encoding)
//   PAPI presets         PAPI_TOT_CYC, PAPI_L1_DCM ... (PAPI's own preset mapping)
//   probes               uprobe:PATH:SYMBOL   bp:PATH:SYMBOL (hardware execution breakpoint)
//   groups               {a,b} — counted together, all-or-nothing
//
// Resolution never opens a counter; availability (probe_event) does, on a real child.
#pragma once

#include <linux/perf_event.h>

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace obscheck {

struct EventDesc {
  std::string spec;    // exactly as the user wrote it
  std::string name;    // display name (the alias or spec, normalised)
  std::string source;  // "alias" | "sysfs" | "libpfm4" | "papi" | "uprobe" | "breakpoint"
  std::string pmu;     // "cpu" | "software" | "msr" | "uprobe" | "breakpoint" | ...
  // Fully encoded except the per-open flags observe/ sets: disabled, enable_on_exec,
  // inherit, read_format. For uprobes attr.config1 must point at probe_path when the
  // event is opened (observe/ sets it; the pointer cannot survive a copy).
  perf_event_attr attr{};
  std::string probe_path;        // uprobe target file (absolute)
  std::string probe_symbol;      // uprobe / breakpoint symbol name
  bool hardware = false;         // needs a hardware PMU (cycles, cache events, raw cpu/...)
};

// A parsed --counters list. groups[i] lists indexes into events; an event written
// outside braces is a group of one. Order is the user's order.
struct EventSet {
  std::vector<EventDesc> events;
  std::vector<std::vector<std::size_t>> groups;
};

// Throws Error(ErrorKind::event) for an unknown name (message has a did-you-mean),
// malformed syntax, an unknown PMU or format term, a symbol not in the ELF file.
EventSet parse_events(std::string_view spec);

// Splits "a,{b,c},d" at top-level commas, keeping braces (pure; exposed for tests).
std::vector<std::string> split_event_list(std::string_view spec);

// The result of really opening an event on a (corked, never-exec'd) child.
struct Availability {
  bool available = false;
  int err = 0;              // errno from perf_event_open, 0 when available
  std::string reason;       // one line: why not ("no hardware PMU: ... ")
  std::string hint;         // what would work instead, or the command that fixes it
};

Availability probe_event(const EventDesc& e);

struct CatalogEntry {
  std::string name;         // what to type after --counters
  std::string description;
  std::string source;
  Availability availability;
};

// What this host offers: the aliases always, plus with `all` every sysfs PMU event
// and every libpfm4 event of the active PMUs.
std::vector<CatalogEntry> event_catalog(bool all);

}  // namespace obscheck
