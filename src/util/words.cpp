#include "util/words.h"

#include <cerrno>
#include <cstdlib>

#include "util/error.h"

namespace obscheck {

std::uint64_t parse_whole_number(const char* option, const std::string& text) {
  errno = 0;
  char* end = nullptr;
  const unsigned long long v = std::strtoull(text.c_str(), &end, 10);
  if (text.empty() || text[0] < '0' || text[0] > '9' || *end != '\0' || errno == ERANGE)
    throw Error(ErrorKind::usage, std::string("--") + option + ": '" + text + "' is not a whole number from 0 to " +
                                      std::to_string(UINT64_MAX));
  return v;
}

}  // namespace obscheck
