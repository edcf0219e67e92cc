#include "plan/levels.h"

#include <fmt/format.h>

#include <algorithm>
#include <cstdlib>
#include <utility>

#include "util/error.h"

namespace obscheck {
namespace {

std::string names_joined(const std::vector<std::string>& names, const std::vector<std::size_t>& which) {
  std::string out;
  for (std::size_t i = 0; i < which.size(); ++i) {
    if (i) out += ',';
    out += names.at(which[i]);
  }
  return out;
}

// A level of an observer other than the counters: every level programs all the
// counters (they are the metrics) and names its dose in `knob`.
Level dose_level(std::size_t counters, int dose, std::string label, LevelKnob knob) {
  Level l;
  l.dose = dose;
  l.label = std::move(label);
  for (std::size_t i = 0; i < counters; ++i) l.programmed.push_back(i);
  l.announced = l.programmed;
  l.knob = std::move(knob);
  return l;
}

// Least observation first; equal doses keep the given order.
std::vector<Level> by_dose(std::vector<Level> levels) {
  std::stable_sort(levels.begin(), levels.end(), [](const Level& a, const Level& b) { return a.dose < b.dose; });
  return levels;
}

}  // namespace

std::optional<std::string> wrap_word(const Level& level) {
  if (const auto* w = std::get_if<WrappedAt>(&level.knob)) return w->wrap;
  return std::nullopt;
}

std::vector<Level> counter_levels(const std::vector<std::string>& counters, bool reference) {
  if (counters.empty()) throw Error(ErrorKind::usage, "no counters to compare", "give --counters a list");
  std::vector<Level> levels;
  if (reference) levels.push_back(Level{0, "0[none]", {}, {}, {}});
  std::vector<std::size_t> prefix;
  for (std::size_t k = 0; k < counters.size(); ++k) {
    prefix.push_back(k);
    levels.push_back(Level{static_cast<int>(prefix.size()),
                           fmt::format("{}[{}]", prefix.size(), names_joined(counters, prefix)), prefix,
                           prefix, {}});
  }
  for (std::size_t i = 1; i < counters.size(); ++i)
    levels.push_back(Level{1, fmt::format("1[{}]", counters[i]), {i}, {i}, {}});
  return levels;
}

std::vector<Level> probe_levels(const std::vector<std::string>& symbols, std::size_t counters) {
  std::vector<Level> levels;
  std::string names;
  for (std::size_t k = 0; k <= symbols.size(); ++k) {
    if (k > 0) names += (k > 1 ? "," : "") + symbols[k - 1];
    levels.push_back(dose_level(counters, static_cast<int>(k), std::to_string(k) + "[" + (k ? names : "none") + "]",
                                ProbesAttached{k}));
  }
  return by_dose(std::move(levels));
}

std::vector<Level> sampling_levels(const std::vector<std::uint64_t>& frequencies, std::size_t counters) {
  std::vector<Level> levels;
  for (const std::uint64_t f : frequencies)
    levels.push_back(dose_level(counters, static_cast<int>(f), f == 0 ? "0Hz[none]" : std::to_string(f) + "Hz",
                                SampledAt{f}));
  return by_dose(std::move(levels));
}

std::vector<Level> command_levels(const std::vector<std::string>& words, std::size_t counters) {
  std::vector<Level> levels;
  int i = 0;
  for (const std::string& w : words) {
    char* end = nullptr;
    const long v = std::strtol(w.c_str(), &end, 10);
    levels.push_back(dose_level(counters, *end == '\0' ? static_cast<int>(v) : i, w == "0" ? "0[bare]" : w,
                                WrappedAt{w}));
    ++i;
  }
  return by_dose(std::move(levels));
}

std::vector<Level> build_levels(const std::vector<VariantDose>& variants, std::size_t counters) {
  std::vector<Level> levels;
  for (std::size_t i = 0; i < variants.size(); ++i) {
    const VariantDose& v = variants[i];
    levels.push_back(dose_level(counters, v.dose, std::to_string(v.dose) + "[mask " + std::to_string(v.mask) + "]",
                                BuiltVariantRun{i, v.digest}));
  }
  return by_dose(std::move(levels));
}

}  // namespace obscheck
