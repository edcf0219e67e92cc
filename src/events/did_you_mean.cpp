#include "events/did_you_mean.h"

#include <fmt/format.h>

#include <algorithm>
#include <cctype>
#include <numeric>

namespace obscheck {

std::size_t edit_distance(std::string_view a, std::string_view b) {
  auto lower = [](char c) { return static_cast<char>(std::tolower(static_cast<unsigned char>(c))); };
  std::vector<std::size_t> prev(b.size() + 1), cur(b.size() + 1);
  std::iota(prev.begin(), prev.end(), std::size_t{0});
  for (std::size_t i = 1; i <= a.size(); ++i) {
    cur[0] = i;
    for (std::size_t j = 1; j <= b.size(); ++j) {
      const std::size_t subst = prev[j - 1] + (lower(a[i - 1]) == lower(b[j - 1]) ? 0 : 1);
      cur[j] = std::min({prev[j] + 1, cur[j - 1] + 1, subst});
    }
    std::swap(prev, cur);
  }
  return prev[b.size()];
}

std::optional<std::string> closest_name(std::string_view word,
                                        const std::vector<std::string>& candidates) {
  // A third of the word's length (at least 2) is the most a typo plausibly changes;
  // beyond that the "suggestion" is just some other name.
  const std::size_t limit = std::max<std::size_t>(2, word.size() / 3);
  std::optional<std::string> best;
  std::size_t best_d = limit + 1;
  for (const auto& c : candidates) {
    const std::size_t d = edit_distance(word, c);
    if (d == 0) return std::nullopt;
    if (d < best_d) {
      best_d = d;
      best = c;
    }
  }
  return best;
}

std::string did_you_mean_suffix(std::string_view word, const std::vector<std::string>& candidates) {
  auto best = closest_name(word, candidates);
  return best ? fmt::format(" (did you mean '{}'?)", *best) : std::string{};
}

}  // namespace obscheck
