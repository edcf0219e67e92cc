// observe/: the software-probe (uprobe) and breakpoint observers' building blocks:
// which functions to probe, the probe events for a dose, and their exact hit counts.
// A probe is just a counter (events/ encodes uprobe:PATH:SYM and bp:PATH:SYM); dose k
// opens the first k probes of the list beside the primary counters, in one
// CounterSet, each probe a group of its own.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "events/event.h"
#include "observe/counters.h"

namespace obscheck {

enum class ProbeKind { uprobe, breakpoint };

// Fails unless `path` is an ELF executable or shared object: a script (#!) says that
// probes need an ELF binary and names the interpreter; anything else says it is not
// ELF. Throws Error(target).
void require_elf_binary(const std::string& path);

// The probe events for `symbols` on `prog` (a path or a name looked up in $PATH, as
// execvp), one EventDesc per symbol, in the order given, each a group of one.
//   "SYM"        a function of the program itself
//   "LIB:SYM"    a function of one of its shared libraries (uprobes only): LIB is a
//                path (contains '/') or the name of one of the program's DT_NEEDED
//                libraries, given whole (libm.so.6) or without its version
//                (libm.so, libm); it is looked up in the program's RUNPATH/RPATH
//                ($ORIGIN expanded), then the system library directories.
// A uprobe works on a PIE and on a library as is (the kernel places it by file
// offset); a breakpoint needs the runtime address, so it is set on the program's own
// functions only (events/: ASLR off, kPieLoadBaseNoAslr).
// Throws Error(target) for a program that is not an ELF binary (see
// require_elf_binary) or a library not found; Error(event) for a symbol that does
// not exist (with did-you-mean from the symbol table) or a stripped binary;
// Error(usage) for a breakpoint on a library function or an empty symbol.
EventSet probe_events(const std::string& prog, const std::vector<std::string>& symbols, ProbeKind kind,
                      const ResolveOptions& opts = {});

// Opens every event of `set` together on a child that never execs (events/
// probe_event_set) and throws Error(event) with the kernel's refusal for the first
// one that does not open: for breakpoints beyond the CPU's debug registers this is
// the ENOSPC diagnosis ("the CPU has 4 debug registers..."), prefixed with how many
// were asked for. Call it once before a sweep, not per run.
void require_openable_together(const EventSet& set);

// Functions for --probes auto:N, in a documented deterministic order: the program's
// own functions that are defined, STT_FUNC, of non-zero size and inside .text,
// excluding the C runtime's start-up and tear-down code (_start, _init, _fini,
// frame_dummy, register_tm_clones, deregister_tm_clones, __do_global_dtors_aux,
// __libc_csu_init/fini, _dl_relocate_static_pie), names beginning with "__" (reserved
// for the implementation) and compiler-generated clones (a '.' in the name:
// foo.cold, foo.part.0, foo.constprop.0, foo.isra.0). Ordered by size, largest
// first, ties by name: the program's most substantial code first.
// n == 0 gives an empty list. Throws Error(usage) when fewer than n qualify (the
// message lists those that do), and the errors of require_elf_binary and
// ElfSymbols::load; Error(event) for a stripped binary (no .symtab).
std::vector<std::string> auto_probe_symbols(const std::string& prog, std::size_t n);

// The hit count of every probe in `probes` (uprobe or breakpoint events), read from
// `counters`, which was opened with `probes`' events at indexes probe_index[i] of its
// EventSet (the runner's set also holds the primary counters).
struct ProbeHit {
  std::string name;    // the event's display name (uprobe:PATH:SYM)
  std::string symbol;  // SYM
  std::uint64_t hits = 0;
};
// Throws Error(host) when a probe's reading was multiplexed (its count would be an
// estimate, not a hit count) and Error(internal) for an index outside the readings.
std::vector<ProbeHit> probe_hits(const std::vector<Reading>& readings, const EventSet& set,
                                 const std::vector<std::size_t>& probe_index);

// Convenience: `a` followed by `b`'s events (b's groups shifted), and the indexes of
// b's events in the result, for opening primary counters and probes in one set.
EventSet concat_events(const EventSet& a, const EventSet& b, std::vector<std::size_t>* b_index = nullptr);

}  // namespace obscheck
