// events/: what the event parser's three files share, internal to events/: perf's
// grammar (grammar.cpp), one item resolved to a perf_event_attr (resolve.cpp), and the
// events that name a place rather than a counter: uprobes, breakpoints, tracepoints
// (probes.cpp). Not an API: parse_events, resolve_event and split_event_list (event.h) are.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "events/event.h"
#include "events/sysfs_pmu.h"

namespace obscheck::event_parse {

// One item of a list being resolved: the list as written, where the item starts in it,
// and where to look names up.
struct ItemContext {
  std::string_view whole;   // the list as written
  std::size_t column;       // where this item starts in it
  const ResolveOptions& opts;
};

// One term of NAME/terms/: key, value (nullopt when written bare), column in the list.
struct Term {
  std::string key;
  std::optional<std::string> value;
  std::size_t column;
};

// ---- grammar.cpp: perf's grammar --------------------------------------------------

// Throws EventSyntaxError: `what` at `column` of `whole`, with a hint.
[[noreturn]] void syntax_error(std::string_view whole, std::size_t column, std::string what,
                               std::string hint = {});
// perf's numbers: decimal or 0x hex (PE_VALUE).
std::optional<std::uint64_t> parse_number(std::string_view t);
// rNNN: a raw hardware event, hex digits after the r (perf's lexer rule).
std::optional<std::uint64_t> parse_raw(std::string_view t);
// Checks a modifier string as perf does: known letters, each once except p (at most 3).
void check_modifiers(std::string_view mods, std::string_view whole, std::size_t column);
// perf's modifier semantics on d (grammar.cpp says how); `group`: a group's modifiers,
// applied over each member's own; D and e apply to the `leader` only.
void apply_modifiers(EventDesc& d, std::string_view mods, bool group, bool leader);
// The terms between NAME/ and /, each with its column in `whole`.
std::vector<Term> split_terms(std::string_view terms, std::size_t column, std::string_view whole);
// Applies the terms every event takes; returns the ones left (PMU format terms).
std::vector<Term> apply_common_terms(EventDesc& d, std::vector<Term> terms, std::string_view whole);

// ---- resolve.cpp: one item to an EventDesc ----------------------------------------

// The sysfs PMU `name`, or the error that says why it is missing (`spec` is the item).
SysfsPmu require_pmu(const ResolveOptions& opts, const std::string& name, std::string_view spec);
// An EventDesc of a perf type and config, as perf initialises one (exclude_guest set).
EventDesc perf_desc(std::string_view text, std::uint32_t type, std::uint64_t config, const char* source,
                    std::string resolved);
// d with the modifiers written from text[mods_at] on (none when mods_at is past the end).
EventDesc with_mods(EventDesc d, std::string_view text, std::size_t mods_at, const ItemContext& cx);
// One event as written (no top-level comma or brace) at cx.column: usually one
// EventDesc, several for a tracepoint wildcard.
std::vector<EventDesc> resolve_item(std::string_view text, const ItemContext& cx);
// Kernel level for events that would count it, decided once per list (event.h).
void apply_level_policy(EventSet& set, const ResolveOptions& opts);

// ---- probes.cpp: uprobes, breakpoints, tracepoints --------------------------------

// uprobe:PROGRAM:FUNCTION or bp:PROGRAM:FUNCTION (`kind` is "uprobe" or "bp").
EventDesc from_probe(std::string_view spec, std::string_view kind, const ResolveOptions& opts);
// mem:ADDR[/LEN][:rwx][:mods]
EventDesc breakpoint(std::string_view text, const ItemContext& cx);
// "uprobe:", "bp:" or "mem:" when t starts with one (their text holds '/' that is no
// term), else empty.
std::string probe_prefix(std::string_view t);
// Whether s may be the SYS or EVENT part of a tracepoint (a glob allowed).
bool valid_tracepoint_part(std::string_view s);
// SYS:EVENT as tracepoints (a glob may match several); empty when none matches a name
// without a glob. A glob that matches nothing is a syntax error saying why.
std::vector<EventDesc> tracepoints(std::string_view text, std::string_view first, std::string_view second,
                                   std::size_t mods_at, const ItemContext& cx);

}  // namespace obscheck::event_parse
