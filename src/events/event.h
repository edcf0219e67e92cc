// events/: what an event spec means and whether this host can count it.
//
// Grammar (comma-separated): Linux perf's event language, as `perf stat -e` reads it,
// plus obscheck's own forms.
//   perf legacy names    cycles instructions cache-misses branches ... cpu-clock
//                        task-clock faults cs migrations alignment-faults ... and the
//                        cache names TYPE[-OP][-RESULT] (L1-dcache-load-misses, LLC-loads,
//                        dTLB-store-misses, ...) with perf's spellings (events/perf_names.h)
//   raw and numeric      r1a  r0x1a   TYPE:CONFIG (1:1, 4:0x6530160)
//   breakpoints          mem:ADDR[/LEN][:rwx]
//   tracepoints          SYS:EVENT with * ? [] wildcards (syscalls:*, *:*), ids from
//                        tracefs (<tracefs_root>/events/SYS/EVENT/id)
//   sysfs PMU events     pmu/event=0x3c,umask=0x00/   pmu/name/   intel_pt//
//   terms                NAME/terms/ on any of the above: config=, config1=, config2=,
//                        name=, period=, freq=, ... and the PMU's format terms
//   modifiers            :u :k :h (levels) :G :H (guest/host) :I (exclude idle) :p :pp
//                        :ppp (precise_ip) :P (max precise) :S (leader sampling) :D
//                        (pinned) :e (exclusive) :W (weak group) :b; after a name, after
//                        the closing '/' of terms, or after a group
//   groups               {a,b}  {a,b}:mods  name{a,b}
//   obscheck aliases     l1d l1i llc ctx-switches tsc(=msr/tsc/) and perf's names above
//   libpfm4 strings      e.g. INST_RETIRED:ANY_P  (pfm_get_os_event_encoding)
//   PAPI presets         PAPI_TOT_CYC, PAPI_L1_DCM ... (PAPI's own preset mapping)
//   probes               uprobe:PATH:SYMBOL   bp:PATH:SYMBOL (hardware execution breakpoint)
//
// One deliberate difference from perf: `l1d` and `l1i` are obscheck's names for the L1
// data / instruction cache read MISSES (perf reads them as L1-dcache-loads /
// L1-icache-loads, the accesses). The encoding (`obscheck events --encode`) says so;
// `l1d-misses` / `L1-dcache-load-misses` mean the same to both tools.
//
// Resolution never opens a counter; availability (probe_event) does, on a real child.
//
// Privilege levels follow perf: an event counts every level (user, kernel, hypervisor)
// unless a modifier says otherwise, and perf's defaults for exclude_guest apply (set
// without modifiers or with :u or :p, cleared by :k, :h, :G ...). Where this caller may
// not count the kernel (perf_event_paranoid > 1 without CAP_PERFMON or CAP_SYS_ADMIN),
// events that would count both user and kernel level count user level only, as perf
// stat falls back to, and EventSet::notes says so once. Hardware breakpoints on a
// program's function (bp:) count user level only.
#pragma once

#include <linux/perf_event.h>

#include "util/error.h"

#include <cstdint>
#include <string>
#include <string_view>
#include <utility>
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
  // Fully encoded except the per-open flags (disabled, enable_on_exec, inherit,
  // read_format: counting_attr() adds them). For uprobes attr.config1 must point at probe_path when the
  // event is opened (observe/ sets it; the pointer cannot survive a copy).
  perf_event_attr attr{};
  std::string probe_path;        // uprobe / breakpoint target file (absolute, resolved like execvp)
  std::string probe_symbol;      // uprobe / breakpoint symbol name
  bool hardware = false;         // needs a hardware PMU (cycles, cache events, raw cpu/...)
  // perf's tool event duration_time: the run's wall time in ns from the driver's own
  // clock (exec to exit). As perf does, a dummy software event (type 1, config 0x9)
  // is opened in its place, which counts nothing; observe/ reads the clock instead.
  bool duration_time = false;
  // How the name was read, for `events --encode`: "perf legacy name cpu-cycles",
  // "tracefs syscalls/sys_enter_openat", "obscheck alias (perf reads l1d as ...)".
  std::string resolved;
  // perf's per-event state that is not in perf_event_attr (modifiers S, P, W; G/H seen).
  bool sample_read = false;      // :S, the group leader samples the others
  bool precise_max = false;      // :P, the highest precise_ip the host allows
  bool weak_group = false;       // :W
  bool exclude_gh = false;       // a G or H modifier was given (perf's exclude_GH)
  bool user_only_fallback = false;  // kernel level dropped because the caller may not count it
  // Terms perf applies only when sampling (period=, freq=, call-graph=, time=, ...):
  // kept as written, not programmed when counting (perf stat does not program them either).
  std::vector<std::pair<std::string, std::string>> sampling_terms;
};

