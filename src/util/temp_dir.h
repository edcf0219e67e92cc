// util/: a private directory (mkdtemp: mode 0700, a fresh name) for a command's own
// files, removed with everything in it when its owner goes away. The linked binaries
// of a link-order sweep, a simulated run's cachegrind output and a profile's perf.data
// are kept in one each.
#pragma once

#include <string>

namespace obscheck {

class TempDir {
 public:
  // mkdtemp of PREFIX-XXXXXX under $TMPDIR (or /tmp). Throws Error(io) naming the
  // directory and errno when it cannot be created, and, before creating anything, when
  // another user could swap it or a directory above it for a link (a directory from /
  // down to $TMPDIR owned by someone other than root and the caller, or writable by
  // group or others without the sticky bit): root's files would land where that user
  // points.
  static TempDir create(const std::string& prefix);
  TempDir(TempDir&& o) noexcept : path_(std::move(o.path_)) { o.path_.clear(); }
  TempDir& operator=(TempDir&& o) noexcept;
  TempDir(const TempDir&) = delete;
  TempDir& operator=(const TempDir&) = delete;
  ~TempDir();
  const std::string& path() const { return path_; }
  // PATH/NAME.
  std::string file(const std::string& name) const { return path_ + "/" + name; }

 private:
  explicit TempDir(std::string p) : path_(std::move(p)) {}
  // Removes the directory and everything in it, following no symbolic link (a user
  // the directory was handed to, --run-as, may have left anything in it).
  void remove() noexcept;
  std::string path_;
};

}  // namespace obscheck
