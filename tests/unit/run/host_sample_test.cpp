// run/host_sample: /proc/stat parsed exactly, and the host's load of one run.
#include <catch2/catch.hpp>

#include "run/host_sample.h"

using namespace obscheck;

namespace {

// The head and tail of a real /proc/stat of a 2-CPU guest.
constexpr const char* kStat =
    "cpu  164508 105 21236 92631 546 7 241 82 0 0\n"
    "cpu0 80306 39 10005 49016 118 0 112 43 0 0\n"
    "cpu1 84201 65 11230 43614 427 0 129 39 0 0\n"
    "intr 5963524 0 9 0 0\n"
    "ctxt 10424839\n"
    "btime 1763931712\n"
    "processes 130613\n"
    "procs_running 3\n"
    "procs_blocked 0\n"
    "softirq 3166404 0 572117 4 1218041\n";

struct rusage usage(long utime_us, long stime_us) {
  struct rusage u {};
  u.ru_utime.tv_sec = utime_us / 1000000;
  u.ru_utime.tv_usec = utime_us % 1000000;
  u.ru_stime.tv_sec = stime_us / 1000000;
  u.ru_stime.tv_usec = stime_us % 1000000;
  return u;
}

}  // namespace

TEST_CASE("/proc/stat: busy ticks are user+nice+system+irq+softirq+steal of the cpu line, procs_running") {
  const auto s = parse_proc_stat(kStat);
  REQUIRE(s);
  CHECK(s->busy_ticks == 164508u + 105 + 21236 + 7 + 241 + 82);
  CHECK(s->idle_ticks == 92631u + 546);
  CHECK(s->procs_running == 3);
}

TEST_CASE("/proc/stat: a kernel's shorter cpu line counts the fields it has") {
  const auto s = parse_proc_stat("cpu  100 2 30 400\nprocs_running 1\n");
  REQUIRE(s);
  CHECK(s->busy_ticks == 132);
  CHECK(s->procs_running == 1);
}

TEST_CASE("/proc/stat: a missing or malformed line gives nothing") {
  CHECK_FALSE(parse_proc_stat(""));
  CHECK_FALSE(parse_proc_stat("cpu  100 2 30 400\n"));                  // no procs_running
  CHECK_FALSE(parse_proc_stat("procs_running 1\n"));                     // no cpu line
  CHECK_FALSE(parse_proc_stat("cpu  100 2 30\nprocs_running 1\n"));      // three fields
  CHECK_FALSE(parse_proc_stat("cpu0 1 2 3 4\nprocs_running 1\n"));       // a per-CPU line only
  CHECK_FALSE(parse_proc_stat("cpu  1 2 3 4\nprocs_running x\n"));
}

TEST_CASE("a run's host load: other CPU time is busy ticks less the target's own CPU time") {
  const ProcStat before{1000, 1}, after{1003, 2};
  // 3 ticks at 100 Hz = 30 ms busy; the target used 9 ms user + 1 ms system.
  const HostLoadRecord j = host_load(before, after, usage(9000, 1000), 100);
  CHECK(j.other_cpu_ns == 20000000);
  CHECK(j.procs_running == 2u);
  CHECK(j.tick_ns == 10000000u);
  CHECK(j.busy_cpu_ns == 30000000u);  // every process's, whole ticks
  // Both sides in ticks: the target's 4 ms round to no tick, and a run whose own ticks
  // were missed reads 0, never below (it read -4 ms when microseconds were subtracted
  // from ticks).
  CHECK(host_load(before, ProcStat{1000, 1}, usage(4000, 0), 100).other_cpu_ns == 0);
  // 16 ms of its own round to 2 ticks: more than the 1 tick seen, still 0.
  CHECK(host_load(before, ProcStat{1001, 1}, usage(16000, 0), 100).other_cpu_ns == 0);
  // 250 Hz: 4 ms a tick.
  CHECK(host_load(before, after, usage(0, 0), 250).other_cpu_ns == 12000000);
  // Idle time over the run: idle + iowait ticks.
  CHECK(host_load(ProcStat{1000, 1, 500}, ProcStat{1003, 2, 507}, usage(0, 0), 100).idle_cpu_ns == 70000000u);
}

TEST_CASE("other CPU time is never negative, whatever the target's time and the ticks seen") {
  for (std::uint64_t ticks = 0; ticks < 5; ++ticks)
    for (long us = 0; us < 60000; us += 1700) {
      const HostLoadRecord j = host_load(ProcStat{100, 1, 0}, ProcStat{100 + ticks, 1, 0}, usage(us, us / 3), 100);
      REQUIRE(j.other_cpu_ns);
      CHECK(*j.other_cpu_ns >= 0);
      CHECK(*j.other_cpu_ns % 10000000 == 0);  // whole ticks
    }
}

TEST_CASE("this host's /proc/stat reads, with the reader itself running") {
  const auto s = read_proc_stat();
  REQUIRE(s);
  CHECK(s->procs_running >= 1);
  CHECK(s->busy_ticks > 0);
  CHECK(clock_ticks_per_second() > 0);
}
