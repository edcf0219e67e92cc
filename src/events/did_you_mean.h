// events/: "did you mean" suggestions for misspelled event and symbol names.
#pragma once

#include <cstddef>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace obscheck {

// Levenshtein distance (insert, delete, substitute each cost 1), case-insensitive.
std::size_t edit_distance(std::string_view a, std::string_view b);

// The candidate closest to `word`, if it is close enough to be a plausible typo:
// distance <= max(2, |word| / 3). Ties go to the earlier candidate, so callers list
// the most common names first. Empty candidates or an exact match -> nullopt.
std::optional<std::string> closest_name(std::string_view word,
                                        const std::vector<std::string>& candidates);

// " (did you mean 'x'?)" or "" — ready to append to an error message.
std::string did_you_mean_suffix(std::string_view word, const std::vector<std::string>& candidates);

}  // namespace obscheck
