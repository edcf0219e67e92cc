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
//
// Privilege levels: events of the CPU PMU (aliases, cpu/.../, libpfm4 core events) count
// user level only (exclude_kernel and exclude_hv, whatever libpfm4's default), since
// obscheck measures the program, not the kernel on its behalf; this also works at
// perf_event_paranoid 2. Software events exclude nothing: the kernel raises most of
// them (context switches, faults) in kernel context, and excluding the kernel would
// drop them. Modifiers after a name (cycles:u, cycles:k, cycles:ppp) or after the
// closing slash (cpu/event=0x3c/uk) override this the way perf's do.
#pragma once

#include <linux/perf_event.h>

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace obscheck {

inline constexpr std::string_view kSysfsPmuRoot = "/sys/bus/event_source/devices";

// x86-64 Linux maps an ET_DYN executable that has an interpreter (an ordinary PIE) at
// ELF_ET_DYN_BASE = 2/3 of a 47-bit TASK_SIZE, page aligned (arch/x86/include/asm/elf.h)
// when ASLR is off; launch/ turns ASLR off (ADDR_NO_RANDOMIZE) by default. A hardware
// breakpoint needs a runtime address, so bp:PIE:func assumes this base. A static PIE
// (no interpreter) or a run with ASLR on loads elsewhere: pass the real base instead.
inline constexpr std::uint64_t kPieLoadBaseNoAslr = 0x555555554000ULL;

struct EventDesc {
  std::string spec;    // exactly as the user wrote it
  std::string name;    // display name (the alias or spec, normalised)
  std::string source;  // "alias" | "sysfs" | "libpfm4" | "papi" | "uprobe" | "breakpoint"
  std::string pmu;     // "cpu" | "software" | "msr" | "uprobe" | "breakpoint" | ...
  // Fully encoded except the per-open flags observe/ sets: disabled, enable_on_exec,
  // inherit, read_format. For uprobes attr.config1 must point at probe_path when the
  // event is opened (observe/ sets it; the pointer cannot survive a copy).
  perf_event_attr attr{};
  std::string probe_path;        // uprobe / breakpoint target file (absolute, resolved like execvp)
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

// Where resolution looks and what it assumes; the defaults describe this host.
struct ResolveOptions {
  std::string sysfs_root{kSysfsPmuRoot};          // tests point this at a fixture tree
  std::uint64_t pie_load_base = kPieLoadBaseNoAslr;  // for bp: on an ET_DYN file
};
EventSet parse_events(std::string_view spec, const ResolveOptions& opts);

// One event (no commas outside pmu/.../ terms, no braces). Same errors as parse_events.
EventDesc resolve_event(std::string_view spec, const ResolveOptions& opts = {});

struct AliasInfo {
  std::string name;
  std::string description;
};
// The obscheck aliases in the order `obscheck events` lists them.
const std::vector<AliasInfo>& event_aliases();

// Splits "a,{b,c},d" at top-level commas, keeping braces (pure; exposed for tests).
std::vector<std::string> split_event_list(std::string_view spec);

// The result of really opening an event on a (corked, never-exec'd) child.
struct Availability {
  bool available = false;
  int err = 0;              // errno from perf_event_open, 0 when available
  std::string reason;       // one line: why not ("no hardware PMU: ... ")
  std::string hint;         // what would work instead, or the command that fixes it
};

// Opens `e` on a fresh child that blocks and never execs (pid=child, cpu=-1,
// disabled, enable_on_exec), then closes it and reaps the child. Never throws for an
// event the kernel refuses: the refusal is the answer.
Availability probe_event(const EventDesc& e);

// Opens a whole set the way observe/ will: every group on one child at once (leader
// first, members with group_fd = leader), all fds held together, so shared limits
// (4 debug registers, counters per group) show. One Availability per event, in
// set.events order; events of a group after its first failure are reported as not
// opened because of it.
std::vector<Availability> probe_event_set(const EventSet& set);

// What diagnosing needs to know about the host (read once; a value, so tests can
// make one up).
struct HostPerfFacts {
  bool cpu_pmu = false;  // <sysfs_root>/cpu (or a hybrid cpu_core/cpu_atom) exists
  int paranoid = 2;      // /proc/sys/kernel/perf_event_paranoid
};
HostPerfFacts read_host_perf_facts(const std::string& sysfs_root = std::string(kSysfsPmuRoot));

// The reason and hint for perf_event_open failing on `e` with errno `err` (pure).
// err == 0 gives available. `in_group`: e was opened as a member of a group of > 1.
Availability diagnose_open_error(const EventDesc& e, int err, const HostPerfFacts& host,
                                 bool in_group);

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
