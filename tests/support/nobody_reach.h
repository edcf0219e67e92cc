#pragma once
// Whether the unprivileged user `nobody` can reach a file of this build: search every
// directory above it, and read and execute it. A clone under a home that others cannot
// enter (root's /root is 0700, as is a folder from mktemp -d) shuts nobody out of the
// build tree, and a test that runs obscheck, a workload or a script as nobody cannot run
// there: it says "SKIPPED: " with this reason instead of failing.
//
// Returns the reason, or "" when nobody can reach `path`, and when this process is not
// root or there is no user nobody (the callers' own guards say why then).

#include <grp.h>
#include <pwd.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <string>

inline std::string nobody_cannot_reach(const std::string& path) {
  if (::geteuid() != 0) return {};
  const passwd* pw = ::getpwnam("nobody");
  if (pw == nullptr) return {};
  const uid_t uid = pw->pw_uid;
  const gid_t gid = pw->pw_gid;
  const char* file = path.c_str();
  const pid_t child = ::fork();
  if (child < 0) return {};
  if (child == 0) {  // only async-signal-safe calls between fork and _exit
    if (::setgroups(0, nullptr) != 0 || ::setresgid(gid, gid, gid) != 0 || ::setresuid(uid, uid, uid) != 0) ::_exit(2);
    ::_exit(::access(file, R_OK | X_OK) == 0 ? 0 : 1);
  }
  int status = 0;
  while (::waitpid(child, &status, 0) < 0)
    if (errno != EINTR) return {};
  if (WIFEXITED(status) && WEXITSTATUS(status) == 1)
    return "the user nobody cannot reach " + path +
           " (a directory above it is closed to others, as a clone under root's 0700 home is)";
  return {};
}

// In a Catch test case: ends it as skipped ("SKIPPED: why") when nobody cannot reach PATH.
#define SKIP_UNLESS_NOBODY_REACHES(path)                                   \
  do {                                                                     \
    if (const std::string why_ = nobody_cannot_reach(path); !why_.empty()) { \
      WARN("SKIPPED: " << why_);                                           \
      return;                                                              \
    }                                                                      \
  } while (false)
