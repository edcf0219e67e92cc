// observe/: the simulated PMU (`--backend sim`) for hosts without a hardware PMU.
//
// The target runs under valgrind --tool=cachegrind with cache and branch simulation
// on; the counts come from cachegrind's output file (summary line) once the run ends.
// The simulated events and the cycle model are listed in events/sim_events.h.
//
// Determinism: the simulation is a pure function of the program, its input, its
// environment and the cache geometry, so one run per configuration suffices; a report
// says "deterministic: one run per configuration" instead of a confidence interval,
// and a second run serves only to confirm that the counts repeat.
//
// Layout under valgrind (measured with valgrind 3.19 on Debian 12, x86-64; the unit
// tests re-check it on every build):
//  - valgrind builds the client's initial stack itself, from the environment it was
//    given, at its own fixed top (0x1fff001000 here, not the kernel's). The client's
//    stack addresses move with the environment's size as natively: by the size
//    difference rounded to 16 bytes (the ABI's stack alignment), though the rounding's
//    phase differs from a native run, because valgrind's strings above the stack
//    differ from the kernel's.
//  - valgrind's core removes VALGRIND_LAUNCHER from the client's environment and adds
//    exactly one variable, LD_PRELOAD=<libexec>/vgpreload_core-amd64-linux.so
//    (cachegrind has no preload of its own), prepended to the user's LD_PRELOAD if one
//    is set. Its size is the same in every run, so a held environment (EnvBlock::pad_to
//    a constant total) holds the client's stack fixed.
//  - Debian's /usr/bin/valgrind is a shell wrapper that also exports LD_LIBRARY_PATH
//    (appending /usr/lib/debug), GLIBCPP_FORCE_NEW, GLIBCXX_FORCE_NEW and, through
//    dash, PWD before exec'ing valgrind.bin. Those would change which libraries load
//    and how the C++ library allocates, so find_valgrind() runs valgrind.bin directly
//    when it sits beside the wrapper; the client then sees the environment the driver
//    built plus the one LD_PRELOAD.
//  - valgrind hands a file that is not ELF (no "#!" either) to /bin/sh, where a native
//    execve fails with ENOEXEC; sim_launch_spec refuses such a target up front so both
//    backends fail alike.
#pragma once

#include <sys/types.h>

#include <cstddef>
#include <cstdint>
#include <functional>
#include <string>
#include <string_view>
#include <vector>

#include "events/sim_events.h"
#include "launch/launcher.h"
#include "observe/reading.h"
#include "plan/observer.h"

