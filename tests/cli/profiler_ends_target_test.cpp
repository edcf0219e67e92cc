// A profiler command that ends its program before obscheck has opened the program's
// counters (gdb in batch mode does, at a breakpoint's first stop): a failed run of the
// command (exit 5, with the way out), not an event this host cannot count (exit 4).
// The window is a few microseconds wide, so the test makes it certain: the test PMU
// harness (tests/support/pmu_harness) kills obscheck-exec, the program's cork, as its
// counter is opened, and the open fails with ESRCH as the kernel's does then.
#include <sys/wait.h>

#include <catch2/catch.hpp>
#include <cstdio>
#include <cstdlib>
#include <string>

#include "../unit/temp_dir.h"
#include "run_cli.h"

using obscheck::test::TempDir;

TEST_CASE("profiler command: a program its profiler ended before the counters opened is a failed run, exit 5") {
#if !defined(__x86_64__)
  WARN("SKIPPED: tests/support/pmu_harness answers perf_event_open only for x86-64 system calls");
  return;
#endif
  TempDir dir;
  const std::string journal = dir.file("j.jsonl");
  const std::string err = dir.file("err");
  const std::string cmd = std::string("'") + OBSCHECK_PMU_HARNESS +
                          "' --slots 4 --rate 0:0=2 --kill-on-open obscheck-exec -- '" + OBSCHECK_BIN +
                          "' --observer-cmd 'env {argv}' --levels 0,1 --counters cycles -r 2 --journal '" + journal +
                          "' -- /bin/true > /dev/null 2> '" + err + "' < /dev/null";
  const int status = std::system(cmd.c_str());
  const std::string text = obscheck::test::slurp(err);
  INFO(text);
  REQUIRE(WIFEXITED(status));
  CHECK(WEXITSTATUS(status) == 5);
  CHECK(text.find("error: the profiler command ended the target (pid ") != std::string::npos);
  CHECK(text.find("before it ran; the command was killed by signal 9") != std::string::npos);
  CHECK(text.find("hint: a debugger in batch mode kills its program at the first stop: use a breakpoint "
                        "that does not stop (gdb: dprintf)") != std::string::npos);
  CHECK(text.find("perf_event_open") == std::string::npos);  // not blamed on the event
  // The journal stays valid: its report reads it (no run finished).
  CHECK(std::system(("'" + std::string(OBSCHECK_BIN) + "' report '" + journal + "' > /dev/null 2>&1").c_str()) == 0);
}
