#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstring>

#include "cli/commands.h"
#include "run/signals.h"
#include "util/error.h"

namespace obscheck {

int interrupted_exit_code() {
  const int sig = InterruptGuard::signal_number();
  return sig > 0 ? 128 + sig : static_cast<int>(ExitCode::interrupted);
}

void emit(const Options& o, const std::string& bytes) {
  if (o.output.empty()) {
    std::fwrite(bytes.data(), 1, bytes.size(), stdout);
    std::fflush(stdout);
    return;
  }
  // Write beside the destination and rename, so a reader never sees half a report.
  const std::string tmp = o.output + ".tmp";
  FILE* f = std::fopen(tmp.c_str(), "wb");
  if (!f) throw Error(ErrorKind::io, "cannot write " + o.output + ": " + std::strerror(errno));
  const bool ok = std::fwrite(bytes.data(), 1, bytes.size(), f) == bytes.size();
  if (std::fclose(f) != 0 || !ok || std::rename(tmp.c_str(), o.output.c_str()) != 0) {
    std::remove(tmp.c_str());
    throw Error(ErrorKind::io, "cannot write " + o.output + ": " + std::strerror(errno));
  }
}

LaunchSpec launch_spec_from(const Options& o) {
  LaunchSpec s;
  s.path = resolve_target(o.target.at(0));
  s.argv = o.target;
  s.env = EnvBlock::from_current();
  if (o.env_pad) s.env.pad_to(*o.env_pad);
  s.aslr = o.aslr;
  s.cpu = o.cpu;
  s.timeout_s = o.timeout_s;
  s.out = o.show_output ? Stdio::inherit : Stdio::capture;
  return s;
}

}  // namespace obscheck
