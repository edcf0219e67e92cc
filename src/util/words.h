// util/: the words of a comma-separated value, the one splitter of lists the user
// writes as "a,b,c" (sizes, symbols, frequencies, levels), and the reader of a whole
// number in one of them.
#pragma once

#include <algorithm>
#include <cstdint>
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

// A whole unsigned number, nothing else (Boost would read "-1" as 2^64-1); `option`
// names it in the error ("seed" for --seed): Error(usage).
std::uint64_t parse_whole_number(const char* option, const std::string& text);

}  // namespace obscheck
