#include "launch/child_report.h"

#include <fmt/core.h>

#include <cerrno>
#include <cstring>

namespace obscheck::launch_detail {
namespace {

std::string report_errno_text(int err) { return fmt::format("{} (errno {})", std::strerror(err), err); }

}  // namespace

Error child_failure(const std::string& path, const std::string& cwd, const std::string& user, const ChildReport& r) {
  const std::string run_as_hint = "--run-as needs obscheck to run as root (or with CAP_SETUID and CAP_SETGID)";
  switch (r.stage) {
    case stage_setgroups:
      return Error(ErrorKind::host, fmt::format("--run-as {}: cannot set the target's groups: {}", user, report_errno_text(r.err)),
                   run_as_hint);
    case stage_setgid:
      return Error(ErrorKind::host, fmt::format("--run-as {}: cannot set the target's gid: {}", user, report_errno_text(r.err)),
                   run_as_hint);
    case stage_setuid:
      return Error(ErrorKind::host, fmt::format("--run-as {}: cannot set the target's uid: {}", user, report_errno_text(r.err)),
                   run_as_hint);
    case stage_regain:
      return Error(ErrorKind::host,
                   fmt::format("--run-as {}: the target could take root back after giving it up; it was not run", user));
    case stage_exec:
      switch (r.err) {
        case ENOENT:
          return Error(ErrorKind::target, path + ": cannot execute: no such file (or its ELF interpreter or #! interpreter is missing)");
        case EACCES:
          if (!user.empty())
            return Error(ErrorKind::target,
                         fmt::format("{}: permission denied for --run-as {} (not executable by that user, a directory "
                                     "on its path not searchable, or a noexec mount)", path, user),
                         fmt::format("check with: runuser -u {} -- test -x {}", user, path));
          return Error(ErrorKind::target, path + ": permission denied (not executable, or on a noexec mount)",
                       "chmod +x " + path);
        case ENOEXEC:
          return Error(ErrorKind::target,
                       path + ": exec format error: not an executable for this machine (a script without #!?)",
                       "add a #! line to a script, or build the program for this machine");
        case E2BIG:
          return Error(ErrorKind::target, path + ": argument list and environment too large (E2BIG)",
                       "use a smaller --env-pad or fewer arguments");
        default:
          return Error(ErrorKind::target, fmt::format("{}: exec failed: {}", path, report_errno_text(r.err)));
      }
    case stage_chdir:
      return Error(ErrorKind::usage, fmt::format("cannot change to working directory {}: {}", cwd, report_errno_text(r.err)));
    case stage_affinity:
      return Error(ErrorKind::usage, fmt::format("cannot pin the target to its CPU: {}", report_errno_text(r.err)));
    case stage_personality:
      return Error(ErrorKind::host, fmt::format("cannot set the ASLR personality of the target: {}", report_errno_text(r.err)),
                   "pass --aslr to leave address randomisation alone");
    case stage_pgid:
      return Error(ErrorKind::host, fmt::format("cannot give the target its own process group: {}", report_errno_text(r.err)));
    case stage_stdio:
      return Error(ErrorKind::host, fmt::format("cannot set up the target's stdin/stdout/stderr: {}", report_errno_text(r.err)));
    default:
      return Error(ErrorKind::internal, fmt::format("the corked child sent an unknown report (stage {})", r.stage));
  }
}

}  // namespace obscheck::launch_detail
