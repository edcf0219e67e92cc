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
#include <optional>

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

bool written_into(const struct stat& st) { return S_ISCHR(st.st_mode) || S_ISFIFO(st.st_mode); }

// The kernel's rule for FIFOs in sticky directories (fs.protected_fifos = 2, which
// applies it to group-writable ones too), applied whatever the sysctl says: a FIFO
// neither we nor the directory's owner own, in a sticky directory others can write to,
// was planted there; writing into it would hand the report to its owner and wait for
// as long as they choose not to read.
bool planted_in_shared_dir(int dir_fd, const struct stat& node) {
  struct stat dir {};
  if (::fstat(dir_fd, &dir) != 0) return true;
  const bool shared = (dir.st_mode & S_ISVTX) != 0 && (dir.st_mode & (S_IWGRP | S_IWOTH)) != 0;
  return shared && node.st_uid != ::geteuid() && node.st_uid != dir.st_uid;
}

// Writes into the character device or FIFO at NAME (opened without O_CREAT or O_TRUNC
// and not following a link: the node found by fstatat, checked again on the open
// descriptor). A FIFO's open waits for a reader, as a shell's `>` does.
void write_into_node(int dir_fd, const std::string& dest, const std::string& name, const struct stat& found,
                     std::string_view bytes) {
  if (planted_in_shared_dir(dir_fd, found))
    throw Error(ErrorKind::io, fmt::format("cannot write {}: another user's FIFO or device in a shared sticky directory", dest),
                "name a file of your own (obscheck writes into a FIFO or device only where its owner could not plant it)");
  UniqueFd fd(::openat(dir_fd, name.c_str(), O_WRONLY | O_NOFOLLOW | O_NOCTTY | O_CLOEXEC));
  if (!fd) throw write_error(dest, errno);
  struct stat opened {};
  if (::fstat(fd.get(), &opened) != 0) throw write_error(dest, errno);
  if (opened.st_dev != found.st_dev || opened.st_ino != found.st_ino || !written_into(opened))
    throw Error(ErrorKind::io, fmt::format("cannot write {}: it was replaced while being opened", dest), "write it again");
  errno = 0;
  if (!write_all(fd.get(), bytes)) throw write_error(dest, errno ? errno : EIO);
}

// The standard streams by name: /dev/stdout, /dev/stderr, /dev/fd/N and /proc/self/fd/N
// mean "this process's descriptor N", whatever it is open on (a terminal, a pipe, a file
// the shell opened). Replacing the name would replace /dev's link for every process.
std::optional<int> stream_named(const std::string& path) {
  namespace fs = std::filesystem;
  const fs::path p(path);
  const std::string name = p.filename().string();
  std::error_code ec;
  const fs::path dir = fs::weakly_canonical(p.has_parent_path() ? p.parent_path() : fs::path("."), ec);
  if (ec) return std::nullopt;
  if (dir == "/dev" && (name == "stdout" || name == "stderr")) return name == "stdout" ? 1 : 2;
  const fs::path own_fds = fs::path("/proc") / std::to_string(::getpid()) / "fd";
  if (dir != own_fds || name.empty() || name.size() > 9 || name.find_first_not_of("0123456789") != std::string::npos)
    return std::nullopt;
  return std::stoi(name);
}

}  // namespace

void write_file_at(int dir_fd, const std::string& dir_path, const std::string& name, std::string_view bytes,
                   mode_t mode, Existing existing) {
  const std::string dest = join(dir_path, name);
  if (!plain_name(name))
    throw Error(ErrorKind::io, fmt::format("cannot write {}: not a file name", dest), "name a file, not a directory");
  // A file of ours already there keeps its permission bits, never its set-id or sticky
  // bits (a report made private stays private; one planted mode 6777 does not make
  // root's report set-user-ID root); a link there is replaced with a new file of `mode`; a character
  // device or FIFO is written into, a block device refused.
  struct stat old {};
  const bool exists = ::fstatat(dir_fd, name.c_str(), &old, AT_SYMLINK_NOFOLLOW) == 0;
  if (exists && existing == Existing::replace && written_into(old)) return write_into_node(dir_fd, dest, name, old, bytes);
  if (exists && S_ISBLK(old.st_mode))
    throw Error(ErrorKind::io, fmt::format("cannot write {}: it is a block device", dest), "name a file");
  // Only our own file's bits are kept: another user's planted 0666 would make ours
  // writable by them.
  const bool keep_mode = exists && S_ISREG(old.st_mode) && old.st_uid == ::geteuid();
  std::string tmp;
  UniqueFd fd;
  for (int attempt = 0; attempt < kMaxNameAttempts && !fd; ++attempt) {
    tmp = "." + name + ".obscheck-" + random_suffix();
    fd.reset(::openat(dir_fd, tmp.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, mode));
    if (!fd && errno != EEXIST) throw write_error(dest, errno);
  }
  if (!fd) throw write_error(dest, EEXIST, "remove the .*.obscheck-* files in " + (dir_path.empty() ? "." : dir_path));
  int err = 0;
  if (keep_mode && ::fchmod(fd.get(), old.st_mode & 0777) != 0) err = errno;
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
  if (const std::optional<int> stream = existing == Existing::replace ? stream_named(path) : std::nullopt) {
    std::fflush(nullptr);  // what stdio holds for the stream goes first
    errno = 0;
    if (!write_all(*stream, bytes)) throw write_error(path, errno ? errno : EIO);
    return;
  }
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
