// observe/lifetime: a process's exec and exit by the kernel's records. A child that
// sleeps 50 ms after its exec lives at least that long from exec to exit, however
// loaded the host (the upper bound is only a sanity check).
#include "observe/lifetime.h"

#include <sys/wait.h>
#include <unistd.h>

#include <catch2/catch.hpp>

using namespace obscheck;

TEST_CASE("LifetimeWatch times a process from its exec to its exit") {
  int go[2];
  REQUIRE(::pipe(go) == 0);
  const pid_t child = ::fork();
  REQUIRE(child >= 0);
  if (child == 0) {
    char b;
    ::close(go[1]);
    if (::read(go[0], &b, 1) != 1) ::_exit(125);
    ::execl("/bin/sleep", "sleep", "0.05", static_cast<char*>(nullptr));
    ::_exit(127);
  }
  ::close(go[0]);
  LifetimeWatch watch = LifetimeWatch::open(child);
  REQUIRE(::write(go[1], "g", 1) == 1);
  ::close(go[1]);
  int status = 0;
  REQUIRE(::waitpid(child, &status, 0) == child);
  REQUIRE(WIFEXITED(status));
  REQUIRE(WEXITSTATUS(status) == 0);
  if (!watch.active()) {
    WARN("SKIPPED: the kernel refused the dummy event (perf_event_paranoid)");
    return;
  }
  const auto ns = watch.exec_to_exit();
  REQUIRE(ns.has_value());
  CHECK(*ns >= 50'000'000u);
  CHECK(*ns < 10'000'000'000u);
  // Inactive: nothing to say.
  CHECK_FALSE(LifetimeWatch().exec_to_exit().has_value());
}
