// events/: one event item to a perf_event_attr: obscheck's aliases, perf's legacy names,
// raw and numeric events, sysfs PMUs with their terms, PAPI presets, libpfm4; the
// kernel-level policy of a list; resolve_event and event_aliases.
#include <fmt/format.h>

#include <filesystem>
#include <optional>

#include "events/did_you_mean.h"
#include "events/event.h"
#include "events/libpfm_events.h"
#include "events/papi_presets.h"
#include "events/parse_internal.h"
#include "events/perf_names.h"
#include "events/sysfs_pmu.h"
#include "util/error.h"
#include "util/text.h"

#include <perfmon/pfmlib.h>

namespace obscheck {
namespace event_parse {
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

// perf's event_attr_init: every event starts with exclude_guest set (perf counts the
// host, not guests, unless told :G).
perf_event_attr initial_attr() {
  perf_event_attr a{};
  a.size = sizeof(a);
  a.exclude_guest = 1;
  return a;
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

std::size_t closing_slash(std::string_view text, std::size_t open) {
  bool quoted = false;
  for (std::size_t i = open + 1; i < text.size(); ++i) {
    if (text[i] == '\'') quoted = !quoted;
    else if (text[i] == '/' && !quoted) return i;
  }
  return std::string_view::npos;
}

// PMU/terms/ on the sysfs PMU `p` (`written`: the terms as written): the terms every
// event takes, then the PMU's own format terms encoded into config, config1, config2.
EventDesc sysfs_with_terms(const SysfsPmu& p, std::string_view text, std::string_view written, std::vector<Term> terms,
                           std::string_view whole) {
  EventDesc d;
  d.spec = std::string(text);
  d.name = d.spec;
  d.source = "sysfs";
  d.pmu = p.name;
  d.hardware = is_cpu_pmu(p.name);
  d.attr.size = sizeof(d.attr);
  d.attr.type = p.type;
  std::vector<Term> rest = apply_common_terms(d, std::move(terms), whole);
  std::string joined;
  for (const Term& t : rest) joined += (joined.empty() ? "" : ",") + t.key + (t.value ? "=" + *t.value : "");
  const perf_event_attr words = encode_sysfs_event(p, joined);
  d.attr.config |= words.config;
  d.attr.config1 |= words.config1;
  d.attr.config2 |= words.config2;
  // perf sets exclude_guest on every event, then opens again without it where a PMU
  // refuses it (msr and other dynamically numbered PMUs: EINVAL); obscheck opens once,
  // so it encodes what perf ends up opening: exclude_guest on the CPU PMU and the
  // kernel's fixed PMUs (software, tracepoint, breakpoint), which accept it.
  d.attr.exclude_guest = d.hardware || p.type < PERF_TYPE_MAX ? 1 : 0;
  d.resolved = fmt::format("sysfs PMU {} (type {}) terms '{}'", p.name, p.type, written);
  return d;
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
    d = sysfs_with_terms(*p, text, text.substr(slash + 1, close - slash - 1), std::move(terms), cx.whole);
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

}  // namespace

SysfsPmu require_pmu(const ResolveOptions& opts, const std::string& name, std::string_view spec) {
  if (auto p = read_sysfs_pmu(opts.sysfs_root, name)) return *p;
  if (is_cpu_pmu(name))
    throw Error(ErrorKind::event,
                fmt::format("'{}': no hardware PMU on this host (no {}/{}; a VM without PMU "
                            "passthrough?)",
                            spec, opts.sysfs_root, name),
                software_events_hint(read_host_perf_facts(opts.sysfs_root)));
  throw Error(ErrorKind::event,
              fmt::format("'{}': no PMU '{}' on this host (no {}/{}){}", spec, name, opts.sysfs_root,
                          name, did_you_mean_suffix(name, list_sysfs_pmus(opts.sysfs_root))),
              fmt::format("the PMUs here: ls {}", opts.sysfs_root));
}

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

}  // namespace event_parse

const std::vector<AliasInfo>& event_aliases() {
  static const std::vector<AliasInfo> list = [] {
    std::vector<AliasInfo> v;
    for (const auto& a : event_parse::kAliases) v.push_back({a.name, a.description});
    return v;
  }();
  return list;
}

EventDesc resolve_event(std::string_view raw, const ResolveOptions& opts) {
  const std::string spec = text::trim(raw);
  if (spec.empty()) throw Error(ErrorKind::event, "empty event name");
  EventSet set;
  set.events = event_parse::resolve_item(spec, event_parse::ItemContext{spec, 0, opts});
  if (set.events.size() != 1)
    throw Error(ErrorKind::event, fmt::format("'{}' names {} events, not one", spec, set.events.size()));
  event_parse::apply_level_policy(set, opts);
  return std::move(set.events.front());
}

}  // namespace obscheck
