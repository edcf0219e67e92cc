// A student without root, at the host's perf_event_paranoid: the demo and a check of
// software counters succeed, counting user level only, and say so. Needs root to drop
// to the nobody user (setpriv); skipped, with a warning, where that cannot be done or
// where paranoid lets everyone count the kernel (nothing to fall back from).
#include <sys/stat.h>
#include <unistd.h>

#include <catch2/catch.hpp>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <string>

#include "run_cli.h"
#include "../support/nobody_reach.h"

using obscheck::test::contains;
using obscheck::test::kNobody;

namespace {

struct Result {
  int code = -1;
  std::string out;
};

// Runs obscheck ARGS as nobody in a fresh directory nobody owns; stdout and stderr together.
Result run_as_nobody(const std::string& dir, const std::string& args) {
  // nobody's journals go to a state directory of its own in `dir` (its home does not exist).
  const std::string cmd = "cd " + dir + " && XDG_STATE_HOME=" + dir + "/state /usr/bin/setpriv --reuid=65534 "
                          "--regid=65534 --clear-groups " +
                          std::string(OBSCHECK_BIN) + " " + args + " 2>&1";
  Result r;
  if (FILE* p = popen(cmd.c_str(), "r")) {
    char buf[4096];
    for (std::size_t n; (n = fread(buf, 1, sizeof buf, p)) > 0;) r.out.append(buf, n);
    const int status = pclose(p);
    r.code = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  }
  return r;
}

int paranoid() {
  int v = 2;
  std::ifstream("/proc/sys/kernel/perf_event_paranoid") >> v;
  return v;
}

}  // namespace

TEST_CASE("unprivileged: the demo and a software-counter check count user level only and say so") {
  if (geteuid() != 0 || access("/usr/bin/setpriv", X_OK) != 0) {
    WARN("SKIPPED: needs root and setpriv to run as the nobody user");
    return;
  }
  SKIP_UNLESS_NOBODY_REACHES(OBSCHECK_BIN);
  if (paranoid() <= 1) {
    WARN("SKIPPED: perf_event_paranoid is " << paranoid() << ": every user may count the kernel here");
    return;
  }
  const std::string dir = "/tmp/obscheck-nobody-" + std::to_string(getpid());
  std::filesystem::create_directories(dir);
  REQUIRE(chown(dir.c_str(), kNobody, kNobody) == 0);

  const Result enc = run_as_nobody(dir, "events --encode task-clock,cs:k");
  INFO(enc.out);
  CHECK(enc.code == 0);
  CHECK(contains(enc.out, "note: counting user level only: perf_event_paranoid is " + std::to_string(paranoid()) +
                              " and this user has no CAP_PERFMON"));

  const Result check = run_as_nobody(dir, "--verbose --counters task-clock,page-faults --runs 3 -- " +
                                              obscheck::test::workload("compute") + " 100");
  INFO(check.out);
  CHECK((check.code == 0 || check.code == 1));  // 1: a verdict other than "not perturbed"
  CHECK(contains(check.out, "warning: counting user level only"));
  CHECK(contains(check.out, "verdicts:"));

  const Result demo = run_as_nobody(dir, "demo --verbose --runs 3");
  INFO(demo.out);
  CHECK((demo.code == 0 || demo.code == 1));
  CHECK(contains(demo.out, "at user level only"));
  CHECK(contains(demo.out, "warning: counting user level only"));
  CHECK(contains(demo.out, "verdicts:"));
  std::filesystem::remove_all(dir);
}
