#include <fmt/core.h>

#include <algorithm>
#include <numeric>

#include "launch/launcher.h"
#include "util/error.h"

extern char** environ;

namespace obscheck {
namespace {

bool has_name(const std::string& entry, const std::string& name) {
  return entry.size() > name.size() && entry[name.size()] == '=' &&
         entry.compare(0, name.size(), name) == 0;
}

}  // namespace

EnvBlock EnvBlock::from_current() {
  std::vector<std::string> vars;
  for (char** e = environ; e != nullptr && *e != nullptr; ++e) vars.emplace_back(*e);
  return EnvBlock(std::move(vars));
}

EnvBlock EnvBlock::for_target() {
  EnvBlock env = from_current();
  for (const char* name : kShellBookkeeping) env.unset(name);
  return env;
}

void EnvBlock::set(const std::string& name, const std::string& value) {
  auto it = std::find_if(vars_.begin(), vars_.end(),
                         [&](const std::string& v) { return has_name(v, name); });
  if (it != vars_.end()) {
    *it = name + "=" + value;
  } else {
    vars_.push_back(name + "=" + value);
  }
}

void EnvBlock::unset(const std::string& name) {
  std::erase_if(vars_, [&](const std::string& v) { return has_name(v, name); });
}

std::size_t EnvBlock::size_bytes() const {
  return std::accumulate(vars_.begin(), vars_.end(), std::size_t{0},
                         [](std::size_t n, const std::string& v) { return n + env_entry_bytes(v); });
}

void EnvBlock::pad_to(std::size_t total, const std::string& pad_name) {
  auto it = std::find_if(vars_.begin(), vars_.end(),
                         [&](const std::string& v) { return has_name(v, pad_name); });
  const std::size_t rest = size_bytes() - (it != vars_.end() ? env_entry_bytes(*it) : 0);
  // "NAME=" and the NUL are the least the padding variable itself occupies.
  const std::size_t least = rest + pad_name.size() + 2;
  if (total < least) {
    throw Error(ErrorKind::usage,
                fmt::format("cannot pad the environment to {} bytes: it already needs {} "
                            "({} for the variables, {} for an empty {})",
                            total, least, rest, pad_name.size() + 2, pad_name),
                fmt::format("use --env-pad {} or more, or unset some variables", least));
  }
  // One variable longer than execve takes would fail every run with E2BIG: refused
  // before its bytes are allocated.
  if (total - least + pad_name.size() + 2 > kMaxArgStringBytes)
    throw Error(ErrorKind::usage,
                fmt::format("cannot pad the environment to {} bytes: the padding variable {} would be {} bytes, and "
                            "Linux runs no program with a variable over {} bytes (MAX_ARG_STRLEN)",
                            total, pad_name, total - least + pad_name.size() + 2, kMaxArgStringBytes),
                fmt::format("use --env-pad {} or less", least + kMaxArgStringBytes - pad_name.size() - 2));
  std::string entry = pad_name + "=" + std::string(total - least, 'x');
  if (it != vars_.end()) {
    *it = std::move(entry);
  } else {
    vars_.push_back(std::move(entry));
  }
}

}  // namespace obscheck
