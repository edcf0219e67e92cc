#include "cli/cli.h"

#include <fmt/core.h>

#include <string_view>

#include "util/error.h"

namespace obscheck {

int cli_main(int argc, char** argv) {
  if (argc > 1 && std::string_view(argv[1]) == "--version") {
    fmt::print("obscheck {}\n", OBSCHECK_VERSION);
    return 0;
  }
  fmt::print(stderr, "usage: obscheck [options] [--] PROG [ARGS...]\n");
  return static_cast<int>(ExitCode::usage);
}

}  // namespace obscheck
