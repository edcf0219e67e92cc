// events/: perf's event grammar: the list (items, commas, {groups}:mods), modifiers,
// NAME/terms/; parse_events, split_event_list, format_event_error. Each item is resolved
// in resolve.cpp.
#include <fmt/format.h>

#include <algorithm>
#include <cctype>
#include <optional>

#include "events/event.h"
#include "events/parse_internal.h"
#include "util/error.h"
#include "util/text.h"

namespace obscheck {
namespace event_parse {
namespace {

constexpr std::string_view kModifierChars = "ukhpPGHSDIWeb";
constexpr std::size_t kMaxModifierLength = 15;  // perf: strlen("ukhGHpppPSDIWeb")

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

}  // namespace

[[noreturn]] void syntax_error(std::string_view whole, std::size_t column, std::string what,
                               std::string hint) {
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

namespace {

// An event's exclude bits and flags while its modifier letters are applied: an event's
// own modifiers start from nothing; a group's (`group`) from each member's state.
struct ModifierState {
  bool eu = false, ek = false, eh = false, eH = false, eG = false, eI = false;
  unsigned precise = 0;
  bool pinned = false, exclusive = false, sample_read = false, precise_max = false, weak = false;
  bool exclude = false;     // one of u/k/h has excluded every level
  bool exclude_gh = false;  // one of G/H has excluded both

  static ModifierState of(const EventDesc& d, bool group) {
    if (!group) return {};
    const perf_event_attr& a = d.attr;
    ModifierState m;
    m.eu = a.exclude_user;
    m.ek = a.exclude_kernel;
    m.eh = a.exclude_hv;
    m.eH = a.exclude_host;
    m.eG = a.exclude_guest;
    m.eI = a.exclude_idle;
    m.precise = a.precise_ip;
    m.pinned = a.pinned;
    m.exclusive = a.exclusive;
    m.sample_read = d.sample_read;
    m.precise_max = d.precise_max;
    m.weak = d.weak_group;
    m.exclude = m.eu || m.ek || m.eh;
    m.exclude_gh = d.exclude_gh;
    return m;
  }

  // perf's semantics of one letter (get_event_modifier in tools/perf/util/parse-events.c):
  // the first of u/k/h excludes every level, then each given one is included again; the
  // first of G/H excludes both, then each given one is included; u and p exclude the
  // guest unless G or H was given. 'b' (count with a BPF program) changes no attr bit.
  void apply(char c) {
    if ((c == 'u' || c == 'k' || c == 'h') && !exclude) exclude = eu = ek = eh = true;
    if ((c == 'G' || c == 'H') && !exclude_gh) exclude_gh = eG = eH = true;
    if ((c == 'u' || c == 'p') && !exclude_gh) eG = true;  // precise sampling requires exclude_guest
    switch (c) {
      case 'u': eu = false; break;
      case 'k': ek = false; break;
      case 'h': eh = false; break;
      case 'G': eG = false; break;
      case 'H': eH = false; break;
      case 'I': eI = true; break;
      case 'p': ++precise; break;
      case 'P': precise_max = true; break;
      case 'S': sample_read = true; break;
      case 'D': pinned = true; break;
      case 'e': exclusive = true; break;
      case 'W': weak = true; break;
      default: break;
    }
  }

  // D and e apply to a group leader only.
  void store(EventDesc& d, bool leader) const {
    perf_event_attr& a = d.attr;
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
};

}  // namespace

void apply_modifiers(EventDesc& d, std::string_view mods, bool group, bool leader) {
  ModifierState m = ModifierState::of(d, group);
  for (char c : mods) m.apply(c);
  m.store(d, leader);
}

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

namespace {

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
}  // namespace event_parse

std::vector<std::string> split_event_list(std::string_view spec) {
  // The grammar's errors, with the caret, exactly as parse_events gives them.
  const ResolveOptions structure;
  event_parse::ListParser(spec, structure, false).parse();
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
    std::string item = text::trim(cur);
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

EventSet parse_events(std::string_view spec, const ResolveOptions& opts) {
  EventSet set = event_parse::ListParser(spec, opts).parse();
  event_parse::apply_level_policy(set, opts);
  return set;
}

EventSet parse_events(std::string_view spec) { return parse_events(spec, ResolveOptions{}); }

}  // namespace obscheck
