// parse_events / resolve_event: from a --counters spec to encoded EventDescs.
#include <fmt/format.h>

#include <fnmatch.h>

#include <algorithm>
#include <cctype>
#include <filesystem>
#include <fstream>
#include <optional>
#include <sstream>

#include "events/did_you_mean.h"
#include "events/elf_symbols.h"
#include "events/event.h"
#include "events/libpfm_events.h"
#include "events/papi_presets.h"
#include "events/perf_names.h"
#include "events/sysfs_pmu.h"
#include "util/error.h"
#include "util/text.h"

#include <linux/hw_breakpoint.h>
#include <perfmon/pfmlib.h>

namespace obscheck {
namespace {

using text::trim;

constexpr std::uint64_t cache_config(perf_hw_cache_id id, perf_hw_cache_op_id op,
                                     perf_hw_cache_op_result_id result) {
  // PERF_TYPE_HW_CACHE config layout: id | op << 8 | result << 16 (perf_event_open(2)).
  return static_cast<std::uint64_t>(id) | (static_cast<std::uint64_t>(op) << 8) |
         (static_cast<std::uint64_t>(result) << 16);
}

struct Alias {
  const char* name;
  const char* description;
  perf_type_id type;  // PERF_TYPE_MAX marks tsc, which comes from the msr PMU in sysfs
  std::uint64_t config;
  const char* perf_reads;  // what perf reads the same spelling as, when it differs; else nullptr
};

// obscheck's short names. Those perf also knows mean what perf means, except l1d and
// l1i (event.h says why); perf's other names (cs, faults, L1-dcache-loads, ...) resolve
// through events/perf_names.h.
constexpr Alias kAliases[] = {
    {"cycles", "CPU cycles", PERF_TYPE_HARDWARE, PERF_COUNT_HW_CPU_CYCLES, nullptr},
    {"instructions", "instructions retired", PERF_TYPE_HARDWARE, PERF_COUNT_HW_INSTRUCTIONS, nullptr},
    {"l1d", "L1 data cache read misses (= L1-dcache-load-misses)", PERF_TYPE_HW_CACHE,
     cache_config(PERF_COUNT_HW_CACHE_L1D, PERF_COUNT_HW_CACHE_OP_READ, PERF_COUNT_HW_CACHE_RESULT_MISS),
     "L1-dcache-loads (type 3 config 0x0, the accesses)"},
    {"l1i", "L1 instruction cache read misses (= L1-icache-load-misses)", PERF_TYPE_HW_CACHE,
     cache_config(PERF_COUNT_HW_CACHE_L1I, PERF_COUNT_HW_CACHE_OP_READ, PERF_COUNT_HW_CACHE_RESULT_MISS),
     "L1-icache-loads (type 3 config 0x1, the accesses)"},
    {"llc", "last-level cache read misses (= LLC-load-misses)", PERF_TYPE_HW_CACHE,
     cache_config(PERF_COUNT_HW_CACHE_LL, PERF_COUNT_HW_CACHE_OP_READ, PERF_COUNT_HW_CACHE_RESULT_MISS), nullptr},
    {"branches", "branch instructions retired", PERF_TYPE_HARDWARE, PERF_COUNT_HW_BRANCH_INSTRUCTIONS, nullptr},
    {"branch-misses", "mispredicted branches", PERF_TYPE_HARDWARE, PERF_COUNT_HW_BRANCH_MISSES, nullptr},
    {"task-clock", "CPU time of the task, ns (software)", PERF_TYPE_SOFTWARE, PERF_COUNT_SW_TASK_CLOCK, nullptr},
    {"cpu-clock", "CPU clock, ns (software timer)", PERF_TYPE_SOFTWARE, PERF_COUNT_SW_CPU_CLOCK, nullptr},
    {"page-faults", "page faults (software; perf also: faults)", PERF_TYPE_SOFTWARE, PERF_COUNT_SW_PAGE_FAULTS, nullptr},
    {"minor-faults", "minor page faults (software)", PERF_TYPE_SOFTWARE, PERF_COUNT_SW_PAGE_FAULTS_MIN, nullptr},
    {"major-faults", "major page faults, I/O (software)", PERF_TYPE_SOFTWARE, PERF_COUNT_SW_PAGE_FAULTS_MAJ, nullptr},
    {"ctx-switches", "context switches (software; perf: context-switches, cs)", PERF_TYPE_SOFTWARE,
     PERF_COUNT_SW_CONTEXT_SWITCHES, nullptr},
    {"migrations", "CPU migrations (software)", PERF_TYPE_SOFTWARE, PERF_COUNT_SW_CPU_MIGRATIONS, nullptr},
    {"tsc", "time-stamp counter ticks (msr/tsc/)", PERF_TYPE_MAX, 0, nullptr},
};

const Alias* find_alias(std::string_view name) {
  for (const auto& a : kAliases)
    if (name == a.name) return &a;
  return nullptr;
}

bool is_cpu_pmu(std::string_view pmu) { return pmu == "cpu" || pmu.starts_with("cpu_"); }

SysfsPmu require_pmu(const ResolveOptions& opts, const std::string& name, std::string_view spec) {
  if (auto p = read_sysfs_pmu(opts.sysfs_root, name)) return *p;
  if (is_cpu_pmu(name))
    throw Error(ErrorKind::event,
                fmt::format("'{}': no hardware PMU on this host (no {}/{}; a VM without PMU "
                            "passthrough?)",
                            spec, opts.sysfs_root, name),
                "count software events instead: --counters task-clock,page-faults,ctx-switches,tsc"
                " — or use the simulated backend (--backend sim)");
  throw Error(ErrorKind::event,
              fmt::format("'{}': no PMU '{}' on this host (no {}/{}){}", spec, name, opts.sysfs_root,
                          name, did_you_mean_suffix(name, list_sysfs_pmus(opts.sysfs_root))),
              fmt::format("the PMUs here: ls {}", opts.sysfs_root));
}

std::string probe_usage(std::string_view kind) {
  return fmt::format("write {}:PROGRAM:FUNCTION, e.g. {}:./calls:obs_hot", kind, kind);
}

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

std::vector<std::string> known_names(const ResolveOptions& opts, bool with_papi) {
  std::vector<std::string> names;
  for (const auto& a : kAliases) names.emplace_back(a.name);
  for (auto& n : perf_legacy_spellings()) names.push_back(std::move(n));
  for (const auto& p : list_sysfs_pmus(opts.sysfs_root))
    if (auto pmu = read_sysfs_pmu(opts.sysfs_root, p))
      for (const auto& [ev, _] : pmu->events) names.push_back(fmt::format("{}/{}/", p, ev));
  try {
    for (const auto& e : pfm_active_events()) {
      names.push_back(e.name.substr(e.name.find("::") + 2));
      names.push_back(e.name);
    }
  } catch (const Error&) {
    // libpfm4 unusable: suggestions come from the other sources.
  }
  try {
    if (with_papi)
      for (auto& n : papi_preset_names()) names.push_back(std::move(n));
  } catch (const Error&) {
    // PAPI cannot be loaded: likewise.
  }
  return names;
}

[[noreturn]] void throw_unknown(std::string_view spec, const ResolveOptions& opts) {
  const bool papi = spec.starts_with("PAPI_");
  throw Error(ErrorKind::event,
              fmt::format("unknown event '{}'{}", spec,
                          did_you_mean_suffix(spec, known_names(opts, papi))),
              "list what this host offers with: obscheck events --all");
}

// True when a libpfm4 string names a privilege level itself (":u", ":k=1", ":h=0"):
// then libpfm4's encoding of it stands.
bool names_privilege_level(std::string_view spec) {
  for (std::size_t at = spec.find(':'); at != std::string_view::npos; at = spec.find(':', at + 1)) {
    std::string_view term = spec.substr(at + 1);
    term = term.substr(0, term.find(':'));
    if (term.size() >= 1 && (term[0] == 'u' || term[0] == 'k' || term[0] == 'h') &&
        (term.size() == 1 || term[1] == '='))
      return true;
  }
  return false;
}

EventDesc desc_from_pfm(const PfmEncoding& enc, std::string_view spec, const char* source) {
  EventDesc d;
  d.spec = std::string(spec);
  d.name = d.spec;
  d.source = source;
  d.attr = enc.attr;
  d.hardware = enc.hardware || enc.attr.type == PERF_TYPE_HARDWARE ||
               enc.attr.type == PERF_TYPE_HW_CACHE || enc.attr.type == PERF_TYPE_RAW;
  d.pmu = d.hardware ? "cpu" : enc.attr.type == PERF_TYPE_SOFTWARE ? "software" : enc.pmu;
  // The privilege levels are perf's (event.h), not whatever a libpfm4 version or host
  // defaults to (libpfm4 has set exclude_hv for PFM_PLM3 on some hosts and not on
  // others): unless the string names a level itself, every level counts.
  if (!names_privilege_level(spec)) {
    d.attr.exclude_user = d.attr.exclude_kernel = d.attr.exclude_hv = 0;
    d.attr.exclude_guest = 1;
  }
  return d;
}

EventDesc from_papi(std::string_view spec, const ResolveOptions& opts) {
  auto preset = papi_preset(spec);
  if (!preset) {
    if (!papi_status().initialized)
      throw Error(ErrorKind::event,
                  fmt::format("'{}' cannot be resolved: {}", spec, papi_unavailable_reason()));
    throw_unknown(spec, opts);
  }
  if (preset->natives.empty())
    throw Error(ErrorKind::event,
                fmt::format("'{}' is not available: {}", spec, papi_unavailable_reason()),
                "name a native event instead (obscheck events --all lists them), an obscheck "
                "alias, or use the simulated backend (--backend sim)");
  if (preset->natives.size() > 1)
    throw Error(ErrorKind::event,
                fmt::format("'{}' is derived by PAPI ({} of {} native events); obscheck counts "
                            "single events",
                            spec, preset->derived, preset->natives.size()),
                fmt::format("count its natives as a group: {{{}}}", [&] {
                  std::string s;
                  for (const auto& n : preset->natives) s += (s.empty() ? "" : ",") + n;
                  return s;
                }()));
  int err = 0;
  auto enc = pfm_encode(preset->natives[0], &err);
  if (!enc)
    throw Error(ErrorKind::event,
                fmt::format("'{}' maps to native '{}', which libpfm4 cannot encode: {}", spec,
                            preset->natives[0], pfm_error_text(err)));
  return desc_from_pfm(*enc, spec, "papi");
}

// ---- perf's grammar -------------------------------------------------------------

[[noreturn]] void syntax_error(std::string_view whole, std::size_t column, std::string what,
                               std::string hint = {}) {
  throw EventSyntaxError(std::move(what), std::move(hint), std::string(whole), column);
}

// perf's numbers: decimal or 0x hex (PE_VALUE).
std::optional<std::uint64_t> parse_number(std::string_view t) {
  if (t.empty()) return std::nullopt;
  int base = 10;
  if (t.size() > 2 && t[0] == '0' && (t[1] == 'x' || t[1] == 'X')) {
    base = 16;
    t.remove_prefix(2);
  }
  std::uint64_t v = 0;
  for (char c : t) {
    int d;
    if (c >= '0' && c <= '9') d = c - '0';
    else if (base == 16 && c >= 'a' && c <= 'f') d = c - 'a' + 10;
    else if (base == 16 && c >= 'A' && c <= 'F') d = c - 'A' + 10;
    else return std::nullopt;
    if (v > (~0ULL - static_cast<std::uint64_t>(d)) / static_cast<std::uint64_t>(base)) return std::nullopt;
    v = v * static_cast<std::uint64_t>(base) + static_cast<std::uint64_t>(d);
  }
  return v;
}

// rNNN: a raw hardware event, hex digits after the r (perf's lexer rule).
std::optional<std::uint64_t> parse_raw(std::string_view t) {
  if (t.size() < 2 || t[0] != 'r') return std::nullopt;
  for (char c : t.substr(1))
    if (!std::isxdigit(static_cast<unsigned char>(c))) return std::nullopt;
  return std::stoull(std::string(t.substr(1)), nullptr, 16);
}

// perf's event_attr_init: every event starts with exclude_guest set (perf counts the
// host, not guests, unless told :G).
perf_event_attr initial_attr() {
  perf_event_attr a{};
  a.size = sizeof(a);
  a.exclude_guest = 1;
  return a;
}

constexpr std::string_view kModifierChars = "ukhpPGHSDIWeb";
constexpr std::size_t kMaxModifierLength = 15;  // perf: strlen("ukhGHpppPSDIWeb")

// Checks a modifier string as perf does: known letters, each once except p (at most 3).
void check_modifiers(std::string_view mods, std::string_view whole, std::size_t column) {
  int p = 0;
  for (std::size_t i = 0; i < mods.size(); ++i) {
    const char c = mods[i];
    if (kModifierChars.find(c) == std::string_view::npos)
      syntax_error(whole, column + i, fmt::format("unknown modifier '{}'", c),
                   "modifiers: u k h (levels), G H (guest/host), I (exclude idle), p pp ppp (precise), "
                   "P (max precise), S (leader sampling), D (pinned), e (exclusive), W (weak group)");
    if (c == 'p' && ++p > 3)
      syntax_error(whole, column + i, "more than three 'p' modifiers", "precise_ip goes up to 3: ppp");
    if (c != 'p' && mods.substr(0, i).find(c) != std::string_view::npos)
      syntax_error(whole, column + i, fmt::format("modifier '{}' given twice", c),
                   "give each modifier once; only p repeats (p, pp, ppp)");
  }
  if (mods.size() > kMaxModifierLength)
    syntax_error(whole, column + kMaxModifierLength, "too many modifiers");
}

// perf's modifier semantics (get_event_modifier in tools/perf/util/parse-events.c): the
// first of u/k/h excludes every level, then each given one is included again; the first
// of G/H excludes both, then each given one is included; u and p exclude the guest
// unless G or H was given. An event's own modifiers start from nothing; a group's
// modifiers (`group`) start from each member's state. D and e apply to a group leader.
void apply_modifiers(EventDesc& d, std::string_view mods, bool group, bool leader) {
  perf_event_attr& a = d.attr;
  bool eu = group && a.exclude_user, ek = group && a.exclude_kernel, eh = group && a.exclude_hv;
  bool eH = group && a.exclude_host, eG = group && a.exclude_guest, eI = group && a.exclude_idle;
  unsigned precise = group ? a.precise_ip : 0;
  bool pinned = group && a.pinned, exclusive = group && a.exclusive;
  bool sample_read = group && d.sample_read, precise_max = group && d.precise_max;
  bool weak = group && d.weak_group;
  bool exclude = eu || ek || eh;
  bool exclude_gh = group && d.exclude_gh;
  for (char c : mods) {
    switch (c) {
      case 'u':
        if (!exclude) exclude = eu = ek = eh = true;
        if (!exclude_gh) eG = true;
        eu = false;
        break;
      case 'k':
        if (!exclude) exclude = eu = ek = eh = true;
        ek = false;
        break;
      case 'h':
        if (!exclude) exclude = eu = ek = eh = true;
        eh = false;
        break;
      case 'G':
        if (!exclude_gh) exclude_gh = eG = eH = true;
        eG = false;
        break;
      case 'H':
        if (!exclude_gh) exclude_gh = eG = eH = true;
        eH = false;
        break;
      case 'I': eI = true; break;
      case 'p':
        ++precise;
        if (!exclude_gh) eG = true;  // precise sampling requires exclude_guest
        break;
      case 'P': precise_max = true; break;
      case 'S': sample_read = true; break;
      case 'D': pinned = true; break;
      case 'e': exclusive = true; break;
      case 'W': weak = true; break;
      default: break;  // 'b' (count with a BPF program) changes nothing in the attr
    }
  }
  a.exclude_user = eu;
  a.exclude_kernel = ek;
  a.exclude_hv = eh;
  a.exclude_host = eH;
  a.exclude_guest = eG;
  a.exclude_idle = eI;
  a.precise_ip = std::min(precise, 3u);
  d.exclude_gh = exclude_gh;
  d.sample_read = sample_read;
  d.precise_max = precise_max;
  d.weak_group = weak;
  if (leader) {
    a.pinned = pinned;
    a.exclusive = exclusive;
  }
}

// One term of NAME/terms/: key, value (nullopt when written bare), column in the list.
struct Term {
  std::string key;
  std::optional<std::string> value;
  std::size_t column;
};

std::vector<Term> split_terms(std::string_view terms, std::size_t column, std::string_view whole) {
  std::vector<Term> out;
  std::size_t i = 0;
  while (i <= terms.size()) {
    std::size_t j = i;
    bool quoted = false;
    while (j < terms.size() && (quoted || terms[j] != ',')) {
      if (terms[j] == '\'') quoted = !quoted;
      ++j;
    }
    if (quoted) syntax_error(whole, column + i, "unclosed quote in a term");
    const std::string_view t = terms.substr(i, j - i);
    if (t.empty()) {
      if (!terms.empty()) syntax_error(whole, column + i, "empty term");
    } else {
      Term term;
      term.column = column + i;
      const auto eq = t.find('=');
      term.key = std::string(t.substr(0, eq));
      if (eq != std::string_view::npos) {
        std::string_view v = t.substr(eq + 1);
        if (v.size() >= 2 && v.front() == '\'' && v.back() == '\'') v = v.substr(1, v.size() - 2);
        term.value = std::string(v);
      }
      if (term.key.empty()) syntax_error(whole, term.column, "a term without a name");
      out.push_back(std::move(term));
    }
    i = j + 1;
  }
  return out;
}

// perf's config terms that any event takes. config/config1/config2/name change what
// is counted or its name; the others matter only when sampling.
bool is_common_term(std::string_view k) {
  static constexpr std::string_view kSampling[] = {
      "period", "freq", "branch_type", "time", "call-graph", "stack-size", "inherit",
      "no-inherit", "max-stack", "nr", "overwrite", "no-overwrite", "driver-config",
      "percore", "aux-output", "aux-sample-size", "metric-id"};
  for (auto s : kSampling)
    if (k == s) return true;
  return false;
}

std::uint64_t term_number(const Term& t, std::string_view whole) {
  if (!t.value) return 1;  // a bare term means 1, as in perf
  if (auto v = parse_number(*t.value)) return *v;
  syntax_error(whole, t.column + t.key.size() + 1,
               fmt::format("'{}' is not a number for term '{}'", *t.value, t.key), "write decimal or 0x hex");
}

// Applies the terms every event takes; returns the ones left (PMU format terms).
std::vector<Term> apply_common_terms(EventDesc& d, std::vector<Term> terms, std::string_view whole) {
  std::vector<Term> rest;
  for (auto& t : terms) {
    if (t.key == "config") d.attr.config = term_number(t, whole);
    else if (t.key == "config1") d.attr.config1 = term_number(t, whole);
    else if (t.key == "config2") d.attr.config2 = term_number(t, whole);
    else if (t.key == "name") {
      if (!t.value || t.value->empty()) syntax_error(whole, t.column, "name= needs a value");
      d.name = *t.value;
    } else if (is_common_term(t.key)) d.sampling_terms.emplace_back(t.key, t.value.value_or("1"));
    else if (auto raw = parse_raw(t.key); raw && !t.value) d.attr.config = *raw;
    else if (t.key.starts_with("r0x") && !t.value && parse_number(std::string_view(t.key).substr(1)))
      d.attr.config = *parse_number(std::string_view(t.key).substr(1));
    else rest.push_back(std::move(t));
  }
  return rest;
}

// ---- tracepoints ----------------------------------------------------------------

bool has_glob(std::string_view s) { return s.find_first_of("*?[") != std::string_view::npos; }

bool valid_tracepoint_part(std::string_view s) {
  if (s.empty()) return false;
  for (char c : s)
    if (!(std::isalnum(static_cast<unsigned char>(c)) || c == '_' || c == '-' || c == '*' || c == '?' ||
          c == '[' || c == ']' || c == '!' || c == '.'))
      return false;
  return true;
}

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

// ---- one event --------------------------------------------------------------------

struct ItemContext {
  std::string_view whole;   // the list as written
  std::size_t column;       // where this item starts in it
  const ResolveOptions& opts;
};

EventDesc perf_desc(std::string_view text, std::uint32_t type, std::uint64_t config, const char* source,
                    std::string resolved) {
  EventDesc d;
  d.spec = std::string(text);
  d.name = d.spec;
  d.source = source;
  d.attr = initial_attr();
  d.attr.type = type;
  d.attr.config = config;
  d.hardware = type == PERF_TYPE_HARDWARE || type == PERF_TYPE_HW_CACHE || type == PERF_TYPE_RAW;
  d.pmu = d.hardware ? "cpu" : type == PERF_TYPE_SOFTWARE ? "software"
          : type == PERF_TYPE_TRACEPOINT                  ? "tracepoint"
          : type == PERF_TYPE_BREAKPOINT                  ? "breakpoint"
                                                          : fmt::format("type {}", type);
  d.resolved = std::move(resolved);
  return d;
}

// A name that needs no PMU description: an obscheck alias, a perf legacy name, a raw
// rNNN, or TYPE:CONFIG (when `type_config` holds both numbers).
std::optional<EventDesc> symbolic(std::string_view name, std::string_view text, const ItemContext& cx) {
  if (const Alias* a = find_alias(name)) {
    EventDesc d;
    if (a->type == PERF_TYPE_MAX) {  // tsc = msr/tsc/
      const SysfsPmu pmu = require_pmu(cx.opts, "msr", text);
      d.attr = encode_sysfs_event(pmu, "tsc");
      d.source = "alias";
      d.pmu = "msr";
      d.resolved = "obscheck alias for msr/tsc/ (sysfs)";
    } else {
      const auto perf = perf_legacy_name(name);
      d = perf_desc(text, a->type, a->config, "alias",
                    a->perf_reads != nullptr
                        ? fmt::format("obscheck alias: {}, type {} config {:#x}; perf reads '{}' as {}", a->description,
                                      a->type, a->config, name, a->perf_reads)
                        : perf ? fmt::format("obscheck alias = perf's {}", perf->canonical)
                               : fmt::format("obscheck alias: {}", a->description));
    }
    d.spec = std::string(text);
    d.name = std::string(name);
    return d;
  }
  if (name == "duration_time") {
    EventDesc d = perf_desc(text, PERF_TYPE_SOFTWARE, PERF_COUNT_SW_DUMMY, "perf",
                            "perf tool event duration_time: the run's wall time in ns, from obscheck's clock "
                            "(opened as perf opens it: the dummy event, type 1 config 0x9)");
    d.duration_time = true;
    return d;
  }
  if (auto p = perf_legacy_name(name))
    return perf_desc(text, p->type, p->config, "perf", fmt::format("perf legacy name {}", p->canonical));
  if (auto raw = parse_raw(name))
    return perf_desc(text, PERF_TYPE_RAW, *raw, "perf", fmt::format("raw event {:#x} of the CPU PMU", *raw));
  return std::nullopt;
}

std::optional<EventDesc> type_config(std::string_view type, std::string_view config, std::string_view text) {
  const auto t = parse_number(type), c = parse_number(config);
  if (!t || !c || *t > 0xffffffffULL) return std::nullopt;
  return perf_desc(text, static_cast<std::uint32_t>(*t), *c, "perf",
                   fmt::format("numeric type {} config {:#x}", *t, *c));
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

std::size_t closing_slash(std::string_view text, std::size_t open) {
  bool quoted = false;
  for (std::size_t i = open + 1; i < text.size(); ++i) {
    if (text[i] == '\'') quoted = !quoted;
    else if (text[i] == '/' && !quoted) return i;
  }
  return std::string_view::npos;
}

// NAME/terms/mods, where NAME is a sysfs PMU, a symbolic name or TYPE:CONFIG.
EventDesc with_terms(std::string_view text, std::size_t slash, const ItemContext& cx) {
  const std::size_t close = closing_slash(text, slash);
  if (close == std::string_view::npos)
    syntax_error(cx.whole, cx.column + slash, "unclosed '/': terms are written NAME/term,term/",
                 "e.g. cpu/event=0x3c,umask=0x00/ or cycles/period=100000/");
  const std::string_view base = text.substr(0, slash);
  std::vector<Term> terms = split_terms(text.substr(slash + 1, close - slash - 1), cx.column + slash + 1, cx.whole);
  std::string_view mods = text.substr(close + 1);
  std::size_t mods_col = close + 1;
  if (mods.starts_with(":")) {
    mods.remove_prefix(1);
    ++mods_col;
  }
  if (!mods.empty()) check_modifiers(mods, cx.whole, cx.column + mods_col);
  if (base.empty()) syntax_error(cx.whole, cx.column, "no PMU or event name before '/'");

  EventDesc d;
  std::optional<EventDesc> sym;
  if (auto p = read_sysfs_pmu(cx.opts.sysfs_root, std::string(base))) {
    d.spec = std::string(text);
    d.name = d.spec;
    d.source = "sysfs";
    d.pmu = p->name;
    d.hardware = is_cpu_pmu(p->name);
    d.attr.size = sizeof(d.attr);
    d.attr.type = p->type;
    std::vector<Term> rest = apply_common_terms(d, std::move(terms), cx.whole);
    std::string joined;
    for (const Term& t : rest) joined += (joined.empty() ? "" : ",") + t.key + (t.value ? "=" + *t.value : "");
    const perf_event_attr words = encode_sysfs_event(*p, joined);
    d.attr.config |= words.config;
    d.attr.config1 |= words.config1;
    d.attr.config2 |= words.config2;
    // perf sets exclude_guest on every event, then opens again without it where a PMU
    // refuses it (msr and other dynamically numbered PMUs: EINVAL); obscheck opens once,
    // so it encodes what perf ends up opening: exclude_guest on the CPU PMU and the
    // kernel's fixed PMUs (software, tracepoint, breakpoint), which accept it.
    d.attr.exclude_guest = d.hardware || p->type < PERF_TYPE_MAX ? 1 : 0;
    d.resolved = fmt::format("sysfs PMU {} (type {}) terms '{}'", p->name, p->type,
                             text.substr(slash + 1, close - slash - 1));
  } else if (const auto colon = base.find(':'); colon != std::string_view::npos &&
                                                (sym = type_config(base.substr(0, colon), base.substr(colon + 1), text))) {
    d = *sym;
  } else if ((sym = symbolic(base, text, cx))) {
    d = *sym;
  } else if (is_cpu_pmu(base)) {
    require_pmu(cx.opts, std::string(base), text);  // throws: no hardware PMU here
  } else {
    std::vector<std::string> pmus = list_sysfs_pmus(cx.opts.sysfs_root);
    syntax_error(cx.whole, cx.column,
                 fmt::format("no PMU or event '{}' on this host (no {}/{}){}", base, cx.opts.sysfs_root, base,
                             did_you_mean_suffix(base, pmus)),
                 fmt::format("the PMUs here: ls {}", cx.opts.sysfs_root));
  }
  if (d.source != "sysfs") {
    const std::vector<Term> rest = apply_common_terms(d, std::move(terms), cx.whole);
    if (!rest.empty())
      syntax_error(cx.whole, rest.front().column,
                   fmt::format("'{}' takes no term '{}'", base, rest.front().key),
                   "terms on a named event: config, config1, config2, name, period, freq, call-graph, time, ...");
    d.spec = std::string(text);
    if (d.name == std::string(base)) d.name = d.spec;
  }
  if (!mods.empty()) apply_modifiers(d, mods, false, true);
  return d;
}

std::string probe_prefix(std::string_view t) {
  for (std::string_view p : {"uprobe:", "bp:", "mem:"})
    if (t.starts_with(p)) return std::string(p);
  return {};
}

// d with the modifiers written from text[mods_at] on (none when mods_at is past the end).
EventDesc with_mods(EventDesc d, std::string_view text, std::size_t mods_at, const ItemContext& cx) {
  if (mods_at < text.size()) {
    const std::string_view mods = text.substr(mods_at);
    check_modifiers(mods, cx.whole, cx.column + mods_at);
    if (d.source == "alias") d.name += fmt::format(":{}", mods);
    apply_modifiers(d, mods, false, true);
  }
  return d;
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

// What libpfm4 makes of the text (the last resolver), or the error that names why not.
std::vector<EventDesc> from_pfm_or_unknown(std::string_view text, bool has_colon, const ItemContext& cx) {
  int err = 0;
  if (auto enc = pfm_encode(text, &err)) {
    EventDesc d = desc_from_pfm(*enc, text, "libpfm4");
    d.resolved = "libpfm4 (pfm_get_os_event_encoding)";
    return {d};
  }
  if (err != PFM_ERR_NOTFOUND)
    throw Error(ErrorKind::event, fmt::format("libpfm4 cannot encode '{}': {}", text, pfm_error_text(err)),
                "check its unit masks and modifiers with libpfm4's showevtinfo");
  if (has_colon) {
    std::error_code ec;
    if (!std::filesystem::exists(std::filesystem::path(cx.opts.tracefs_root) / "events", ec))
      throw Error(ErrorKind::event, fmt::format("unknown event '{}'", text),
                  fmt::format("a tracepoint SYS:EVENT cannot be resolved: {}/events cannot be read here "
                              "(tracefs not mounted, or root only)",
                              cx.opts.tracefs_root));
  }
  throw_unknown(text, cx.opts);
}

// One event as written (no top-level comma or brace) at cx.column: usually one
// EventDesc, several for a tracepoint wildcard.
std::vector<EventDesc> resolve_item(std::string_view text, const ItemContext& cx) {
  if (text.starts_with("uprobe:")) return {from_probe(text, "uprobe", cx.opts)};
  if (text.starts_with("bp:")) return {from_probe(text, "bp", cx.opts)};
  if (text.starts_with("mem:")) return {breakpoint(text, cx)};
  if (const auto slash = text.find('/'); slash != std::string_view::npos) return {with_terms(text, slash, cx)};

  const auto colon = text.find(':');
  const std::string_view first = text.substr(0, colon);
  if (auto d = symbolic(first, text, cx)) {
    if (colon != std::string_view::npos && colon + 1 == text.size())
      syntax_error(cx.whole, cx.column + colon + 1, "nothing after ':'", "write a modifier such as :u, or none");
    return {with_mods(*d, text, colon == std::string_view::npos ? text.size() : colon + 1, cx)};
  }
  if (colon != std::string_view::npos) {
    const auto colon2 = text.find(':', colon + 1);
    const std::string_view second = text.substr(colon + 1, colon2 == std::string_view::npos ? std::string_view::npos
                                                                                            : colon2 - colon - 1);
    const std::size_t mods_at = colon2 == std::string_view::npos ? text.size() : colon2 + 1;
    if (auto d = type_config(first, second, text)) return {with_mods(*d, text, mods_at, cx)};
    if (valid_tracepoint_part(first) && valid_tracepoint_part(second))
      if (auto tps = tracepoints(text, first, second, mods_at, cx); !tps.empty()) return tps;
  }
  if (text.starts_with("PAPI_")) return {from_papi(text, cx.opts)};
  return from_pfm_or_unknown(text, colon != std::string_view::npos, cx);
}

// Kernel level for events that would count it, decided once per list (event.h).
void apply_level_policy(EventSet& set, const ResolveOptions& opts) {
  KernelLevels levels = opts.kernel_levels;
  HostPerfFacts host;
  if (levels == KernelLevels::host) {
    host = read_host_perf_facts(opts.sysfs_root);
    levels = kernel_counting_allowed(host) ? KernelLevels::allowed : KernelLevels::forbidden;
  }
  if (levels == KernelLevels::allowed) return;
  std::size_t n = 0;
  for (EventDesc& e : set.events) {
    // The msr PMU refuses every exclude bit (EINVAL): user level only cannot be had
    // there, so it is left for the open to refuse with the real reason (paranoid).
    if (e.source == "uprobe" || e.pmu == "msr" || e.attr.exclude_user || e.attr.exclude_kernel) continue;
    e.attr.exclude_kernel = 1;
    e.attr.exclude_hv = 1;
    e.user_only_fallback = true;
    ++n;
  }
  // One sentence, the same for every list, so a caller that parses several lists can
  // say it once; which events it touched is in each EventDesc::user_only_fallback.
  if (n > 0)
    set.notes.push_back(fmt::format(
        "counting user level only: {} — as perf stat falls back to; to count the kernel too: "
        "sudo sysctl kernel.perf_event_paranoid=1, or give obscheck CAP_PERFMON (sudo setcap cap_perfmon=ep $(command -v obscheck))",
        opts.kernel_levels == KernelLevels::host
            ? fmt::format("perf_event_paranoid is {} and this user has no CAP_PERFMON", host.paranoid)
            : std::string("kernel counting is not allowed")));
}

// The list grammar: items separated by commas; [name]{items}[:mods] groups.
class ListParser {
 public:
  // `resolve` false: the grammar only (items are not looked up), for split_event_list,
  // so a malformed list gets the same error with the caret wherever it is read.
  ListParser(std::string_view whole, const ResolveOptions& opts, bool resolve = true)
      : s_(whole), opts_(opts), resolve_(resolve) {}

  EventSet parse() {
    list(false);
    if (set_.events.empty()) syntax_error(s_, 0, "empty event list");
    return std::move(set_);
  }

 private:
  void skip_ws() {
    while (i_ < s_.size() && std::isspace(static_cast<unsigned char>(s_[i_]))) ++i_;
  }

  // Items up to the end (or the closing brace of a group, left unconsumed).
  void list(bool in_group) {
    for (;;) {
      skip_ws();
      if (i_ == s_.size() || s_[i_] == ',' || (s_[i_] == '}' && in_group))
        syntax_error(s_, i_, "empty event in the list", "remove the extra comma, or name an event");
      if (s_[i_] == '}') syntax_error(s_, i_, "'}' closes no group", "a group is {a,b}");
      std::size_t name_end = i_;
      while (name_end < s_.size() && (std::isalnum(static_cast<unsigned char>(s_[name_end])) || s_[name_end] == '_' ||
                                      s_[name_end] == '-' || s_[name_end] == '.'))
        ++name_end;
      if (name_end < s_.size() && s_[name_end] == '{') {
        if (in_group) syntax_error(s_, name_end, "groups cannot contain groups", "write {a,b},{c,d}");
        group(std::string(s_.substr(i_, name_end - i_)), name_end);
      } else {
        item();
      }
      skip_ws();
      if (i_ == s_.size()) {
        if (in_group) syntax_error(s_, i_, "unclosed '{': a group ends with '}'", "close it: {a,b}");
        return;
      }
      if (s_[i_] == '}') {
        if (in_group) return;
        syntax_error(s_, i_, "'}' closes no group", "a group is {a,b}");
      }
      if (s_[i_] != ',') syntax_error(s_, i_, fmt::format("unexpected '{}'", s_[i_]), "separate events with commas");
      ++i_;
    }
  }

  void group(std::string name, std::size_t brace) {
    i_ = brace + 1;
    const std::size_t first = set_.events.size();
    const std::size_t groups_before = set_.groups.size();
    list(true);
    ++i_;  // '}'
    std::size_t mods_col = i_;
    std::string_view mods;
    if (i_ < s_.size() && s_[i_] == ':') {
      mods_col = i_ + 1;
      std::size_t j = mods_col;
      while (j < s_.size() && s_[j] != ',' && !std::isspace(static_cast<unsigned char>(s_[j]))) ++j;
      mods = s_.substr(mods_col, j - mods_col);
      if (mods.empty()) syntax_error(s_, mods_col, "nothing after ':'", "write a modifier such as :u, or none");
      check_modifiers(mods, s_, mods_col);
      i_ = j;
    } else if (i_ < s_.size() && s_[i_] != ',' && !std::isspace(static_cast<unsigned char>(s_[i_]))) {
      syntax_error(s_, i_, "unexpected text after a group", "a group is {a,b} or {a,b}:mods");
    }
    // The members were recorded as groups of one: make them one group.
    set_.groups.resize(groups_before);
    set_.group_names.resize(groups_before);
    std::vector<std::size_t> g;
    for (std::size_t k = first; k < set_.events.size(); ++k) {
      g.push_back(k);
      if (!mods.empty()) apply_modifiers(set_.events[k], mods, true, k == first);
    }
    set_.groups.push_back(std::move(g));
    set_.group_names.push_back(std::move(name));
  }

  void item() {
    const std::size_t start = i_;
    const std::string prefix = probe_prefix(s_.substr(i_));
    bool in_terms = false, quoted = false;
    while (i_ < s_.size()) {
      const char c = s_[i_];
      if (prefix.empty() && c == '/' && !quoted) in_terms = !in_terms;
      else if (in_terms && c == '\'') quoted = !quoted;
      else if (!in_terms && (c == ',' || c == '}' || c == '{' || std::isspace(static_cast<unsigned char>(c)))) break;
      ++i_;
    }
    if (in_terms) {
      const std::size_t slash = s_.substr(start, i_ - start).find('/');
      syntax_error(s_, start + slash, "unclosed '/': terms are written NAME/term,term/",
                   "e.g. cpu/event=0x3c,umask=0x00/ or cycles/period=100000/");
    }
    if (i_ < s_.size() && s_[i_] == '{') syntax_error(s_, i_, "unexpected '{'", "a group is {a,b} or name{a,b}");
    const std::string_view text = s_.substr(start, i_ - start);
    std::vector<EventDesc> got = resolve_ ? resolve_at(text, start) : std::vector<EventDesc>(1);
    for (EventDesc& d : got) {
      set_.groups.push_back({set_.events.size()});
      set_.group_names.emplace_back();
      set_.events.push_back(std::move(d));
    }
  }

  // An item's events; a name error carries the item's column.
  std::vector<EventDesc> resolve_at(std::string_view text, std::size_t start) const {
    try {
      return resolve_item(text, ItemContext{s_, start, opts_});
    } catch (const EventSyntaxError&) {
      throw;
    } catch (const Error& e) {
      if (e.kind() != ErrorKind::event) throw;
      throw EventSyntaxError(e.what(), e.hint(), std::string(s_), start);
    }
  }

  std::string_view s_;
  const ResolveOptions& opts_;
  const bool resolve_;
  std::size_t i_ = 0;
  EventSet set_;
};

}  // namespace

const std::vector<AliasInfo>& event_aliases() {
  static const std::vector<AliasInfo> list = [] {
    std::vector<AliasInfo> v;
    for (const auto& a : kAliases) v.push_back({a.name, a.description});
    return v;
  }();
  return list;
}

std::vector<std::string> split_event_list(std::string_view spec) {
  // The grammar's errors, with the caret, exactly as parse_events gives them.
  const ResolveOptions structure;
  ListParser(spec, structure, false).parse();
  std::vector<std::string> out;
  std::string cur;
  int depth = 0;
  bool in_terms = false;  // between the slashes of pmu/.../, where commas separate terms
  auto in_probe = [&] {
    std::string_view c = cur;
    while (!c.empty() && (c.front() == '{' || c.front() == ' ')) c.remove_prefix(1);
    return c.starts_with("uprobe:") || c.starts_with("bp:") || c.starts_with("mem:");
  };
  bool quoted = false;  // name='a,b' inside terms
  auto flush = [&] {
    std::string item = trim(cur);
    if (item.empty() || item == "{}")
      throw Error(ErrorKind::event, fmt::format("empty event in list '{}'", spec));
    out.push_back(std::move(item));
    cur.clear();
  };
  for (char c : spec) {
    if (in_terms && c == '\'') quoted = !quoted;
    if (c == '/' && !quoted && !in_probe()) in_terms = !in_terms;
    if (!in_terms && c == '{' && ++depth > 1)
      throw Error(ErrorKind::event, fmt::format("nested braces in '{}'", spec),
                  "groups cannot contain groups: {a,b},{c,d}");
    if (!in_terms && c == '}' && --depth < 0)
      throw Error(ErrorKind::event, fmt::format("unbalanced '}}' in '{}'", spec));
    if (c == ',' && depth == 0 && !in_terms) {
      flush();
      continue;
    }
    cur += c;
  }
  if (depth != 0) throw Error(ErrorKind::event, fmt::format("unclosed '{{' in '{}'", spec));
  if (in_terms) throw Error(ErrorKind::event, fmt::format("unclosed pmu/.../ in '{}'", spec));
  flush();
  return out;
}

std::string format_event_error(const EventSyntaxError& e) {
  const std::size_t col = std::min(e.column(), e.spec().size());
  return fmt::format("{} (column {})\n  {}\n  {}^", e.what(), col + 1, e.spec(), std::string(col, ' '));
}

EventDesc resolve_event(std::string_view raw, const ResolveOptions& opts) {
  const std::string spec = trim(raw);
  if (spec.empty()) throw Error(ErrorKind::event, "empty event name");
  EventSet set;
  set.events = resolve_item(spec, ItemContext{spec, 0, opts});
  if (set.events.size() != 1)
    throw Error(ErrorKind::event, fmt::format("'{}' names {} events, not one", spec, set.events.size()));
  apply_level_policy(set, opts);
  return std::move(set.events.front());
}

EventSet parse_events(std::string_view spec, const ResolveOptions& opts) {
  EventSet set = ListParser(spec, opts).parse();
  apply_level_policy(set, opts);
  return set;
}

EventSet parse_events(std::string_view spec) { return parse_events(spec, ResolveOptions{}); }

}  // namespace obscheck
