// util/: rusage's times (a timeval: seconds and microseconds) in nanoseconds, and back.
// One definition for every module that reads or records them.
#pragma once

#include <sys/time.h>

#include <cstdint>

namespace obscheck {

inline constexpr std::uint64_t kNsPerSecondTv = 1'000'000'000;
inline constexpr std::uint64_t kNsPerMicrosecondTv = 1'000;

// Exact: a timeval counts whole microseconds.
inline std::uint64_t timeval_ns(const timeval& t) {
  return static_cast<std::uint64_t>(t.tv_sec) * kNsPerSecondTv +
         static_cast<std::uint64_t>(t.tv_usec) * kNsPerMicrosecondTv;
}

// The timeval that holds `ns`, truncated to whole microseconds (as the kernel reports).
inline timeval ns_timeval(std::uint64_t ns) {
  timeval tv{};
  tv.tv_sec = static_cast<time_t>(ns / kNsPerSecondTv);
  tv.tv_usec = static_cast<suseconds_t>((ns % kNsPerSecondTv) / kNsPerMicrosecondTv);
  return tv;
}

// `ns` as rusage holds it (whole microseconds), as a number for the analysis.
inline double rusage_ns(std::uint64_t ns) { return static_cast<double>(timeval_ns(ns_timeval(ns))); }

}  // namespace obscheck
