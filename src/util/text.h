// util/: small string helpers more than one file of a module needs. Each module is
// compiled as a few unity translation units (CMakeLists.txt), where two files' private
// copies of one helper would collide: they live here once, in their own namespace, and a
// file names the ones it uses (using text::trim;).
#pragma once

#include <cstddef>
#include <cstring>
#include <string>
#include <string_view>

namespace obscheck::text {

// s without the spaces, tabs and newlines at either end.
inline std::string trim(std::string_view s) {
  const auto b = s.find_first_not_of(" \t\n");
  if (b == std::string_view::npos) return {};
  const auto e = s.find_last_not_of(" \t\n");
  return std::string(s.substr(b, e - b + 1));
}

// s with every occurrence of `from` (non-empty) replaced by `to`, left to right; a
// replacement is not searched again.
inline std::string replace_all(std::string s, std::string_view from, std::string_view to) {
  for (std::size_t at = s.find(from); at != std::string::npos; at = s.find(from, at + to.size()))
    s.replace(at, from.size(), to);
  return s;
}

// errno's message, as strerror(3) gives it.
inline std::string errno_text(int err) { return std::strerror(err); }

}  // namespace obscheck::text
