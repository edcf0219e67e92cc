#include "util/safe_write.h"

#include <fcntl.h>
#include <sys/random.h>
#include <sys/stat.h>
#include <unistd.h>

#include <fmt/format.h>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <filesystem>

#include "util/error.h"

namespace obscheck {
namespace {

// Random bytes in a temporary name: 64 bits, so a name cannot be guessed, and a clash
// with a file already there (only possible if planted) is retried with a new one.
constexpr std::size_t kRandomNameBytes = 8;
constexpr int kMaxNameAttempts = 16;

std::string errno_text(int err) { return std::strerror(err); }

Error write_error(const std::string& what, int err, std::string hint = {}) {
  return Error(ErrorKind::io, fmt::format("cannot write {}: {}", what, errno_text(err)), std::move(hint));
}

std::string join(const std::string& dir, const std::string& name) {
  if (dir.empty() || dir == ".") return name;
  return dir.back() == '/' ? dir + name : dir + "/" + name;
}

std::string random_suffix() {
  unsigned char raw[kRandomNameBytes];
  std::size_t got = 0;
  while (got < sizeof raw) {
    const ssize_t n = ::getrandom(raw + got, sizeof raw - got, 0);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) throw Error(ErrorKind::host, "cannot draw a random file name: " + errno_text(errno));
    got += static_cast<std::size_t>(n);
  }
  std::string hex;
  for (unsigned char b : raw) hex += fmt::format("{:02x}", b);
  return hex;
}

bool write_all(int fd, std::string_view bytes) {
  while (!bytes.empty()) {
    const ssize_t n = ::write(fd, bytes.data(), bytes.size());
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return false;
    bytes.remove_prefix(static_cast<std::size_t>(n));
  }
  return true;
}

bool plain_name(const std::string& name) {
  return !name.empty() && name != "." && name != ".." && name.find('/') == std::string::npos;
}

}  // namespace

void write_file_at(int dir_fd, const std::string& dir_path, const std::string& name, std::string_view bytes,
                   mode_t mode, Existing existing) {
  const std::string dest = join(dir_path, name);
  if (!plain_name(name))
    throw Error(ErrorKind::io, fmt::format("cannot write {}: not a file name", dest), "name a file, not a directory");
  // A file already there keeps its permissions (a report made private stays private);
  // a link there is replaced with a new file of `mode`.
  struct stat old {};
  const bool keep_mode = ::fstatat(dir_fd, name.c_str(), &old, AT_SYMLINK_NOFOLLOW) == 0 && S_ISREG(old.st_mode);
  std::string tmp;
  UniqueFd fd;
  for (int attempt = 0; attempt < kMaxNameAttempts && !fd; ++attempt) {
    tmp = "." + name + ".obscheck-" + random_suffix();
    fd.reset(::openat(dir_fd, tmp.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, mode));
    if (!fd && errno != EEXIST) throw write_error(dest, errno);
  }
  if (!fd) throw write_error(dest, EEXIST, "remove the .*.obscheck-* files in " + (dir_path.empty() ? "." : dir_path));
  int err = 0;
  if (keep_mode && ::fchmod(fd.get(), old.st_mode & 07777) != 0) err = errno;
  errno = 0;
  if (err == 0 && !write_all(fd.get(), bytes)) err = errno ? errno : EIO;
  if (err == 0 && ::fsync(fd.get()) != 0) err = errno;
  if (err == 0 && ::close(fd.release()) != 0) err = errno;
  if (err == 0 && existing == Existing::replace && ::renameat(dir_fd, tmp.c_str(), dir_fd, name.c_str()) != 0)
    err = errno;
  if (err == 0 && existing == Existing::refuse &&
      ::renameat2(dir_fd, tmp.c_str(), dir_fd, name.c_str(), RENAME_NOREPLACE) != 0) {
    err = errno;
    // A filesystem without RENAME_NOREPLACE: a hard link is refused just as well.
    if ((err == EINVAL || err == ENOSYS) && ::linkat(dir_fd, tmp.c_str(), dir_fd, name.c_str(), 0) == 0) {
      ::unlinkat(dir_fd, tmp.c_str(), 0);
      err = 0;
    } else if (err == EINVAL || err == ENOSYS) {
      err = errno;
    }
  }
  if (err != 0) {
    ::unlinkat(dir_fd, tmp.c_str(), 0);
    if (err == EEXIST && existing == Existing::refuse)
      throw Error(ErrorKind::io, fmt::format("{} exists: it is not overwritten", dest), "choose another name");
    throw write_error(dest, err, err == EISDIR ? "it is a directory: name a file" : std::string());
  }
  ::fsync(dir_fd);  // the new entry durable too; some filesystems refuse: best effort
}

void write_file_safely(const std::string& path, std::string_view bytes, mode_t mode, Existing existing) {
  const std::filesystem::path p(path);
  const std::string name = p.filename().string();
  if (!plain_name(name))
    throw Error(ErrorKind::io, fmt::format("cannot write {}: not a file name", path), "name a file, not a directory");
  std::string dir = p.parent_path().string();
  const std::string shown = dir;
  if (dir.empty()) dir = ".";
  UniqueFd dir_fd(::open(dir.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC));
  if (!dir_fd) throw write_error(path, errno);
  write_file_at(dir_fd.get(), shown, name, bytes, mode, existing);
}

UniqueFd open_output_dir(const std::string& path, DirAccess access, mode_t mode) {
  if (path.empty()) throw Error(ErrorKind::io, "cannot write into a directory with an empty name");
  std::filesystem::path p(path);
  if (!p.has_filename()) p = p.parent_path();  // "figs/" is "figs"
  if (p.has_parent_path()) {
    std::error_code ec;
    std::filesystem::create_directories(p.parent_path(), ec);
    if (ec) throw Error(ErrorKind::io, fmt::format("cannot create {}: {}", path, ec.message()));
  }
  if (::mkdir(p.c_str(), mode) != 0 && errno != EEXIST)
    throw Error(ErrorKind::io, fmt::format("cannot create {}: {}", path, errno_text(errno)));
  UniqueFd fd(::open(p.c_str(), O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC));
  if (!fd) {
    const int err = errno;
    struct stat st {};
    if (::lstat(p.c_str(), &st) == 0 && S_ISLNK(st.st_mode))
      throw Error(ErrorKind::io, fmt::format("cannot write into {}: it is a symbolic link", path),
                  "obscheck writes only into a real directory (another user may have planted the link): "
                  "give the directory it points to");
    throw Error(ErrorKind::io, fmt::format("cannot write into {}: {}", path, errno_text(err)));
  }
  if (access == DirAccess::private_to_us) {
    struct stat st {};
    if (::fstat(fd.get(), &st) != 0) throw Error(ErrorKind::io, fmt::format("cannot read {}: {}", path, errno_text(errno)));
    if (st.st_uid != ::geteuid() || (st.st_mode & (S_IWGRP | S_IWOTH)) != 0)
      throw Error(ErrorKind::io,
                  fmt::format("{} is {}: another user could plant a link or replace a file obscheck writes there",
                              path, st.st_uid != ::geteuid() ? "owned by another user" : "writable by group or others"),
                  fmt::format("remove it (obscheck creates it again, mode {:o}) or chmod go-w {}", mode, path));
  }
  return fd;
}

}  // namespace obscheck
