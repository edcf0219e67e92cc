// host/: what the kernel's log says about sampling being throttled. When a sampling
// interrupt takes too long the kernel lowers kernel.perf_event_max_sample_rate and logs
// "perf: interrupt took too long (N > M), lowering kernel.perf_event_max_sample_rate to
// R": a dose of "20 kHz" may then have sampled at far less.
#pragma once

#include <cstddef>
#include <string>
#include <string_view>

namespace obscheck {

// The kernel's message when it throttles perf's sampling (kernel/events/core.c).
inline constexpr std::string_view kPerfThrottleMessage = "perf: interrupt took too long";

struct KernelLogScan {
  bool readable = false;
  std::string why;           // when not readable: the reason, and what would make it so
  std::size_t matches = 0;   // lines of the log buffer that contain the text
  std::string last;          // the last of them (its text after the timestamp)
};

// Counts the lines of `log` (the kernel's log buffer as syslog(2) READ_ALL returns it:
// "<6>[  12.345678] text\n"...) that contain `needle`. Pure.
KernelLogScan scan_log_text(std::string_view log, std::string_view needle);

// The kernel's log buffer now (syslog(2) SYSLOG_ACTION_READ_ALL: what dmesg prints),
// scanned for `needle`. The buffer holds the messages since boot or since it last
// wrapped, not only those of one check. Not readable without CAP_SYSLOG when
// kernel.dmesg_restrict is 1: `why` says so.
KernelLogScan scan_kernel_log(std::string_view needle);

}  // namespace obscheck
