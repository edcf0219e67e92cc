#include "plan/observer.h"

#include <fmt/format.h>

#include <cstddef>

#include "util/error.h"
#include "util/words.h"

namespace obscheck {

namespace {

// Each kind's words, in the enum's order: its name in the journal and the noun of one
// of its doses (observe/observer_kinds.h holds the rest of its row).
struct KindWords {
  std::string_view name;
  std::string_view dose_noun;
};
constexpr std::array<KindWords, kAllObserverKinds.size()> kWords = {{
    {"counters", "counter"},
    {"probes", "uprobe"},
    {"breakpoints", "breakpoint"},
    {"sampling", ""},  // a rate: its level's label names it
    {"command", ""},   // a profiler's level word: its label names it
    {"build", "probe site"},
}};

// kWords is indexed by the enum's value: the kinds are 0..n-1 in that order.
static_assert(static_cast<std::size_t>(kAllObserverKinds.back()) + 1 == kAllObserverKinds.size());

const KindWords& words_of(ObserverKind k) {
  const auto i = static_cast<std::size_t>(k);
  return kWords.at(i < kWords.size() ? i : 0);
}

}  // namespace

std::string_view to_string(ObserverKind k) { return words_of(k).name; }

std::string_view dose_noun(ObserverKind k) { return words_of(k).dose_noun; }

std::optional<ObserverKind> observer_kind_from_string(std::string_view name) {
  for (ObserverKind k : kAllObserverKinds)
    if (to_string(k) == name) return k;
  return std::nullopt;
}

void read_symbols(const char* option, const std::string& text, ObserverRequest& r) {
  r.symbols.clear();
  r.auto_symbols = 0;
  if (text.rfind("auto:", 0) != 0) {
    r.symbols = split_commas(text);
    return;
  }
  // auto:0 would leave no dose to compare with none.
  const std::uint64_t n = parse_whole_number(option, text.substr(5));
  if (n < 1 || n > kMaxAutoProbes)
    throw Error(ErrorKind::usage,
                fmt::format("--{} {}: N is the number of probes to dose, 1 to {}", option, text, kMaxAutoProbes),
                n == 0 ? "auto:0 leaves no dose to compare with none: ask for auto:1 or more" : "ask for fewer");
  r.auto_symbols = static_cast<std::size_t>(n);
}

std::vector<std::uint64_t> read_frequencies(const std::string& text) {
  std::vector<std::uint64_t> hz;
  for (const std::string& w : split_commas(text)) hz.push_back(parse_whole_number("sample-freq", w));
  if (hz.empty()) throw Error(ErrorKind::usage, "--sample-freq is empty", "e.g. --sample-freq 0,100,1000");
  if (hz.size() > kMaxDoses)
    throw Error(ErrorKind::usage, fmt::format("--sample-freq: {} values; a check doses at most {}", hz.size(), kMaxDoses));
  return hz;
}

std::vector<std::string> read_levels(const std::string& text) {
  std::vector<std::string> levels = split_commas(text);
  if (levels.size() > kMaxDoses)
    throw Error(ErrorKind::usage, fmt::format("--levels: a check doses at most {} levels", kMaxDoses));
  return levels;
}

std::string symbols_text(const ObserverRequest& r) {
  return r.auto_symbols > 0 ? "auto:" + std::to_string(r.auto_symbols) : fmt::format("{}", fmt::join(r.symbols, ","));
}

std::string frequencies_text(const std::vector<std::uint64_t>& hz) { return fmt::format("{}", fmt::join(hz, ",")); }

std::string levels_text(const std::vector<std::string>& levels) { return fmt::format("{}", fmt::join(levels, ",")); }

std::string_view to_string(PlanKind k) {
  switch (k) {
    case PlanKind::check: return "check";
    case PlanKind::measure: return "measure";
    case PlanKind::bias: return "bias";
    case PlanKind::compare: return "compare";
  }
  return "check";
}

}  // namespace obscheck
