// launch/: what a corked child reports to the driver when it cannot become the target,
// and the message each report becomes. Internal to launch/ (launcher.cpp's two halves).
#pragma once

#include <string>

#include "util/error.h"

namespace obscheck::launch_detail {

// Where the corked child stopped: a set-up step, the credentials' drop or the execve.
enum Stage : int {
  stage_pgid = 1,
  stage_personality,
  stage_affinity,
  stage_chdir,
  stage_stdio,
  stage_exec,
  stage_setgroups,
  stage_setgid,
  stage_setuid,
  stage_regain,  // root could be taken back after setuid: the drop did not hold
  // Not a failure: the child's usage before its execve follows (a struct rusage), sent
  // only when the child does not share our memory (else it is in Image::pre_exec).
  stage_usage,
};

struct ChildReport {
  int stage = 0;
  int err = 0;
};

// The failure `r` (stage and errno) of the child that was to run `path` (with working
// directory `cwd`, as `user` when --run-as was given: else empty), as the Error
// release() throws: ENOENT, EACCES, ENOEXEC and E2BIG of the exec named precisely.
Error child_failure(const std::string& path, const std::string& cwd, const std::string& user, const ChildReport& r);

}  // namespace obscheck::launch_detail
