// Reading rendered text back, for the report tests that check its layout.
#pragma once

#include <cstddef>
#include <sstream>
#include <string>
#include <vector>

namespace obscheck::test {

// The lines of `text`, without their newlines.
inline std::vector<std::string> lines_of(const std::string& text) {
  std::vector<std::string> out;
  std::istringstream in(text);
  for (std::string line; std::getline(in, line);) out.push_back(line);
  return out;
}

// The terminal columns `s` takes: one per UTF-8 code point (the reports' characters are
// all one column wide).
inline std::size_t columns(const std::string& s) {
  std::size_t n = 0;
  for (unsigned char c : s) n += (c & 0xC0) != 0x80;
  return n;
}

}  // namespace obscheck::test
