// How many times a text holds a string (non-overlapping): what the tests of generated
// pages, figures and command lists count. Shared by tests/unit and tests/cli.
#pragma once

#include <cstddef>
#include <string>

namespace obscheck::test {

inline std::size_t count(const std::string& hay, const std::string& needle) {
  std::size_t n = 0;
  for (std::size_t at = hay.find(needle); at != std::string::npos; at = hay.find(needle, at + needle.size())) ++n;
  return n;
}

}  // namespace obscheck::test
