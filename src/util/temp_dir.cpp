#include "util/temp_dir.h"

#include <fmt/core.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <system_error>

#include "util/error.h"

namespace obscheck {

namespace {

// `dir` with every link resolved (realpath), or `dir` itself when it does not exist
// (mkdtemp then says so).
std::string resolved(const std::string& dir) {
  char* real = ::realpath(dir.c_str(), nullptr);
  if (real == nullptr) return dir;
  std::string path = real;
  std::free(real);
  return path;
}

// Why another user could rename, replace or fill `path` (resolved) or a directory above
// it, or "" when only root and the caller can: each directory from / down to it is
// owned by root or by the caller, and writable by no one else unless sticky (as /tmp
// is, where only an entry's owner may rename or remove it).
std::string unsafe_ancestor(const std::string& path) {
  const uid_t me = ::geteuid();
  for (std::string at = path;; at = at.substr(0, std::max<std::size_t>(at.rfind('/'), 1))) {
    struct stat st {};
    if (::lstat(at.c_str(), &st) != 0) return "";  // missing: mkdtemp says so
    if (st.st_uid != 0 && st.st_uid != me) return fmt::format("{} belongs to uid {}", at, st.st_uid);
    if ((st.st_mode & (S_IWGRP | S_IWOTH)) != 0 && (st.st_mode & S_ISVTX) == 0)
      return fmt::format("{} is writable by {} and not sticky", at, (st.st_mode & S_IWOTH) ? "others" : "its group");
    if (at == "/" || at.find('/') == std::string::npos) return "";
  }
}

}  // namespace

TempDir TempDir::create(const std::string& prefix) {
  const char* base = std::getenv("TMPDIR");
  const std::string given = base && *base ? base : "/tmp";
  // The directory as resolved now, and used from now on: a link above it that another
  // user could point elsewhere later is never followed again.
  const std::string parent = resolved(given);
  if (const std::string why = unsafe_ancestor(parent); !why.empty())
    throw Error(ErrorKind::io,
                fmt::format("refusing to create a temporary directory under {}: {}, so another user could "
                            "replace what is written there",
                            parent, why),
                "set TMPDIR to a directory that only you (or root) can write, or unset it to use /tmp");
  std::string pattern = parent + "/" + prefix + "-XXXXXX";
  if (::mkdtemp(pattern.data()) == nullptr)
    throw Error(ErrorKind::io, fmt::format("cannot create a temporary directory {}: {}", pattern,
                                           std::strerror(errno)),
                "set TMPDIR to a writable directory");
  return TempDir(pattern);
}

TempDir& TempDir::operator=(TempDir&& o) noexcept {
  if (this != &o) {
    remove();
    path_ = std::move(o.path_);
    o.path_.clear();
  }
  return *this;
}

TempDir::~TempDir() { remove(); }

void TempDir::remove() noexcept {
  if (path_.empty()) return;
  std::error_code ec;
  std::filesystem::remove_all(path_, ec);
  path_.clear();
}

}  // namespace obscheck
