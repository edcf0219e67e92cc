#include <cstdio>

#include "cli/commands.h"
#include "util/error.h"
#include "util/safe_write.h"

namespace obscheck {

void emit(const Options& o, const std::string& bytes) {
  if (o.output.empty()) {
    std::fwrite(bytes.data(), 1, bytes.size(), stdout);
    std::fflush(stdout);
    return;
  }
  // Never through a planted name or link (util/safe_write.h), and a reader never sees
  // half a report.
  write_file_safely(o.output, bytes);
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
