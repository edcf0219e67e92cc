// analysis/: how busy the host was during a check, block by block, and when that
// changed (docs/statistics.md "The host's load": a busy host must not be read as an effect). Pure:
// a RunTable in, a HostLoad out.
//
// Load per measured block: the other processes' CPU time of its runs (the host's busy
// time less the target's own, RunTable's host_busy_cpu_ns less utime and stime; in
// journals without it, host_other_cpu_ns as recorded by the runner) over their wall time, in CPUs busy
// elsewhere while the target ran. Runs without a host record are left out; a block
// with none has no load. A tick of /proc/stat is 10 ms, so one short block reads its
// load coarsely; the change detection below works on many blocks at once.
//
// Change detection: binary segmentation of the block series for shifts in the mean
// (Scott & Knott, "A cluster analysis method for grouping means in the analysis of
// variance", 1974; Vostrikova, "Detecting disorder in multidimensional random
// processes", 1981), searching at each step for an interval whose mean differs from
// the rest's (an epidemic change, which a single cut misses when a busy phase is short
// against the whole check). Within a segment of n blocks the interval [i, j) with the
// largest
//     z = |mean(inside) − mean(rest)| · sqrt(n_inside · n_rest / n) / sigma
// becomes its own segment when z >= kLoadChangeZ, the two means differ by at least
// kLoadStepCpus, three quarters of its blocks lie kLoadStepCpus beyond the rest's
// median (so a burst of a block or two cannot make a phase), and every piece has
// kMinLoadSegment blocks or more; each piece is then searched again. sigma is the
// block-to-block noise, robust to the steps themselves: 1.4826 · median |L(i+1) − L(i)|
// / sqrt(2) (a step moves one difference only), at least kLoadNoiseFloorCpus.
// A segment is busy when its mean load exceeds the quietest segment's by at least
// kLoadStepCpus, or, judged against the host itself, when other processes took at
// least kLoadStepCpus and left the host less than kIdleShareCpus idle (a host
// saturated throughout has no quieter part to compare with); its blocks are the busy
// blocks. The idle share is that of journals that record it (host_idle_cpu_ns).
inline constexpr double kIdleShareCpus = 0.5;
#pragma once

#include <cstddef>
#include <string>
#include <vector>

#include "record/run_table.h"

namespace obscheck {

// (kIdleShareCpus: less than half a CPU left idle while the target ran means the
// target and the driver competed with other processes for the CPUs.)
// A fifth of a CPU was too small to tell a load step from tick noise in calibration,
// a quarter is the smallest load that slows a run measurably on a 2-CPU guest.
inline constexpr double kLoadStepCpus = 0.25;
// Calibrated (tests/unit/analysis/host_load_test.cpp) on simulated loads quantised as
// /proc/stat's ticks give them (8 runs of 5 or 13 ms a block, 300 blocks, 0.05 CPUs
// elsewhere): at 7, none of 1,000 quiet series is split, and a 0.9-CPU phase of 40
// blocks is found in all of 1,000, its ends within 2 blocks (exactly in 930). At 6, one
// quiet series in 1,000 was split: the search covers some 45,000 intervals.
inline constexpr double kLoadChangeZ = 7.0;
// A step shorter than three blocks is one busy moment, not a busy phase.
inline constexpr std::size_t kMinLoadSegment = 3;
// The noise estimate's floor: a quiet host reads 0 in most blocks, which would make the
// robust estimate 0 and any single tick a change.
inline constexpr double kLoadNoiseFloorCpus = 0.05;

struct LoadSegment {
  std::size_t first_block = 0, last_block = 0;  // measured block numbers, inclusive
  std::size_t blocks = 0;                       // blocks with a load in it
  double cpus = 0;                              // mean load (CPUs busy in other processes)
  double procs_running = 0;                     // mean run queue at the runs' ends
  double idle_cpus = 0;                         // mean CPUs idle on the host; NaN: not recorded
  bool busy = false;
};

struct HostLoad {
  bool recorded = false;            // some measured run carries the host's load
  std::vector<std::size_t> blocks;  // measured block numbers with a load, ascending
  std::vector<double> cpus;         // the load of each of `blocks`
  std::vector<double> idle;         // the host's idle CPUs in each of `blocks` (NaN: not recorded)
  double noise = 0;                 // sigma (CPUs) the change detection used
  std::vector<LoadSegment> segments;  // in block order; one when the load never changed
  double quiet_cpus = 0;            // the quietest segment's load
  std::vector<std::size_t> busy_blocks;  // the blocks of busy segments, ascending
};

HostLoad analyse_host_load(const RunTable& t);

// One sentence for the report: "the host was busy during blocks 37-80: 0.90 CPUs in
// other processes, against 0.02 in the quietest blocks" (one clause per busy segment),
// "the host's load stayed near 0.02 CPUs in other processes", or "the host's load was
// not recorded" for a journal without it.
std::string describe_host_load(const HostLoad& h);

}  // namespace obscheck
