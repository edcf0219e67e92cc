#include "util/output_paths.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <fmt/core.h>

#include <cerrno>
#include <cstring>
#include <filesystem>
#include <optional>
#include <string>
#include <vector>

#include "util/error.h"

namespace obscheck {
namespace {

namespace fs = std::filesystem;

// A file as the kernel knows it, when it exists.
struct FileId {
  dev_t dev = 0;
  ino_t ino = 0;
};

std::optional<FileId> id_of(const std::string& path, bool follow) {
  struct stat st {};
  if ((follow ? ::stat(path.c_str(), &st) : ::lstat(path.c_str(), &st)) != 0) return std::nullopt;
  return FileId{st.st_dev, st.st_ino};
}

// The directory resolved (links followed, as the writer opens it) and the last name.
std::string resolved(const std::string& path, bool follow_last) {
  std::error_code ec;
  fs::path p(path);
  if (follow_last) {
    const fs::path r = fs::weakly_canonical(p, ec);
    return ec ? fs::absolute(p, ec).lexically_normal().string() : r.string();
  }
  const fs::path dir = p.has_parent_path() ? p.parent_path() : fs::path(".");
  const fs::path r = fs::weakly_canonical(dir, ec);
  return ((ec ? fs::absolute(dir, ec).lexically_normal() : r) / p.filename()).string();
}

bool same_file(const NamedPath& out, const NamedPath& in) {
  const auto a = id_of(out.path, false), b = id_of(in.path, true);
  if (a && b) return a->dev == b->dev && a->ino == b->ino;
  return resolved(out.path, false) == resolved(in.path, true) || resolved(out.path, false) == resolved(in.path, false);
}

void refuse_output_naming_input(const std::vector<NamedPath>& outs, const std::vector<NamedPath>& ins) {
  for (const NamedPath& out : outs)
    for (const NamedPath& in : ins)
      if (same_file(out, in))
        throw Error(ErrorKind::usage,
                    fmt::format("{} {} names {} {}: writing it would replace what it is read from", out.option,
                                out.path, in.option, in.path),
                    "write the report to another file; nothing was run or written");
  for (std::size_t i = 0; i < outs.size(); ++i)
    for (std::size_t j = 0; j < i; ++j)
      if (resolved(outs[i].path, false) == resolved(outs[j].path, false))
        throw Error(ErrorKind::usage,
                    fmt::format("{} and {} both name {}: one would replace the other", outs[j].option, outs[i].option,
                                outs[i].path),
                    "give each its own file");
}

// The descriptor /dev/stdout, /dev/stderr, /dev/fd/N name, as util/safe_write.h reads them.
std::optional<int> stream_fd(const std::string& path) {
  std::error_code ec;
  const fs::path p(path);
  const fs::path dir = fs::weakly_canonical(p.has_parent_path() ? p.parent_path() : fs::path("."), ec);
  const std::string name = p.filename().string();
  if (ec) return std::nullopt;
  if (dir == "/dev" && (name == "stdout" || name == "stderr")) return name == "stdout" ? 1 : 2;
  if (dir != fs::path("/proc") / std::to_string(::getpid()) / "fd" || name.empty() || name.size() > 9 ||
      name.find_first_not_of("0123456789") != std::string::npos)
    return std::nullopt;
  return std::stoi(name);
}

Error cannot_write(const NamedPath& out, const std::string& why, const std::string& hint) {
  return Error(ErrorKind::io, fmt::format("cannot write {} {}: {}", out.option, out.path, why),
               hint + " (checked before the check runs: nothing was run or written)");
}

// What write_file_safely would find only after the check: checked now.
void require_writable(const NamedPath& out) {
  struct stat st {};
  if (::stat(out.path.c_str(), &st) == 0 && S_ISDIR(st.st_mode))
    throw cannot_write(out, "it is a directory", "name a file");
  // A character device, a FIFO or a standard stream is written into, not replaced
  // (util/safe_write.h): it must be writable itself; its directory need not be.
  // A stream is this process's descriptor: open for writing, whoever owns what it is
  // open on (a file the shell opened before dropping privileges).
  if (const std::optional<int> fd = stream_fd(out.path)) {
    const int flags = ::fcntl(*fd, F_GETFL);
    if (flags < 0 || (flags & O_ACCMODE) == O_RDONLY)
      throw cannot_write(out, fmt::format("descriptor {} is not open for writing", *fd), "write it elsewhere");
    return;
  }
  struct stat last {};
  if (::lstat(out.path.c_str(), &last) == 0 && (S_ISCHR(last.st_mode) || S_ISFIFO(last.st_mode))) {
    if (::access(out.path.c_str(), W_OK) != 0) throw cannot_write(out, std::strerror(errno), "write it elsewhere");
    return;
  }
  if (::lstat(out.path.c_str(), &last) == 0 && S_ISBLK(last.st_mode))
    throw cannot_write(out, "it is a block device", "name a file");
  const fs::path p(out.path);
  const std::string dir = p.has_parent_path() ? p.parent_path().string() : std::string(".");
  if (::stat(dir.c_str(), &st) != 0)
    throw cannot_write(out, fmt::format("its directory {}: {}", dir, std::strerror(errno)), "create the directory first");
  if (!S_ISDIR(st.st_mode)) throw cannot_write(out, fmt::format("{} is not a directory", dir), "name a file in a directory");
  // access(2) answers for this process's ids and says EROFS for a read-only filesystem.
  if (::access(dir.c_str(), W_OK | X_OK) != 0)
    throw cannot_write(out, fmt::format("its directory {}: {}", dir, std::strerror(errno)), "write it elsewhere");
}

}  // namespace

void check_output_paths(const std::vector<NamedPath>& outs, const std::vector<NamedPath>& ins) {
  if (outs.empty()) return;
  refuse_output_naming_input(outs, ins);
  for (const NamedPath& out : outs) require_writable(out);
}

namespace {

bool is_char_device(const std::string& path) {
  struct stat st {};
  return ::stat(path.c_str(), &st) == 0 && S_ISCHR(st.st_mode);
}

// The paths a command word may name: itself, a --name=VALUE's value, a -xVALUE's value.
std::vector<std::string> paths_in_word(const std::string& word) {
  std::vector<std::string> out;
  if (word.empty()) return out;
  out.push_back(word);
  if (const std::size_t eq = word.find('='); word.rfind("--", 0) == 0 && eq != std::string::npos && eq + 1 < word.size())
    out.push_back(word.substr(eq + 1));
  if (word.size() > 2 && word[0] == '-' && word[1] != '-') out.push_back(word.substr(2));
  return out;
}

}  // namespace

void check_command_words(const std::string& option, const std::vector<std::string>& words,
                         const std::vector<NamedPath>& files) {
  for (const std::string& word : words)
    for (const std::string& path : paths_in_word(word))
      for (const NamedPath& file : files)
        if (!is_char_device(file.path) && same_file({option, path}, file))  // /dev/null for both: nothing lost
          throw Error(ErrorKind::usage,
                      fmt::format("{} names {} {} (its word '{}'): the profiler would write over it at every run",
                                  option, file.option, file.path, word),
                      "give the profiler's output another file; nothing was run or written");
}

}  // namespace obscheck
