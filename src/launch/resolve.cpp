#include <sys/stat.h>
#include <unistd.h>

#include <fmt/core.h>

#include <cerrno>
#include <cstdlib>
#include <filesystem>
#include <string_view>

#include "launch/launcher.h"
#include "util/error.h"

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

}  // namespace

std::string resolve_target(const std::string& prog) {
  if (prog.empty()) throw Error(ErrorKind::usage, "no program to run: the name is empty");
  if (prog.find('/') != std::string::npos) {
    const Found f = check(prog);
    if (f != Found::ok) fail(prog, f);
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
    if (f == Found::ok) return absolute(candidate);
    if (f == Found::not_executable) saw_not_executable = true;
    start = end + 1;
  }
  if (saw_not_executable) fail(prog, Found::not_executable);
  throw Error(ErrorKind::target, fmt::format("{}: not found in PATH", prog),
              fmt::format("give a path (./{}) or add its directory to PATH", prog));
}

}  // namespace obscheck
