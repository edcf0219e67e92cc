// run/: how busy the host was around one run, for the journal (RunRecord::host, the
// run line's extra "host").
//
// Other processes' CPU time over a run is the host's busy CPU time between a reading of
// /proc/stat just before the target is released and one just after it is reaped, less
// the target's own CPU time (its rusage). /proc/stat counts whole clock ticks
// (USER_HZ, sysconf(_SC_CLK_TCK): 100 per second on Debian's kernels), charged to
// whatever runs when a tick falls, while rusage is in microseconds: subtracting the
// one from the other read below 0 whenever a tick of the target's own time fell
// outside the reading (measured: 17-69% of runs, down to -11 ms). So both sides are
// taken in ticks: the target's CPU time is rounded to whole ticks, and the difference,
// in whole ticks, is never below 0 (a run's other time is then known to a tick per CPU,
// `tick_ns`, and 0 means "below that resolution"); summed over the runs of a block it
// gives the CPUs busy elsewhere (analysis/host_load.h). The host's idle time over the
// run (idle + iowait ticks) is recorded too, so the analysis can judge a block busy
// against what the host had left, not only against the check's quietest part. The run
// queue is /proc/stat's procs_running at the end of the run: the runnable tasks, the
// driver itself among them.
#pragma once

#include <sys/resource.h>

#include <cstdint>
#include <optional>
#include <string_view>

#include "record/run_fields.h"

namespace obscheck {

struct ProcStat {
  // The aggregate "cpu" line: user + nice + system + irq + softirq + steal, in ticks
  // (guest time is already counted in user and nice; idle and iowait are not busy).
  std::uint64_t busy_ticks = 0;
  std::uint64_t procs_running = 0;
  std::uint64_t idle_ticks = 0;  // idle + iowait of the "cpu" line, in ticks
};

// Parses the text of /proc/stat. nullopt when the "cpu " line (with at least its
// first four fields) or the procs_running line is missing or malformed.
std::optional<ProcStat> parse_proc_stat(std::string_view text);

// Reads /proc/stat with one read(2) (about 50 µs; taken only while the target is corked
// or already reaped, never while it runs). nullopt when it cannot be read or parsed.
std::optional<ProcStat> read_proc_stat();

// other_cpu_ns: max(0, (after.busy − before.busy) − round(the target's user + system
// time / tick)) x tick; busy_cpu_ns: (after.busy − before.busy) x tick (every
// process's, the target's included: summed over a block with the target's exact CPU
// time subtracted, the ticks' noise averages out without the bias of the per-run floor
// at 0); idle_cpu_ns: (after.idle − before.idle) x tick; tick_ns: tick; procs_running:
// after.procs_running; tick = 1e9 / ticks_per_second ns. A counter that went
// backwards reads 0. ticks_per_second > 0.
HostLoadRecord host_load(const ProcStat& before, const ProcStat& after, const struct rusage& target,
                         long ticks_per_second);

// sysconf(_SC_CLK_TCK), or 100 when it is unavailable (the Linux value since 2.6).
long clock_ticks_per_second();

}  // namespace obscheck
