#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <fmt/core.h>

#include <cerrno>
#include <cstdlib>
#include <filesystem>
#include <string_view>

#include "launch/launcher.h"
#include "util/error.h"
#include "util/fd.h"

namespace obscheck {
namespace {

// execvp's search path when PATH is unset (glibc's _CS_PATH).
constexpr const char* kDefaultPath = "/bin:/usr/bin";

enum class Found { ok, missing, directory, not_executable };

Found check(const std::string& path) {
  struct stat st {};
  if (::stat(path.c_str(), &st) != 0) return Found::missing;
  if (S_ISDIR(st.st_mode)) return Found::directory;
  if (::access(path.c_str(), X_OK) != 0 || !S_ISREG(st.st_mode)) return Found::not_executable;
  return Found::ok;
}

// The child may chdir before exec, so a relative path is made absolute here.
std::string absolute(const std::string& path) {
  if (!path.empty() && path[0] == '/') return path;
  std::error_code ec;
  auto abs = std::filesystem::absolute(path, ec);
  return ec ? path : abs.lexically_normal().string();
}

[[noreturn]] void fail(const std::string& prog, Found why) {
  switch (why) {
    case Found::missing:
      throw Error(ErrorKind::target, prog + ": no such file", "check the path of the program to run");
    case Found::directory:
      throw Error(ErrorKind::target, prog + ": is a directory", "give the program inside it");
    case Found::not_executable:
      throw Error(ErrorKind::target, prog + ": permission denied (not executable)",
                  fmt::format("chmod +x {}", prog));
    case Found::ok:
      break;
  }
  throw Error(ErrorKind::internal, prog + ": unexpected lookup state");
}

// The first bytes the kernel reads of a program to choose how to run it
// (BINPRM_BUF_SIZE in Linux's include/linux/binfmts.h): a #! line longer than this is
// cut there.
constexpr std::size_t kExecHeaderBytes = 256;
// Where binfmt_misc lists its formats; with any registered, a file that is neither
// ELF nor #! may still run (qemu, Wine, Java), so it is left to exec to judge.
constexpr const char* kBinfmtMiscDir = "/proc/sys/fs/binfmt_misc";

std::string read_header(const std::string& path) {
  UniqueFd fd(::open(path.c_str(), O_RDONLY | O_CLOEXEC | O_NONBLOCK | O_NOCTTY));
  if (!fd) return {};
  char buf[kExecHeaderBytes];
  ssize_t n;
  do n = ::read(fd.get(), buf, sizeof buf);
  while (n < 0 && errno == EINTR);
  return n > 0 ? std::string(buf, static_cast<std::size_t>(n)) : std::string();
}

bool binfmt_misc_formats() {
  std::error_code ec;
  for (const auto& e : std::filesystem::directory_iterator(kBinfmtMiscDir, ec)) {
    const std::string name = e.path().filename().string();
    if (name != "register" && name != "status") return true;
  }
  return false;
}

// The interpreter a "#!" line names: its first word.
std::string interpreter_of(const std::string& header) {
  std::string line = header.substr(2, header.find('\n') == std::string::npos ? std::string::npos : header.find('\n') - 2);
  const std::size_t from = line.find_first_not_of(" \t");
  if (from == std::string::npos) return {};
  return line.substr(from, line.find_first_of(" \t", from) - from);
}

// What execve would say of a program that exists and may be executed: an exec format
// error, or a #! line whose interpreter is missing, found now rather than at the first
// run (after a journal was written).
void check_exec_format(const std::string& prog, const std::string& path) {
  const std::string h = read_header(path);
  if (h.size() >= 4 && h.compare(0, 4, "\x7f" "ELF") == 0) return;
  if (h.size() >= 2 && h.compare(0, 2, "#!") == 0) {
    const std::string interp = interpreter_of(h);
    if (interp.empty())
      throw Error(ErrorKind::target, fmt::format("{}: its #! line names no interpreter", prog),
                  "write the interpreter's path after #!, e.g. #!/bin/sh");
    if (check(interp) == Found::ok) return;
    throw Error(ErrorKind::target,
                fmt::format("{}: its #! interpreter {} cannot be run (missing, a directory or not executable{})", prog,
                            interp, interp[0] != '/' ? "; the kernel does not search PATH for it" : ""),
                "fix the #! line, or install the interpreter");
  }
  if (binfmt_misc_formats()) return;
  throw Error(ErrorKind::target, fmt::format("{}: exec format error (neither an ELF program nor a #! script)", prog),
              "give a compiled program, or a script starting with #! and its interpreter");
}

}  // namespace

std::string resolve_target(const std::string& prog) {
  if (prog.empty()) throw Error(ErrorKind::usage, "no program to run: the name is empty");
  if (prog.find('/') != std::string::npos) {
    const Found f = check(prog);
    if (f != Found::ok) fail(prog, f);
    check_exec_format(prog, prog);
    return absolute(prog);
  }
  const char* env_path = std::getenv("PATH");
  const std::string_view search = env_path != nullptr ? env_path : kDefaultPath;
  bool saw_not_executable = false;
  std::size_t start = 0;
  while (start <= search.size()) {
    std::size_t end = search.find(':', start);
    if (end == std::string_view::npos) end = search.size();
    // An empty PATH entry means the current directory.
    const std::string_view dir = end > start ? search.substr(start, end - start) : ".";
    const std::string candidate = fmt::format("{}/{}", dir, prog);
    const Found f = check(candidate);
    if (f == Found::ok) {
      check_exec_format(prog, candidate);
      return absolute(candidate);
    }
    if (f == Found::not_executable) saw_not_executable = true;
    start = end + 1;
  }
  if (saw_not_executable) fail(prog, Found::not_executable);
  throw Error(ErrorKind::target, fmt::format("{}: not found in PATH", prog),
              fmt::format("give a path (./{}) or add its directory to PATH", prog));
}

}  // namespace obscheck
