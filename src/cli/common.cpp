#include <unistd.h>

#include <fmt/core.h>

#include <cstdio>
#include <cstdlib>

#include "cli/commands.h"
#include "util/error.h"
#include "util/safe_write.h"

namespace obscheck {

void emit(const Options& o, const std::string& given) {
  // Others' control bytes are shown, not obeyed.
  const std::string bytes = terminal_safe(given, o.color);
  if (o.output.empty()) {
    std::fwrite(bytes.data(), 1, bytes.size(), stdout);
    std::fflush(stdout);
    return;
  }
  // Never through a planted name or link (util/safe_write.h), and a reader never sees
  // half a report.
  write_file_safely(o.output, bytes);
}

void warn_if_target_runs_as_root(const Options& o) {
  const bool runs_target = o.command == Command::check || o.command == Command::measure ||
                           o.command == Command::demo || o.command == Command::bias ||
                           o.command == Command::compare || o.command == Command::fidelity;
  // A resumed check runs as its journal says: the warning was given when it started.
  if (!runs_target || !o.request.launch.run_as.empty() || !o.resume.empty() || ::geteuid() != 0)
    return;
  const char* sudo_user = std::getenv("SUDO_USER");
  if (sudo_user == nullptr || *sudo_user == '\0') return;
  fmt::print(stderr,
             "obscheck: warning: run through sudo, the target runs as root too; add --run-as {} to "
             "run it as {} "
             "(the observers keep root's privileges; see docs/security.md)\n",
             sudo_user, sudo_user);
}

}  // namespace obscheck
