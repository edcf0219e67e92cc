#include "observe/probes.h"

#include <fcntl.h>
#include <gelf.h>
#include <libelf.h>
#include <unistd.h>

#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <cerrno>
#include <cstring>
#include <filesystem>
#include <fstream>

#include "events/did_you_mean.h"
#include "events/elf_symbols.h"
#include "util/error.h"
#include "util/fd.h"

namespace obscheck {
namespace {

namespace fs = std::filesystem;

// Where the dynamic loader finds libraries on Debian/Ubuntu x86-64 and most other
// distributions, after the program's own RUNPATH/RPATH (ld.so(8)).
constexpr std::array kSystemLibraryDirs = {
    "/lib/x86_64-linux-gnu", "/usr/lib/x86_64-linux-gnu", "/lib64", "/usr/lib64",
    "/lib",                  "/usr/lib",                  "/usr/local/lib",
};

// Start-up and tear-down code of the C runtime (crt1.o, crti.o, crtbegin.o): present
// in every program, not the program's own work.
constexpr std::array kRuntimeFunctions = {
    "_start",       "_init",     "_fini", "frame_dummy", "register_tm_clones", "deregister_tm_clones",
    "__do_global_dtors_aux", "__libc_csu_init", "__libc_csu_fini", "_dl_relocate_static_pie",
};

struct ElfHandle {
  UniqueFd fd;
  Elf* elf = nullptr;
  explicit ElfHandle(const std::string& path) : fd(::open(path.c_str(), O_RDONLY | O_CLOEXEC)) {
    if (!fd) throw Error(ErrorKind::target, fmt::format("cannot open '{}': {}", path, std::strerror(errno)));
    if (elf_version(EV_CURRENT) == EV_NONE) throw Error(ErrorKind::internal, fmt::format("libelf: {}", elf_errmsg(-1)));
    elf = elf_begin(fd.get(), ELF_C_READ, nullptr);
    if (!elf || elf_kind(elf) != ELF_K_ELF) {
      if (elf) elf_end(elf);
      throw Error(ErrorKind::target, fmt::format("'{}' is not an ELF file", path));
    }
  }
  ElfHandle(const ElfHandle&) = delete;
  ElfHandle& operator=(const ElfHandle&) = delete;
  ~ElfHandle() { elf_end(elf); }
};

struct DynamicInfo {
  std::vector<std::string> needed;   // DT_NEEDED, in order
  std::vector<std::string> runpath;  // DT_RUNPATH, else DT_RPATH, split at ':'
};

DynamicInfo read_dynamic(const std::string& path) {
  ElfHandle h(path);
  DynamicInfo info;
  std::string runpath, rpath;
  for (Elf_Scn* scn = elf_nextscn(h.elf, nullptr); scn; scn = elf_nextscn(h.elf, scn)) {
    GElf_Shdr sh;
    if (!gelf_getshdr(scn, &sh) || sh.sh_type != SHT_DYNAMIC || sh.sh_entsize == 0) continue;
    Elf_Data* data = elf_getdata(scn, nullptr);
    if (!data) continue;
    for (std::size_t i = 0; i < sh.sh_size / sh.sh_entsize; ++i) {
      GElf_Dyn dyn;
      if (!gelf_getdyn(data, static_cast<int>(i), &dyn)) continue;
      const char* s = nullptr;
      if (dyn.d_tag == DT_NEEDED || dyn.d_tag == DT_RUNPATH || dyn.d_tag == DT_RPATH)
        s = elf_strptr(h.elf, sh.sh_link, dyn.d_un.d_val);
      if (!s) continue;
      if (dyn.d_tag == DT_NEEDED) info.needed.emplace_back(s);
      if (dyn.d_tag == DT_RUNPATH) runpath = s;
      if (dyn.d_tag == DT_RPATH) rpath = s;
    }
  }
  const std::string& dirs = runpath.empty() ? rpath : runpath;
  const std::string origin = fs::path(path).parent_path().string();
  std::size_t at = 0;
  while (!dirs.empty() && at <= dirs.size()) {
    const auto colon = dirs.find(':', at);
    std::string dir = dirs.substr(at, colon == std::string::npos ? std::string::npos : colon - at);
    for (const char* tok : {"${ORIGIN}", "$ORIGIN"})
      for (auto p = dir.find(tok); p != std::string::npos; p = dir.find(tok)) dir.replace(p, std::strlen(tok), origin);
    if (!dir.empty()) info.runpath.push_back(dir);
    if (colon == std::string::npos) break;
    at = colon + 1;
  }
  return info;
}

// [lo, hi) of the .text section's addresses; {0, 0} when there is none.
std::pair<std::uint64_t, std::uint64_t> text_range(const std::string& path) {
  ElfHandle h(path);
  std::size_t shstrndx = 0;
  if (elf_getshdrstrndx(h.elf, &shstrndx) != 0) return {0, 0};
  for (Elf_Scn* scn = elf_nextscn(h.elf, nullptr); scn; scn = elf_nextscn(h.elf, scn)) {
    GElf_Shdr sh;
    if (!gelf_getshdr(scn, &sh)) continue;
    const char* name = elf_strptr(h.elf, shstrndx, sh.sh_name);
    if (name && std::strcmp(name, ".text") == 0) return {sh.sh_addr, sh.sh_addr + sh.sh_size};
  }
  return {0, 0};
}

// "libm" and "libm.so" name "libm.so.6"; a full name names itself.
bool names_library(const std::string& wanted, const std::string& needed) {
  return needed == wanted || needed.starts_with(wanted + ".") ||
         (!wanted.ends_with(".so") && needed.starts_with(wanted + ".so"));
}

// Library names are compared by their stems (libm of libm.so.6), so that "libmm"
// suggests libm.so.6; the suggestion is the full name.
std::string library_suggestion(const std::string& wanted, const std::vector<std::string>& needed) {
  auto stem = [](const std::string& n) { return n.substr(0, n.find(".so")); };
  std::vector<std::string> stems;
  for (const auto& n : needed) stems.push_back(stem(n));
  const auto best = closest_name(stem(wanted), stems);
  if (!best) return {};
  const auto at = std::find(stems.begin(), stems.end(), *best) - stems.begin();
  return fmt::format(" (did you mean '{}'?)", needed[static_cast<std::size_t>(at)]);
}

std::string find_library(const std::string& prog, const std::string& lib) {
  if (lib.find('/') != std::string::npos) {
    const fs::path p = fs::absolute(lib).lexically_normal();
    if (!fs::is_regular_file(p)) throw Error(ErrorKind::target, fmt::format("library '{}' does not exist", lib));
    return p.string();
  }
  const DynamicInfo dyn = read_dynamic(prog);
  const auto it = std::find_if(dyn.needed.begin(), dyn.needed.end(),
                               [&](const std::string& n) { return names_library(lib, n); });
  if (it == dyn.needed.end())
    throw Error(ErrorKind::target, fmt::format("'{}' does not link a library '{}'{}", prog, lib, library_suggestion(lib, dyn.needed)),
                dyn.needed.empty() ? std::string("it links no shared library (a static program?)")
                                   : fmt::format("it links: {}", fmt::join(dyn.needed, ", ")));
  std::vector<std::string> dirs = dyn.runpath;
  dirs.insert(dirs.end(), kSystemLibraryDirs.begin(), kSystemLibraryDirs.end());
  for (const auto& d : dirs) {
    const fs::path p = fs::path(d) / *it;
    if (fs::is_regular_file(p)) return fs::canonical(p).string();
  }
  throw Error(ErrorKind::target, fmt::format("cannot find {} (needed by '{}') in {}", *it, prog, fmt::join(dirs, ":")),
              "give the library's path instead: --probes /path/to/lib.so:function");
}

bool excluded_from_auto(const ElfSymbol& s) {
  if (s.name.starts_with("__") || s.name.find('.') != std::string::npos) return true;
  return std::find(kRuntimeFunctions.begin(), kRuntimeFunctions.end(), s.name) != kRuntimeFunctions.end();
}

}  // namespace

void require_elf_binary(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw Error(ErrorKind::target, fmt::format("cannot open '{}': {}", path, std::strerror(errno)));
  std::string first_line;
  std::getline(in, first_line);
  if (first_line.starts_with("#!")) {
    std::string interp = first_line.substr(2);
    interp.erase(0, interp.find_first_not_of(" \t"));
    throw Error(ErrorKind::target,
                fmt::format("'{}' is a script (#!{}): probes need an ELF binary", path, interp),
                "probe the compiled program the script runs, or the interpreter's own functions");
  }
  if (!first_line.starts_with("\x7f" "ELF"))
    throw Error(ErrorKind::target, fmt::format("'{}' is not an ELF binary: probes need one", path));
}

EventSet probe_events(const std::string& prog, const std::vector<std::string>& symbols, ProbeKind kind,
                      const ResolveOptions& opts) {
  const std::string path = resolve_program_path(prog);
  require_elf_binary(path);
  const std::string_view prefix = kind == ProbeKind::uprobe ? "uprobe" : "bp";
  EventSet set;
  for (const auto& s : symbols) {
    const auto colon = s.rfind(':');
    const std::string sym = colon == std::string::npos ? s : s.substr(colon + 1);
    if (sym.empty() || colon == 0)
      throw Error(ErrorKind::usage, fmt::format("malformed probe '{}'", s), "write FUNCTION or LIBRARY:FUNCTION");
    std::string file = path;
    if (colon != std::string::npos) {
      if (kind == ProbeKind::breakpoint)
        throw Error(ErrorKind::usage,
                    fmt::format("breakpoint on '{}': a library function's runtime address is not known "
                                "before the run",
                                s),
                    "use --probes (uprobes work on libraries) for it");
      file = find_library(path, s.substr(0, colon));
      require_elf_binary(file);
    }
    set.groups.push_back({set.events.size()});
    set.events.push_back(resolve_event(fmt::format("{}:{}:{}", prefix, file, sym), opts));
  }
  return set;
}

void require_openable_together(const EventSet& set) {
  const auto av = probe_event_set(set);
  for (std::size_t i = 0; i < av.size(); ++i) {
    if (av[i].available) continue;
    const std::size_t breakpoints = static_cast<std::size_t>(std::count_if(
        set.events.begin(), set.events.end(), [](const EventDesc& e) { return e.attr.type == PERF_TYPE_BREAKPOINT; }));
    const std::string asked =
        av[i].err == ENOSPC && breakpoints > 0 ? fmt::format(" ({} breakpoints asked for)", breakpoints) : "";
    throw Error(ErrorKind::event, fmt::format("{}: {}{}", set.events[i].name, av[i].reason, asked), av[i].hint);
  }
}

std::vector<std::string> auto_probe_symbols(const std::string& prog, std::size_t n) {
  const std::string path = resolve_program_path(prog);
  require_elf_binary(path);
  if (n == 0) return {};
  const ElfSymbols elf = ElfSymbols::load(path);
  if (!elf.has_symtab())
    throw Error(ErrorKind::event, fmt::format("'{}' is stripped (no .symtab): no functions to choose probes from", path),
                "rebuild the program without stripping it, or name exported functions with --probes SYM");
  const auto [lo, hi] = text_range(path);
  std::vector<ElfSymbol> picks;
  for (const auto& f : elf.functions())
    if (f.type == STT_FUNC && f.size > 0 && f.value >= lo && f.value < hi && !excluded_from_auto(f)) picks.push_back(f);
  std::sort(picks.begin(), picks.end(), [](const ElfSymbol& a, const ElfSymbol& b) {
    return a.size != b.size ? a.size > b.size : a.name < b.name;
  });
  std::vector<std::string> names;
  for (const auto& p : picks) names.push_back(p.name);
  if (names.size() < n)
    throw Error(ErrorKind::usage,
                fmt::format("--probes auto:{}: '{}' has only {} functions to probe: {}", n, path, names.size(),
                            fmt::join(names, ", ")),
                fmt::format("ask for auto:{} or fewer, or name functions of its libraries (LIB:SYM)", names.size()));
  names.resize(n);
  return names;
}

std::vector<ProbeHit> probe_hits(const std::vector<Reading>& readings, const EventSet& set,
                                 const std::vector<std::size_t>& probe_index) {
  std::vector<ProbeHit> hits;
  for (std::size_t i : probe_index) {
    if (i >= readings.size() || i >= set.events.size())
      throw Error(ErrorKind::internal, fmt::format("probe index {} outside {} readings", i, readings.size()));
    const Reading& r = readings[i];
    if (r.multiplexed)
      throw Error(ErrorKind::host,
                  fmt::format("{} was multiplexed (ran {} of {} ns): its hit count would be an estimate", r.name,
                              r.time_running, r.time_enabled),
                  "open fewer counters at once");
    hits.push_back({set.events[i].name, set.events[i].probe_symbol, r.raw});
  }
  return hits;
}

EventSet concat_events(const EventSet& a, const EventSet& b, std::vector<std::size_t>* b_index) {
  EventSet out = a;
  const std::size_t shift = a.events.size();
  if (out.groups.empty())  // a's events alone: make that explicit before adding groups
    for (std::size_t i = 0; i < shift; ++i) out.groups.push_back({i});
  out.events.insert(out.events.end(), b.events.begin(), b.events.end());
  if (b.groups.empty()) {
    for (std::size_t i = 0; i < b.events.size(); ++i) out.groups.push_back({shift + i});
  } else {
    for (auto g : b.groups) {
      for (auto& i : g) i += shift;
      out.groups.push_back(std::move(g));
    }
  }
  if (b_index) {
    b_index->clear();
    for (std::size_t i = 0; i < b.events.size(); ++i) b_index->push_back(shift + i);
  }
  return out;
}

}  // namespace obscheck
