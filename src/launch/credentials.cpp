#include <grp.h>
#include <pwd.h>
#include <unistd.h>

#include <fmt/core.h>

#include <cerrno>
#include <charconv>
#include <cstring>
#include <vector>

#include "launch/launcher.h"
#include "util/error.h"

namespace obscheck {
namespace {

// Buffer for getpwnam_r/getpwuid_r when sysconf gives no hint (glibc's own default).
constexpr std::size_t kPasswdBufferBytes = 16384;

bool all_digits(const std::string& s) {
  return !s.empty() && s.find_first_not_of("0123456789") == std::string::npos;
}

}  // namespace

Credentials credentials_of(const std::string& user) {
  const long hint = ::sysconf(_SC_GETPW_R_SIZE_MAX);
  std::vector<char> buf(hint > 0 ? static_cast<std::size_t>(hint) : kPasswdBufferBytes);
  passwd pw{};
  passwd* found = nullptr;
  int err = 0;
  for (;;) {
    if (all_digits(user)) {
      uid_t uid = 0;
      const auto [p, ec] = std::from_chars(user.data(), user.data() + user.size(), uid);
      if (ec != std::errc() || p != user.data() + user.size())
        throw Error(ErrorKind::usage, fmt::format("--run-as {}: not a uid", user));
      err = ::getpwuid_r(uid, &pw, buf.data(), buf.size(), &found);
    } else {
      err = ::getpwnam_r(user.c_str(), &pw, buf.data(), buf.size(), &found);
    }
    if (err != ERANGE) break;
    buf.resize(buf.size() * 2);
  }
  if (found == nullptr)
    throw Error(ErrorKind::usage,
                err != 0 ? fmt::format("--run-as {}: cannot look the user up: {}", user, std::strerror(err))
                         : fmt::format("--run-as {}: no such user", user),
                "name a user of this host (getent passwd NAME), e.g. --run-as nobody or --run-as $SUDO_USER");
  Credentials c;
  c.user = pw.pw_name;
  c.uid = pw.pw_uid;
  c.gid = pw.pw_gid;
  int n = 16;
  for (;;) {
    c.groups.resize(static_cast<std::size_t>(n));
    int got = n;
    if (::getgrouplist(pw.pw_name, pw.pw_gid, c.groups.data(), &got) >= 0) {
      c.groups.resize(static_cast<std::size_t>(got));
      break;
    }
    if (got <= n) throw Error(ErrorKind::host, fmt::format("--run-as {}: cannot read the user's groups", user));
    n = got;
  }
  return c;
}

}  // namespace obscheck