namespace obscheck {

// One simulated cache. Cachegrind's constraints (cachegrind/cg-arch.c, check_cache):
// line a power of two and >= 16 bytes, size > line, assoc >= 1 and <= size / line,
// size divisible by line * assoc, and size / (line * assoc) sets a power of two.
struct SimCache {
  std::size_t size = 0;   // bytes
  std::size_t assoc = 0;  // ways (1: direct-mapped)
  std::size_t line = 0;   // bytes
  bool operator==(const SimCache&) const = default;
};

// The geometry a simulation uses: always passed to cachegrind explicitly, so a journal
// records what was simulated whatever cachegrind would have auto-detected.
struct SimGeometry {
  SimCache i1, d1, ll;
  std::string source;              // "host sysfs" | "--sim-cache" | "valgrind default"
  std::vector<std::string> notes;  // adjustments made to fit cachegrind, one line each
  bool operator==(const SimGeometry&) const = default;
};

// cachegrind's x86/amd64 defaults when it cannot detect the caches (cg-arch.c).
SimGeometry valgrind_default_geometry();

// Empty when `c` satisfies cachegrind's constraints, else the reason in cachegrind's
// words ("cache set count is not a power of two").
std::string sim_cache_problem(const SimCache& c);

// Makes a cache cachegrind can simulate, as cachegrind itself does for its LL cache
// (valgrind 3.19, maybe_tweak_LLc): when the set count S = size/(line*assoc) is not a
// power of two, S becomes the largest power of two below it, the associativity grows
// by the same factor (rounded), and the size is recomputed. E.g. 480 MiB, 16-way,
// 64 B lines (491,520 sets) becomes 30-way with 262,144 sets, same size. A cache that
// already fits is returned as is. Throws Error(usage) when no such adjustment exists
// (line not a power of two or < 16, fewer than one set).
SimCache fit_sim_cache(const SimCache& c);

// This host's L1i, L1d and last-level caches from
// <sysfs_root>/devices/system/cpu/cpu0/cache/index*/{level,type,size,
// ways_of_associativity,coherency_line_size} ("48K" sizes accepted), each fitted with
// fit_sim_cache; an adjustment adds a note ("LL: host 503316480 B 16-way 64 B lines
// has 491520 sets, not a power of two; simulated 30-way, as cachegrind does") and
// source stays "host sysfs". Missing or unreadable entries: valgrind_default_geometry()
// for the caches not found, with a note and source "valgrind default" if none was found.
SimGeometry host_sim_geometry(const std::string& sysfs_root = "/sys");

// Parses --sim-cache: comma-separated KEY=SIZE,ASSOC,LINE groups with KEY in I1, D1,
// LL, any subset in any order, e.g. "D1=32768,8,64,LL=8388608,16,64". Caches not given
// keep `defaults`; source becomes "--sim-cache" and the defaults' notes are kept for
// the caches still taken from them. Throws Error(usage) for a malformed spec, an
// unknown key, a repeated key, a number that is not a positive integer, or a cache
// cachegrind cannot simulate (naming the rule, with a nearby valid geometry as hint).
SimGeometry parse_sim_cache(std::string_view spec, const SimGeometry& defaults);

// "I1=65536,16,64 D1=49152,12,64 LL=503316480,30,64" — as --sim-cache takes it.
std::string format_sim_geometry(const SimGeometry& g);

// valgrind to run: valgrind.bin beside the resolved `valgrind` when it exists (see the
// Debian note above), else `valgrind` itself. Throws Error(host) "valgrind is not
// installed: apt-get install valgrind (tools/bootstrap installs it)" when PATH has none.
std::string find_valgrind();

// The launch that simulates `target`: path = find_valgrind(), argv = valgrind
// --tool=cachegrind --cache-sim=yes --branch-sim=yes --I1=… --D1=… --LL=…
// --cachegrind-out-file=<out_file> --log-file=<log_file> -q -- <target.path>
// <target.argv[1..]>. Environment, cwd, ASLR, CPU, timeout and stdio are the target's:
// valgrind passes the environment on (see above), so the target's output stays its own
// (valgrind's messages go to log_file). The client's argv[0] is target.path (valgrind
// executes the path it is given). The timeout is not scaled: give one that allows for
// the simulation's slowdown (typically 20-100x).
// Throws Error(target) when target.path is not an ELF executable or a "#!" script
// (valgrind would hand it to /bin/sh), Error(host) as find_valgrind,
// Error(internal) for an empty target argv.
LaunchSpec sim_launch_spec(const LaunchSpec& target, const SimGeometry& geometry,
                           const std::string& out_file, const std::string& log_file);

// Totals from a cachegrind output file.
struct SimCounts {
  std::vector<std::string> events;     // the "events:" line's names, in order
  std::vector<std::uint64_t> totals;   // the "summary:" line, same order
  std::string cmd;                     // the "cmd:" line
  std::vector<std::string> desc;       // the "desc:" lines (the geometry cachegrind used)
  // The total of one raw event; Error(internal) when the file had no such event.
  std::uint64_t get(std::string_view event) const;
};

// Parses cachegrind's output format (valgrind 3.19: "desc:", "cmd:", "events:", then
// per-line records, then "summary:"; a "totals:" line is accepted for "summary:").
// Only the header lines and the summary are read. Throws Error(internal) when there is
// no events: or summary: line, a summary value is not a number, or the counts differ.
SimCounts parse_cachegrind_out(std::string_view text);

// One Reading per wanted event, in order: raw = the event's weighted sum of counts,
// value = raw, exact. Convention: time_enabled = time_running = 1 and scale = 1 (the
// simulated counter "ran for the whole run"; never multiplexed, never NaN). Throws
// Error(internal) when the counts lack a raw event the formula needs (a run without
// --cache-sim or --branch-sim).
std::vector<Reading> sim_readings(const SimCounts& counts, const std::vector<SimEvent>& wanted);

struct SimRun {
  std::vector<Reading> readings;  // in `wanted` order
  ExitInfo exit;                  // the target's status as valgrind passed it on
  SimCounts counts;               // every raw cachegrind total of the run
};

// Runs one simulated measurement end to end: a private temporary directory holds the
// output and log files (removed afterwards, also on error), CorkedChild spawns
// sim_launch_spec(...), releases it and waits. A target that runs and exits non-zero
// or dies of a signal still yields its readings (cachegrind writes its file at the
// client's exit) with that ExitInfo: the caller judges the run as it would a native
// one. With Stdio::discard the output is captured instead, so a failure can quote it.
// Throws Error(target) when valgrind did not run the target to its end (no output
// file: valgrind could not execute it, refused an option, or was killed), quoting
// valgrind's own message; Error(target_failed) when it timed out; else as
// sim_launch_spec and CorkedChild. `started`, when set, is called with valgrind's pid
// (the leader of the target's process group) once it is spawned, before it runs: a
// caller that must be able to kill the run (Ctrl-C) takes it from there.
SimRun run_sim(const LaunchSpec& target, const SimGeometry& geometry,
               const std::vector<SimEvent>& wanted, const std::function<void(pid_t)>& started = {});

// Observers other than counters and compile-time probes cannot act on a simulated
// program: uprobes and breakpoints need perf_event on the real process (valgrind's
// translated code never executes the probed instruction), sampling needs a PMU or a
// timer on the real process, and a profiler command would profile valgrind. Returns for
// the counters and a build's compile-time probes; throws Error(usage) naming the
// observer and why for the others.
void require_sim_observer(ObserverKind observer);

}  // namespace obscheck
