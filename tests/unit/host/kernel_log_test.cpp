// host/kernel_log: the kernel's throttling messages found in a log buffer's text, and
// the live log either read or refused with the reason.
#include "host/kernel_log.h"

#include <catch2/catch.hpp>

using namespace obscheck;

TEST_CASE("scan_log_text counts perf's throttling messages and keeps the last") {
  const std::string log =
      "<6>[    0.000000] Linux version 6.1.0\n"
      "<4>[  812.345678] perf: interrupt took too long (2502 > 2500), lowering kernel.perf_event_max_sample_rate to "
      "79750\n"
      "<6>[  900.000001] eth0: link up\n"
      "<4>[  955.100000] perf: interrupt took too long (3130 > 3127), lowering kernel.perf_event_max_sample_rate to "
      "63750";
  const KernelLogScan s = scan_log_text(log, kPerfThrottleMessage);
  CHECK(s.readable);
  CHECK(s.matches == 2);
  CHECK(s.last ==
        "perf: interrupt took too long (3130 > 3127), lowering kernel.perf_event_max_sample_rate to 63750");
  CHECK(scan_log_text("", kPerfThrottleMessage).matches == 0);
  CHECK(scan_log_text("<6>[ 1.0] nothing\n", kPerfThrottleMessage).last.empty());
}

TEST_CASE("scan_kernel_log reads the log or says why not") {
  const KernelLogScan s = scan_kernel_log(kPerfThrottleMessage);
  if (!s.readable) {
    CHECK_THAT(s.why, Catch::Contains("the kernel's log cannot be read"));
    WARN("SKIPPED: the kernel's log is not readable here: " << s.why);
    return;
  }
  CHECK(s.why.empty());
}
