// record/: one run line's fields as read, before they become a RunRecord or a row of a
// RunTable, and the one check every reader of a journal applies to them.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "plan/plan.h"

namespace obscheck {

// Bounds a run line's values are held to (beyond their JSON types). Each is far
// beyond any real run and small enough that a double holds it exactly (2^53), so no
// later conversion (a column of doubles, a timeval, a long) can overflow.
inline constexpr std::uint64_t kMaxJournalCount = std::uint64_t{1} << 53;
// Nanoseconds: 2^53 ns is 104 days, longer than any run obscheck could time out.
inline constexpr std::uint64_t kMaxRunNs = std::uint64_t{1} << 53;
// An exit status as wait4 gives it (-1 when killed by a signal); a signal number.
inline constexpr std::int64_t kMinExitCode = -1, kMaxExitCode = 255, kMaxSignal = 127;
// A reading's name (an event name) and a run's readings: far beyond any counter list.
inline constexpr std::size_t kMaxReadingName = 1024;
inline constexpr std::size_t kMaxReadingsPerRun = 1024;

// How busy the host was around one run (run/host_sample.h measures it): the run line's
// extra "host", {"busy_cpu_ns","idle_cpu_ns","other_cpu_ns","procs_running","tick_ns"},
// all whole numbers. Journals written before busy, idle and tick were recorded have
// only other_cpu_ns and procs_running, and those written before both sides were taken
// in ticks can hold an other_cpu_ns below 0 (so it is signed); a member absent from
// the line is nullopt. Bounded as a run line's counts are (kMaxJournalCount, +-2^53).
struct HostLoadRecord {
  std::optional<std::int64_t> other_cpu_ns;
  std::optional<std::uint64_t> busy_cpu_ns, idle_cpu_ns, tick_ns, procs_running;
  bool operator==(const HostLoadRecord&) const = default;
};

// The strings are copies reused from line to line (their capacity stays), so reading a
// journal allocates nothing per line once the first few lines are read.
struct RunFields {
  struct Reading {
    std::string name;
    std::uint64_t raw = 0, enabled = 0, running = 0;
    std::optional<double> value, scale;  // JSON null: not finite when written
    bool multiplexed = false;
    std::string fault;  // Reading::fault; "" (and absent from the line) when none
  };
  std::uint64_t index = 0, block = 0, position = 0, config = 0;
  std::string config_id;
  bool warmup = false;
  std::uint64_t env_bytes = 0;
  std::int64_t code = 0, signal = 0;
  bool timed_out = false;
  std::uint64_t wall_ns = 0, output_bytes = 0;
  std::optional<std::string> output_sha256;  // null: output not captured
  std::uint64_t utime_ns = 0, stime_ns = 0, maxrss_kb = 0, minflt = 0, majflt = 0, nvcsw = 0, nivcsw = 0;
  // "rusage.pre_exec_maxrss_kb" (launch/launcher.h ExitInfo::pre_exec_maxrss_kb): absent
  // in journals written before it was recorded, and when the child could not report it.
  std::optional<std::uint64_t> pre_exec_maxrss_kb;
  std::vector<Reading> readings;  // the first n_readings are this line's
  std::size_t n_readings = 0;
  std::string_view extra;  // the "extra" value's JSON text, "{}" when absent
  // extra's "host", decoded with the line (the one decoder of it: record/run_line.cpp);
  // nullopt when the run has none. Its errors are "extra.host.KEY ..." field errors.
  std::optional<HostLoadRecord> host;
};

// A field that fails its check: its path in the line ("exit.wall_ns",
// "readings[1].value") and why.
struct FieldError {
  std::string field;
  std::string why;
};

// What a run line must agree with in the journal's plan.
struct RunLimits {
  std::size_t block_size = 0;      // configurations per block
  std::size_t blocks = 0;          // warm-up and measured blocks the plan can run
  std::size_t warmup_blocks = 0;
  std::vector<std::string> config_ids;
};
RunLimits run_limits(const Plan& plan);

// The first field out of its range, or of another run than the plan says (index not
// block * block_size + position, configuration or id not the plan's, warm-up flag not
// the block's), or nothing. Without `limits`, only the ranges are checked.
std::optional<FieldError> check_run_fields(const RunFields& f, const RunLimits* limits);

}  // namespace obscheck
