// launch/: --run-as. The corked child takes on the user's uid, gid and groups after
// it leaves the cork and before exec; the lookup names an unknown user.
#include <catch2/catch.hpp>

#include <pwd.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <fstream>
#include <string>

#include "launch/launcher.h"
#include "util/error.h"

using namespace obscheck;

TEST_CASE("credentials_of looks a user up by name or uid, and names an unknown one", "[launch]") {
  const passwd* root = ::getpwuid(0);
  REQUIRE(root != nullptr);
  const Credentials by_name = credentials_of(root->pw_name);
  CHECK(by_name.uid == 0);
  CHECK(by_name.gid == root->pw_gid);
  CHECK(by_name.user == root->pw_name);
  CHECK(std::find(by_name.groups.begin(), by_name.groups.end(), root->pw_gid) != by_name.groups.end());
  const Credentials by_uid = credentials_of("0");
  CHECK(by_uid.user == root->pw_name);
  try {
    credentials_of("no-such-user-here");
    FAIL("an unknown user was found");
  } catch (const Error& e) {
    CHECK(e.kind() == ErrorKind::usage);
    CHECK(std::string(e.what()) == "--run-as no-such-user-here: no such user");
  }
}

TEST_CASE("run_as: the target's real and effective ids and groups are the user's, the environment untouched",
          "[launch]") {
  const passwd* pw = ::getpwnam("nobody");
  if (::geteuid() != 0 || pw == nullptr) {
    WARN("skipped: taking on another user needs root and a user 'nobody'");
    return;
  }
  LaunchSpec s;
  s.path = "/bin/sh";
  s.argv = {"/bin/sh", "-c", "echo \"$(id -ru) $(id -u) $(id -rg) $(id -g) $(id -G) $FOO\""};
  s.env = EnvBlock({"PATH=/usr/bin:/bin", "FOO=bar"});
  s.out = Stdio::capture;
  s.run_as = credentials_of("nobody");
  std::string groups;
  for (gid_t g : s.run_as->groups) groups += (groups.empty() ? "" : " ") + std::to_string(g);
  CorkedChild c = CorkedChild::spawn(s);
  c.release();
  const ExitInfo e = c.wait();
  REQUIRE(e.ok());
  const std::string u = std::to_string(pw->pw_uid), g = std::to_string(pw->pw_gid);
  CHECK(e.output == u + " " + u + " " + g + " " + g + " " + groups + " bar\n");
  CHECK(::geteuid() == 0);  // the driver keeps its own identity
}

TEST_CASE("run_as: a program the user may not execute is named with the user at release()", "[launch]") {
  if (::geteuid() != 0 || ::getpwnam("nobody") == nullptr) {
    WARN("skipped: taking on another user needs root and a user 'nobody'");
    return;
  }
  char dir[] = "/tmp/obscheck-run-as-XXXXXX";
  REQUIRE(::mkdtemp(dir) != nullptr);  // mode 0700: nobody cannot search it
  const std::string prog = std::string(dir) + "/prog";
  {
    std::ofstream(prog) << "#!/bin/sh\nexit 0\n";
  }
  ::chmod(prog.c_str(), 0755);
  LaunchSpec s;
  s.path = prog;
  s.argv = {prog};
  s.run_as = credentials_of("nobody");
  CorkedChild c = CorkedChild::spawn(s);
  try {
    c.release();
    FAIL("nobody ran a program in a directory it cannot search");
  } catch (const Error& e) {
    CHECK(e.kind() == ErrorKind::target);
    CHECK(std::string(e.what()) == prog + ": permission denied for --run-as nobody (not executable by that user, a "
                                          "directory on its path not searchable, or a noexec mount)");
  }
  ::unlink(prog.c_str());
  ::rmdir(dir);
}
