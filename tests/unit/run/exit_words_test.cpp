// How a run's end is said (run/measure.h): the words every failure message starts from,
// and the explanation a trap under a breakpoint or uprobe gets.
#include <catch2/catch.hpp>

#include <csignal>

#include "run/measure.h"

using namespace obscheck;

TEST_CASE("exit words: each end in its words, the run and the warm-up named") {
  ExitInfo code;
  code.exit_code = 3;
  CHECK(describe_exit(code, 0) == "exited with code 3");
  CHECK(measure_failure(code, 0, 1, 11, 0) == "the target exited with code 3 in run 1 of 11 (a warm-up run)");
  CHECK(measure_failure(code, 2, 1, 11, 0) == "the target exited with code 3 in run 3 of 11");
  ExitInfo late;
  late.timed_out = true;
  late.signal = SIGKILL;
  CHECK(describe_exit(late, 2) == "timed out after 2 s and was killed");
}

TEST_CASE("exit words: a trap is explained as the observer's, any other signal is not") {
  ExitInfo trap;
  trap.signal = SIGTRAP;
  CHECK(trap_hint(trap) ==
        "; a trap the program did not catch: where a hardware breakpoint or a uprobe is set, most likely the "
        "observer's own trap reaching it (seen on virtual machines), an effect of the observation");
  CHECK(measure_failure(trap, 1, 0, 2, 0).find("in run 2 of 2; a trap the program did not catch") != std::string::npos);
  ExitInfo segv;
  segv.signal = SIGSEGV;
  CHECK(trap_hint(segv).empty());
  CHECK(trap_hint(ExitInfo{}).empty());
  ExitInfo timed_out;  // killed for its timeout: the timeout is the reason, whatever the signal
  timed_out.timed_out = true;
  timed_out.signal = SIGTRAP;
  CHECK(trap_hint(timed_out).empty());
}