// A parsed --counters list. groups[i] lists indexes into events; an event written
// outside braces is a group of one. Order is the user's order.
struct EventSet {
  std::vector<EventDesc> events;
  std::vector<std::vector<std::size_t>> groups;
  std::vector<std::string> group_names;  // parallel to groups; "" unless written name{...}
  std::vector<std::string> notes;        // said once for the whole set (privilege fallback)
};

// A syntax or name error in an event list, with the column (0-based, in the list as
// written) of the offending character. what() is one line; format_event_error() adds the
// list and a caret under the column.
class EventSyntaxError : public Error {
 public:
  EventSyntaxError(std::string what, std::string hint, std::string spec, std::size_t column)
      : Error(ErrorKind::event, std::move(what), std::move(hint)), spec_(std::move(spec)), column_(column) {}
  const std::string& spec() const { return spec_; }
  std::size_t column() const { return column_; }

 private:
  std::string spec_;
  std::size_t column_;
};

// "WHAT (column C)\n  SPEC\n  ^" with the caret under column C, 1-based (pure; the
// hint is left to the caller, which prints it on its own line).
std::string format_event_error(const EventSyntaxError& e);

// What a counting run programs (observe/ opens exactly this; `events --encode` shows
// exactly this): e.attr plus the per-open flags perf stat sets. Every counter reads
// time enabled and running (multiplex scaling); a group of more than one event also
// reads ids and the whole group at once, on leader and members alike (read_format 0xf,
// as perf stat programs it); the leader (or a lone event) starts disabled and is
// switched on at the target's execve, members follow it; all are inherited by the
// target's threads and children.
inline constexpr std::uint64_t kCountingReadFormat =
    PERF_FORMAT_TOTAL_TIME_ENABLED | PERF_FORMAT_TOTAL_TIME_RUNNING;
inline constexpr std::uint64_t kGroupReadFormat = kCountingReadFormat | PERF_FORMAT_ID | PERF_FORMAT_GROUP;
perf_event_attr counting_attr(const EventDesc& e, bool group_leader, bool in_group);
// The same for set.events[index], leader and group size taken from set.groups (an
// event in no group counts alone).
perf_event_attr counting_attr(const EventSet& set, std::size_t index);

// Throws Error(ErrorKind::event) for an unknown name (message has a did-you-mean),
// malformed syntax, an unknown PMU or format term, a symbol not in the ELF file.
EventSet parse_events(std::string_view spec);

// Where resolution looks and what it assumes; the defaults describe this host.
inline constexpr std::string_view kTracefsRoot = "/sys/kernel/tracing";

// Whether an event without level modifiers may count kernel level.
enum class KernelLevels {
  host,       // ask this host: perf_event_paranoid and the caller's capabilities
  allowed,    // count every level (root, CAP_PERFMON, or paranoid <= 1)
  forbidden,  // count user level only where perf would fall back to it
};

struct ResolveOptions {
  std::string sysfs_root{kSysfsPmuRoot};          // tests point this at a fixture tree
  std::string tracefs_root{kTracefsRoot};         // <root>/events/SYS/EVENT/id
  std::uint64_t pie_load_base = kPieLoadBaseNoAslr;  // for bp: on an ET_DYN file
  KernelLevels kernel_levels = KernelLevels::host;
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
  bool cap_perfmon = false;    // effective CAP_PERFMON (or CAP_SYS_ADMIN, which implies it)
};
// True when this caller may count kernel level: paranoid <= 1 or CAP_PERFMON (pure).
bool kernel_counting_allowed(const HostPerfFacts& host);
HostPerfFacts read_host_perf_facts(const std::string& sysfs_root = std::string(kSysfsPmuRoot));
// "count software events instead: --counters ..." for a host without a PMU: with tsc
// only where this caller may count the kernel (tsc cannot be counted user level only).
std::string software_events_hint(const HostPerfFacts& host);

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
