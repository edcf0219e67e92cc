// util/: the words of a comma-separated value, the one splitter of lists the user
// writes as "a,b,c" (sizes, symbols, frequencies, levels).
#pragma once

#include <algorithm>
#include <string>
#include <vector>

namespace obscheck {

// The non-empty words of a comma-separated value ("a,,b" -> a, b).
inline std::vector<std::string> split_commas(const std::string& s) {
  std::vector<std::string> out;
  std::size_t start = 0;
  while (start <= s.size()) {
    const std::size_t end = std::min(s.find(',', start), s.size());
    if (end > start) out.push_back(s.substr(start, end - start));
    start = end + 1;
  }
  return out;
}

}  // namespace obscheck
