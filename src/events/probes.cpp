// events/: the events that name a place rather than a counter: uprobes and execution
// breakpoints on a program's function (uprobe:, bp:, through its ELF symbols), data
// breakpoints (mem:), tracepoints (SYS:EVENT from tracefs, globs allowed).
#include <fmt/format.h>

#include <fnmatch.h>

#include <algorithm>
#include <cctype>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <tuple>

#include "events/elf_symbols.h"
#include "events/event.h"
#include "events/parse_internal.h"
#include "events/sysfs_pmu.h"
#include "util/error.h"

#include <linux/hw_breakpoint.h>

namespace obscheck::event_parse {
namespace {

std::string probe_usage(std::string_view kind) {
  return fmt::format("write {}:PROGRAM:FUNCTION, e.g. {}:./calls:obs_hot", kind, kind);
}

bool has_glob(std::string_view s) { return s.find_first_of("*?[") != std::string_view::npos; }

struct Tracepoint {
  std::string sys, event;
  std::uint64_t id = 0;
};

// The tracepoints matching SYS:EVENT (fnmatch patterns), sorted as perf lists them.
std::vector<Tracepoint> match_tracepoints(const std::string& root, std::string_view sys,
                                          std::string_view event) {
  namespace fs = std::filesystem;
  std::vector<Tracepoint> out;
  std::error_code ec;
  const fs::path events = fs::path(root) / "events";
  const std::string sp(sys), ep(event);
  for (const auto& s : fs::directory_iterator(events, ec)) {
    const std::string sname = s.path().filename().string();
    if (!s.is_directory(ec) || fnmatch(sp.c_str(), sname.c_str(), 0) != 0) continue;
    for (const auto& e : fs::directory_iterator(s.path(), ec)) {
      const std::string ename = e.path().filename().string();
      if (!e.is_directory(ec) || fnmatch(ep.c_str(), ename.c_str(), 0) != 0) continue;
      // The id file, or (ftrace's own events have none) the "ID: N" line of the format
      // file, which is where perf reads it from.
      std::uint64_t id = 0;
      std::ifstream in(e.path() / "id");
      if (!(in >> id)) {
        std::ifstream fmt_in(e.path() / "format");
        bool found = false;
        for (std::string line; !found && std::getline(fmt_in, line);)
          if (line.starts_with("ID: ")) found = static_cast<bool>(std::istringstream(line.substr(4)) >> id);
        if (!found) continue;
      }
      out.push_back({sname, ename, id});
    }
  }
  std::sort(out.begin(), out.end(), [](const Tracepoint& a, const Tracepoint& b) {
    return std::tie(a.sys, a.event) < std::tie(b.sys, b.event);
  });
  return out;
}

}  // namespace

EventDesc from_probe(std::string_view spec, std::string_view kind, const ResolveOptions& opts) {
  const std::string_view rest = spec.substr(kind.size() + 1);
  const auto colon = rest.rfind(':');
  if (colon == std::string_view::npos || colon == 0 || colon + 1 == rest.size())
    throw Error(ErrorKind::event, fmt::format("malformed probe '{}'", spec), probe_usage(kind));
  EventDesc d;
  d.spec = std::string(spec);
  d.name = d.spec;
  d.probe_path = resolve_program_path(rest.substr(0, colon));
  d.probe_symbol = std::string(rest.substr(colon + 1));
  const ElfSymbols elf = ElfSymbols::load(d.probe_path);
  const ElfSymbol sym = elf.resolve(d.probe_symbol);
  d.attr.size = sizeof(d.attr);
  if (kind == "uprobe") {
    const SysfsPmu pmu = require_pmu(opts, "uprobe", spec);
    d.source = "uprobe";
    d.pmu = "uprobe";
    d.attr.type = pmu.type;
    d.attr.config = 0;          // bit 0 (format/retprobe) clear: entry probe
    d.attr.config2 = sym.file_offset;  // probe_offset; config1 (uprobe_path) is set at open
  } else {
    d.source = "breakpoint";
    d.pmu = "breakpoint";
    d.attr.type = PERF_TYPE_BREAKPOINT;
    d.attr.bp_type = HW_BREAKPOINT_X;
    // x86 requires an execution breakpoint's length to be sizeof(long).
    d.attr.bp_len = sizeof(long);
    d.attr.bp_addr = sym.value + (elf.is_pie() ? opts.pie_load_base : 0);
    d.attr.exclude_kernel = 1;
    d.attr.exclude_hv = 1;
  }
  return d;
}

bool valid_tracepoint_part(std::string_view s) {
  if (s.empty()) return false;
  for (char c : s)
    if (!(std::isalnum(static_cast<unsigned char>(c)) || c == '_' || c == '-' || c == '*' || c == '?' ||
          c == '[' || c == ']' || c == '!' || c == '.'))
      return false;
  return true;
}

// mem:ADDR[/LEN][:rwx][:mods]
EventDesc breakpoint(std::string_view text, const ItemContext& cx) {
  std::size_t i = 4;  // after "mem:"
  auto token_end = [&](std::size_t from, std::string_view stops) {
    std::size_t j = from;
    while (j < text.size() && stops.find(text[j]) == std::string_view::npos) ++j;
    return j;
  };
  std::size_t j = token_end(i, "/:");
  const auto addr = parse_number(text.substr(i, j - i));
  if (!addr)
    syntax_error(cx.whole, cx.column + i, "a breakpoint needs an address: mem:ADDR[/LEN][:rwx]",
                 "e.g. mem:0x1000:rw (decimal or 0x hex)");
  std::uint64_t len = 0;
  if (j < text.size() && text[j] == '/') {
    i = j + 1;
    j = token_end(i, ":");
    const auto l = parse_number(text.substr(i, j - i));
    if (!l || (*l != 1 && *l != 2 && *l != 4 && *l != 8))
      syntax_error(cx.whole, cx.column + i, "a breakpoint length is 1, 2, 4 or 8 bytes", "e.g. mem:0x1000/8:rw");
    len = *l;
  }
  unsigned type = 0;
  std::string_view mods;
  std::size_t mods_col = 0;
  if (j < text.size()) {  // text[j] == ':'
    i = j + 1;
    j = token_end(i, ":");
    std::string_view part = text.substr(i, j - i);
    const bool access = !part.empty() && part.find_first_not_of("rwx") == std::string_view::npos;
    if (access) {
      for (std::size_t k = 0; k < part.size(); ++k) {
        const unsigned bit = part[k] == 'r' ? HW_BREAKPOINT_R : part[k] == 'w' ? HW_BREAKPOINT_W : HW_BREAKPOINT_X;
        if (type & bit) syntax_error(cx.whole, cx.column + i + k, fmt::format("access '{}' given twice", part[k]));
        type |= bit;
      }
      if (j < text.size()) {
        mods = text.substr(j + 1);
        mods_col = j + 1;
      }
    } else {
      mods = text.substr(i);
      mods_col = i;
    }
  }
  if (type == 0) type = HW_BREAKPOINT_R | HW_BREAKPOINT_W;
  if (len == 0) len = type == HW_BREAKPOINT_X ? sizeof(long) : static_cast<std::uint64_t>(HW_BREAKPOINT_LEN_4);
  EventDesc d = perf_desc(text, PERF_TYPE_BREAKPOINT, 0, "perf",
                          fmt::format("hardware breakpoint at {:#x}, {} bytes, access {}", *addr, len,
                                      std::string(type & HW_BREAKPOINT_R ? "r" : "") +
                                          (type & HW_BREAKPOINT_W ? "w" : "") + (type & HW_BREAKPOINT_X ? "x" : "")));
  d.attr.bp_type = type;
  d.attr.bp_addr = *addr;
  d.attr.bp_len = len;
  if (!mods.empty()) {
    check_modifiers(mods, cx.whole, cx.column + mods_col);
    apply_modifiers(d, mods, false, true);
  }
  return d;
}

std::string probe_prefix(std::string_view t) {
  for (std::string_view p : {"uprobe:", "bp:", "mem:"})
    if (t.starts_with(p)) return std::string(p);
  return {};
}

// SYS:EVENT as tracepoints (a glob may match several); empty when none matches a name
// without a glob. A glob that matches nothing is a syntax error saying why.
std::vector<EventDesc> tracepoints(std::string_view text, std::string_view first, std::string_view second,
                                   std::size_t mods_at, const ItemContext& cx) {
  const bool glob = has_glob(first) || has_glob(second);
  std::vector<EventDesc> out;
  for (const Tracepoint& tp : match_tracepoints(cx.opts.tracefs_root, first, second)) {
    EventDesc d = perf_desc(text, PERF_TYPE_TRACEPOINT, tp.id, "tracefs",
                            fmt::format("tracepoint {}:{}, id {} from {}/events/{}/{}/id", tp.sys, tp.event, tp.id,
                                        cx.opts.tracefs_root, tp.sys, tp.event));
    d.name = glob ? fmt::format("{}:{}", tp.sys, tp.event) : std::string(text);
    if (glob && mods_at < text.size()) d.name += fmt::format(":{}", text.substr(mods_at));
    out.push_back(with_mods(std::move(d), text, mods_at, cx));
    out.back().spec = std::string(text);
  }
  if (out.empty() && glob) {
    std::error_code ec;
    const bool readable = std::filesystem::exists(std::filesystem::path(cx.opts.tracefs_root) / "events", ec);
    syntax_error(cx.whole, cx.column, fmt::format("no tracepoint matches '{}:{}'", first, second),
                 readable ? "list them with: perf list tracepoint"
                          : fmt::format("{}/events cannot be read here (tracefs not mounted, or root only)",
                                        cx.opts.tracefs_root));
  }
  return out;
}

}  // namespace obscheck::event_parse
