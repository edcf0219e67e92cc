#include "report/terminal_text.h"

#include <fmt/format.h>

namespace obscheck {
namespace {

// The length of the SGR sequence at text[i] (ESC '[' [0-9;]* 'm'), or 0.
std::size_t sgr_length(std::string_view text, std::size_t i) {
  if (i + 2 >= text.size() || text[i + 1] != '[') return 0;
  std::size_t j = i + 2;
  while (j < text.size() && ((text[j] >= '0' && text[j] <= '9') || text[j] == ';')) ++j;
  return j < text.size() && text[j] == 'm' ? j + 1 - i : 0;
}

std::string shown(unsigned char c) {
  switch (c) {
    case '\r': return "\\r";
    case '\x1b': return "\\x1b";
    default: return fmt::format("\\x{:02x}", c);
  }
}

}  // namespace

std::string terminal_safe(std::string_view text, bool keep_colors) {
  std::string out;
  out.reserve(text.size());
  for (std::size_t i = 0; i < text.size(); ++i) {
    const auto c = static_cast<unsigned char>(text[i]);
    if (c == '\x1b' && keep_colors) {
      if (const std::size_t n = sgr_length(text, i); n > 0) {
        out.append(text.substr(i, n));
        i += n - 1;
        continue;
      }
    }
    if ((c < 0x20 && c != '\n' && c != '\t') || c == 0x7f) {
      out += shown(c);
      continue;
    }
    // C1 controls: U+0080..U+009F, UTF-8 0xC2 0x80..0x9F (0x9B is a CSI on some terminals).
    if (c == 0xC2 && i + 1 < text.size() && static_cast<unsigned char>(text[i + 1]) >= 0x80 &&
        static_cast<unsigned char>(text[i + 1]) <= 0x9F) {
      out += fmt::format("\\u{:04x}", static_cast<unsigned char>(text[i + 1]));
      ++i;
      continue;
    }
    out += static_cast<char>(c);
  }
  return out;
}

}  // namespace obscheck
