// parse_events / resolve_event: from a --counters spec to encoded EventDescs.
#include <fmt/format.h>

#include <algorithm>
#include <cctype>

#include "events/did_you_mean.h"
#include "events/elf_symbols.h"
#include "events/event.h"
#include "events/libpfm_events.h"
#include "events/papi_presets.h"
#include "events/sysfs_pmu.h"
#include "util/error.h"

#include <linux/hw_breakpoint.h>
#include <perfmon/pfmlib.h>

namespace obscheck {
namespace {

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
};

constexpr Alias kAliases[] = {
    {"cycles", "CPU cycles (user level)", PERF_TYPE_HARDWARE, PERF_COUNT_HW_CPU_CYCLES},
    {"instructions", "instructions retired (user level)", PERF_TYPE_HARDWARE,
     PERF_COUNT_HW_INSTRUCTIONS},
    {"l1d", "L1 data cache read misses", PERF_TYPE_HW_CACHE,
     cache_config(PERF_COUNT_HW_CACHE_L1D, PERF_COUNT_HW_CACHE_OP_READ,
                  PERF_COUNT_HW_CACHE_RESULT_MISS)},
    {"l1i", "L1 instruction cache read misses", PERF_TYPE_HW_CACHE,
     cache_config(PERF_COUNT_HW_CACHE_L1I, PERF_COUNT_HW_CACHE_OP_READ,
                  PERF_COUNT_HW_CACHE_RESULT_MISS)},
    {"llc", "last-level cache read misses", PERF_TYPE_HW_CACHE,
     cache_config(PERF_COUNT_HW_CACHE_LL, PERF_COUNT_HW_CACHE_OP_READ,
                  PERF_COUNT_HW_CACHE_RESULT_MISS)},
    {"branches", "branch instructions retired", PERF_TYPE_HARDWARE,
     PERF_COUNT_HW_BRANCH_INSTRUCTIONS},
    {"branch-misses", "mispredicted branches", PERF_TYPE_HARDWARE, PERF_COUNT_HW_BRANCH_MISSES},
    {"task-clock", "CPU time of the task, ns (software)", PERF_TYPE_SOFTWARE,
     PERF_COUNT_SW_TASK_CLOCK},
    {"cpu-clock", "CPU clock, ns (software timer)", PERF_TYPE_SOFTWARE, PERF_COUNT_SW_CPU_CLOCK},
    {"page-faults", "page faults (software)", PERF_TYPE_SOFTWARE, PERF_COUNT_SW_PAGE_FAULTS},
    {"minor-faults", "minor page faults (software)", PERF_TYPE_SOFTWARE,
     PERF_COUNT_SW_PAGE_FAULTS_MIN},
    {"major-faults", "major page faults, I/O (software)", PERF_TYPE_SOFTWARE,
     PERF_COUNT_SW_PAGE_FAULTS_MAJ},
    {"ctx-switches", "context switches (software)", PERF_TYPE_SOFTWARE,
     PERF_COUNT_SW_CONTEXT_SWITCHES},
    {"migrations", "CPU migrations (software)", PERF_TYPE_SOFTWARE, PERF_COUNT_SW_CPU_MIGRATIONS},
    {"tsc", "time-stamp counter ticks (msr/tsc/)", PERF_TYPE_MAX, 0},
};

const Alias* find_alias(std::string_view name) {
  for (const auto& a : kAliases)
    if (name == a.name) return &a;
  return nullptr;
}

std::string trim(std::string_view s) {
  const auto b = s.find_first_not_of(" \t\n");
  if (b == std::string_view::npos) return {};
  const auto e = s.find_last_not_of(" \t\n");
  return std::string(s.substr(b, e - b + 1));
}

bool is_cpu_pmu(std::string_view pmu) { return pmu == "cpu" || pmu.starts_with("cpu_"); }

// perf-style modifiers: u k h select privilege levels, each p raises precise_ip.
void apply_modifiers(perf_event_attr& a, std::string_view mods, std::string_view spec) {
  if (mods.empty()) return;
  bool u = false, k = false, h = false;
  int precise = 0;
  for (char c : mods) {
    switch (c) {
      case 'u': u = true; break;
      case 'k': k = true; break;
      case 'h': h = true; break;
      case 'p': ++precise; break;
      default:
        throw Error(ErrorKind::event,
                    fmt::format("unsupported modifier '{}' in '{}'", c, spec),
                    "modifiers are u (user), k (kernel), h (hypervisor), p/pp/ppp (precise)");
    }
  }
  if (precise > 3)
    throw Error(ErrorKind::event, fmt::format("unsupported modifier '{}' in '{}'", mods, spec),
                "at most ppp (precise_ip 3)");
  if (u || k || h) {
    a.exclude_user = !u;
    a.exclude_kernel = !k;
    a.exclude_hv = !h;
  }
  a.precise_ip = static_cast<unsigned>(precise);
}

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

EventDesc from_sysfs(std::string_view spec, const ResolveOptions& opts) {
  // pmu/terms/mods
  const auto first = spec.find('/');
  const auto last = spec.rfind('/');
  if (first == 0 || first == last)
    throw Error(ErrorKind::event,
                fmt::format("malformed PMU event '{}': expected pmu/terms/", spec),
                "e.g. cpu/event=0x3c,umask=0x00/ or msr/tsc/");
  const std::string pmu_name(spec.substr(0, first));
  const std::string terms(spec.substr(first + 1, last - first - 1));
  if (trim(terms).empty())
    throw Error(ErrorKind::event, fmt::format("'{}' names no event or terms", spec));
  const SysfsPmu pmu = require_pmu(opts, pmu_name, spec);
  EventDesc d;
  d.spec = std::string(spec);
  d.name = d.spec;
  d.source = "sysfs";
  d.pmu = pmu_name;
  d.hardware = is_cpu_pmu(pmu_name);
  d.attr = encode_sysfs_event(pmu, terms);
  if (d.hardware) {
    d.attr.exclude_kernel = 1;
    d.attr.exclude_hv = 1;
  }
  apply_modifiers(d.attr, spec.substr(last + 1), spec);
  return d;
}

EventDesc from_alias(const Alias& a, std::string_view spec, std::string_view mods,
                     const ResolveOptions& opts) {
  EventDesc d;
  if (a.type == PERF_TYPE_MAX) {  // tsc = msr/tsc/
    d = from_sysfs("msr/tsc/", opts);
  } else {
    d.attr.size = sizeof(d.attr);
    d.attr.type = a.type;
    d.attr.config = a.config;
    d.hardware = a.type != PERF_TYPE_SOFTWARE;
    d.pmu = d.hardware ? "cpu" : "software";
    if (d.hardware) {
      d.attr.exclude_kernel = 1;
      d.attr.exclude_hv = 1;
    }
  }
  d.spec = std::string(spec);
  d.name = std::string(a.name);
  if (!mods.empty()) d.name += fmt::format(":{}", mods);
  d.source = "alias";
  apply_modifiers(d.attr, mods, spec);
  return d;
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
  // The privilege levels are obscheck's rule (event.h), not whatever a libpfm4 version
  // or host defaults to: libpfm4 has set exclude_hv for PFM_PLM3 on some hosts and not
  // on others. Unless the string names a level itself, a CPU event counts user level
  // only (the hypervisor is excluded with the kernel), and a software event counts
  // everything, as it does under its obscheck alias.
  if (!names_privilege_level(spec)) {
    if (d.attr.type == PERF_TYPE_SOFTWARE) {
      d.attr.exclude_user = d.attr.exclude_kernel = d.attr.exclude_hv = d.attr.exclude_guest = 0;
    } else if (d.hardware) {
      d.attr.exclude_user = 0;
      d.attr.exclude_kernel = 1;
      d.attr.exclude_hv = 1;
    }
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
  std::vector<std::string> out;
  std::string cur;
  int depth = 0;
  bool in_terms = false;  // between the slashes of pmu/.../, where commas separate terms
  auto in_probe = [&] {
    std::string_view c = cur;
    while (!c.empty() && (c.front() == '{' || c.front() == ' ')) c.remove_prefix(1);
    return c.starts_with("uprobe:") || c.starts_with("bp:");
  };
  auto flush = [&] {
    std::string item = trim(cur);
    if (item.empty() || item == "{}")
      throw Error(ErrorKind::event, fmt::format("empty event in list '{}'", spec));
    out.push_back(std::move(item));
    cur.clear();
  };
  for (char c : spec) {
    if (c == '/' && !in_probe()) in_terms = !in_terms;
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

EventDesc resolve_event(std::string_view raw, const ResolveOptions& opts) {
  const std::string spec = trim(raw);
  std::string_view s = spec;
  if (s.empty()) throw Error(ErrorKind::event, "empty event name");
  if (s.starts_with("uprobe:")) return from_probe(s, "uprobe", opts);
  if (s.starts_with("bp:")) return from_probe(s, "bp", opts);
  if (s.find('/') != std::string_view::npos) return from_sysfs(s, opts);
  if (const Alias* a = find_alias(s)) return from_alias(*a, s, "", opts);
  if (const auto colon = s.find(':'); colon != std::string_view::npos) {
    if (const Alias* a = find_alias(s.substr(0, colon))) return from_alias(*a, s, s.substr(colon + 1), opts);
  }
  if (s.starts_with("PAPI_")) return from_papi(s, opts);
  int err = 0;
  if (auto enc = pfm_encode(s, &err)) return desc_from_pfm(*enc, s, "libpfm4");
  if (err != PFM_ERR_NOTFOUND)
    throw Error(ErrorKind::event,
                fmt::format("libpfm4 cannot encode '{}': {}", s, pfm_error_text(err)),
                "check its unit masks and modifiers with libpfm4's showevtinfo");
  throw_unknown(s, opts);
}

EventSet parse_events(std::string_view spec, const ResolveOptions& opts) {
  EventSet set;
  for (const auto& item : split_event_list(spec)) {
    std::vector<std::string> members;
    if (item.front() == '{') {
      if (item.back() != '}')
        throw Error(ErrorKind::event, fmt::format("malformed group '{}'", item),
                    "a group is {a,b} with nothing after the closing brace");
      members = split_event_list(std::string_view(item).substr(1, item.size() - 2));
    } else if (item.find_first_of("{}") != std::string::npos && !item.starts_with("uprobe:") &&
               !item.starts_with("bp:")) {
      throw Error(ErrorKind::event, fmt::format("malformed group in '{}'", item),
                  "a group is {a,b}, separated from other events by commas");
    } else {
      members.push_back(item);
    }
    std::vector<std::size_t> group;
    for (const auto& m : members) {
      group.push_back(set.events.size());
      set.events.push_back(resolve_event(m, opts));
    }
    set.groups.push_back(std::move(group));
  }
  return set;
}

EventSet parse_events(std::string_view spec) { return parse_events(spec, ResolveOptions{}); }

}  // namespace obscheck
