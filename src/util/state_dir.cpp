#include "util/state_dir.h"

#include <fcntl.h>
#include <pwd.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <string>

#include <fmt/core.h>

#include "util/error.h"

namespace obscheck {
namespace {

constexpr const char* kHint = "name the journal with --journal FILE, or set XDG_STATE_HOME to a directory of yours";

std::string home_directory() {
  if (const char* home = std::getenv("HOME"); home && home[0] == '/') return home;
  if (const passwd* pw = ::getpwuid(::geteuid()); pw && pw->pw_dir && pw->pw_dir[0] == '/') return pw->pw_dir;
  throw Error(ErrorKind::io, "cannot find a place for the journal: no home directory (HOME is unset)", kHint);
}

// `dir` exists as a real directory of the effective user that no one else may write.
void check_private(const std::string& dir) {
  struct stat st {};
  if (::lstat(dir.c_str(), &st) != 0)
    throw Error(ErrorKind::io, fmt::format("cannot use journal directory {}: {}", dir, std::strerror(errno)), kHint);
  if (!S_ISDIR(st.st_mode))
    throw Error(ErrorKind::io, fmt::format("journal directory {} is not a directory (or is a symbolic link)", dir),
                kHint);
  if (st.st_uid != ::geteuid())
    throw Error(ErrorKind::io,
                fmt::format("journal directory {} belongs to uid {}, not to you (uid {})", dir, st.st_uid, ::geteuid()),
                kHint);
  if ((st.st_mode & (S_IWGRP | S_IWOTH)) != 0)
    throw Error(ErrorKind::io, fmt::format("journal directory {} is writable by others (mode {:o})", dir,
                                           st.st_mode & 07777),
                fmt::format("chmod 700 {}, or {}", dir, kHint));
}

// mkdir -p with mode 0700 for every component created; an existing one is left as it is.
void make_directories(const std::string& dir) {
  for (std::size_t slash = dir.find('/', 1);; slash = dir.find('/', slash + 1)) {
    const std::string part = dir.substr(0, slash);
    if (::mkdir(part.c_str(), 0700) != 0 && errno != EEXIST)
      throw Error(ErrorKind::io, fmt::format("cannot create journal directory {}: {}", part, std::strerror(errno)),
                  kHint);
    if (slash == std::string::npos) return;
  }
}

}  // namespace

std::string journal_directory_path() {
  if (const char* state = std::getenv("XDG_STATE_HOME"); state && state[0] == '/')
    return std::string(state) + "/obscheck";
  return home_directory() + "/.local/state/obscheck";
}

std::string journal_directory() {
  const std::string dir = journal_directory_path();
  make_directories(dir);
  check_private(dir);
  return dir;
}

}  // namespace obscheck
