// analysis/host_load: the host's load per block and the blocks it was busy in, on
// fixed data with exact values, and the change detection's calibration on simulated
// tick-quantised loads.
#include <catch2/catch.hpp>

#include <algorithm>
#include <cmath>
#include <random>

#include "analysis/host_load.h"

using namespace obscheck;

namespace {

// One run per entry: (block, wall ns, other CPU ns); block 0 is the warm-up.
RunRecord run(std::size_t block, std::uint64_t wall_ns, std::int64_t other_ns, int queue = 1) {
  RunRecord r;
  r.block = block;
  r.warmup = block == 0;
  r.exit.wall_ns = wall_ns;
  r.host = HostLoadRecord{other_ns, {}, {}, {}, static_cast<std::uint64_t>(queue)};
  return r;
}

// As run(), with the host's idle CPU time over the run recorded too.
RunRecord run_idle(std::size_t block, std::uint64_t wall_ns, std::int64_t other_ns, std::int64_t idle_ns) {
  RunRecord r = run(block, wall_ns, other_ns, 3);
  r.host->idle_cpu_ns = static_cast<std::uint64_t>(idle_ns);
  return r;
}

// Blocks 1..20, two 10 ms runs each; blocks 8-14 have 20 ms of other CPU time per run
// (2 CPUs busy elsewhere), the rest none but block 3's one tick.
std::vector<RunRecord> step_runs() {
  std::vector<RunRecord> runs{run(0, 10000000, 50000000)};
  for (std::size_t b = 1; b <= 20; ++b) {
    const bool busy = b >= 8 && b <= 14;
    runs.push_back(run(b, 10000000, busy ? 20000000 : (b == 3 ? 10000000 : 0), busy ? 3 : 1));
    runs.push_back(run(b, 10000000, busy ? 20000000 : 0, busy ? 3 : 1));
  }
  return runs;
}

// The kernel's tick accounting: a run of `wall` ns on a host with `other` CPUs busy
// elsewhere sees the ticks that fell in it, whole, for the target and the others alike,
// less the target's own CPU time rounded to whole ticks, and never below 0, as
// run/host_sample.h records it.
// Returns the run, its target busy for all of `wall` (its rusage), with busy_cpu_ns
// (every process's ticks) beside the floored per-run other_cpu_ns.
RunRecord ticked(std::size_t block, double wall, double other, std::mt19937_64& rng) {
  constexpr double tick = 1e7;
  std::uniform_real_distribution<double> u(0, 1);
  const double ticks = std::floor((1 + other) * wall / tick + u(rng));
  RunRecord r = run(block, static_cast<std::uint64_t>(wall),
                    static_cast<std::int64_t>(std::max(0.0, ticks - std::round(wall / tick)) * tick));
  r.host->busy_cpu_ns = static_cast<std::uint64_t>(ticks * tick);
  const auto us = static_cast<long>(wall / 1000);
  r.exit.usage.ru_utime.tv_sec = us / 1000000;
  r.exit.usage.ru_utime.tv_usec = us % 1000000;
  return r;
}

// 300 blocks of 8 runs of 4-16 ms (bimodal, as compute 1000 here), `other` CPUs busy
// elsewhere, plus `busy` more in blocks [first, last].
std::vector<RunRecord> simulated(std::mt19937_64& rng, double other, double busy, std::size_t first, std::size_t last) {
  std::vector<RunRecord> runs;
  std::uniform_real_distribution<double> u(0, 1);
  for (std::size_t b = 1; b <= 300; ++b)
    for (int k = 0; k < 8; ++k) {
      const double wall = (u(rng) < 0.66 ? 5e6 : 13e6) * (0.97 + 0.06 * u(rng));
      const double load = other + (b >= first && b <= last ? busy : 0);
      runs.push_back(ticked(b, wall, load, rng));
    }
  return runs;
}

}  // namespace

TEST_CASE("host load: none recorded") {
  std::vector<RunRecord> runs(3);
  const HostLoad h = analyse_host_load(run_table_of(runs));
  CHECK_FALSE(h.recorded);
  CHECK(h.segments.empty());
  CHECK(describe_host_load(h) == "the host's load was not recorded");
}

TEST_CASE("host load: a busy phase in blocks 8-14, exactly") {
  const HostLoad h = analyse_host_load(run_table_of(step_runs()));
  REQUIRE(h.recorded);
  REQUIRE(h.blocks.size() == 20);  // the warm-up is not a measured block
  CHECK(h.blocks.front() == 1);
  CHECK(h.cpus[0] == 0);
  CHECK(h.cpus[2] == 0.5);   // block 3: one tick over 20 ms of runs
  CHECK(h.cpus[7] == 2.0);   // block 8
  // |differences|: 0 x 17, 0.5 x 2 (into and out of block 3), 2 x 2: median 0.
  CHECK(h.noise == kLoadNoiseFloorCpus);
  REQUIRE(h.segments.size() == 3);
  CHECK(h.segments[0].first_block == 1);
  CHECK(h.segments[0].last_block == 7);
  CHECK(h.segments[0].cpus == Approx(0.5 / 7).epsilon(1e-15));
  CHECK_FALSE(h.segments[0].busy);
  CHECK(h.segments[1].first_block == 8);
  CHECK(h.segments[1].last_block == 14);
  CHECK(h.segments[1].cpus == 2.0);
  CHECK(h.segments[1].procs_running == 3.0);
  CHECK(h.segments[1].busy);
  CHECK(h.segments[2].first_block == 15);
  CHECK(h.segments[2].last_block == 20);
  CHECK(h.segments[2].cpus == 0);
  CHECK(h.quiet_cpus == 0);
  CHECK(h.busy_blocks == std::vector<std::size_t>{8, 9, 10, 11, 12, 13, 14});
  CHECK(describe_host_load(h) == "the host was busy during blocks 8-14: 2.00 CPUs in other processes, against 0.00 in "
                                 "the quietest blocks");
}

TEST_CASE("host load: a busy moment shorter than three blocks is not a phase, a steady load is not busy") {
  std::vector<RunRecord> runs;
  for (std::size_t b = 1; b <= 20; ++b) runs.push_back(run(b, 10000000, b == 10 || b == 11 ? 20000000 : 3000000));
  const HostLoad h = analyse_host_load(run_table_of(runs));
  REQUIRE(h.segments.size() == 1);
  CHECK(h.busy_blocks.empty());
  CHECK(h.quiet_cpus == Approx((18 * 0.3 + 2 * 2.0) / 20).epsilon(1e-15));
  CHECK(describe_host_load(h) == "the host's load stayed near 0.47 CPUs in other processes");
}

TEST_CASE("host load: a shift below a quarter CPU is not a change") {
  std::vector<RunRecord> runs;
  for (std::size_t b = 1; b <= 40; ++b) runs.push_back(run(b, 10000000, b > 20 ? 2000000 : 0));
  const HostLoad h = analyse_host_load(run_table_of(runs));
  CHECK(h.segments.size() == 1);
  CHECK(h.busy_blocks.empty());
}

TEST_CASE("host load: a host saturated throughout is busy, judged by its idle share") {
  // A 2-CPU host, two loops throughout: 1.9 CPUs elsewhere, 0.1 idle, in every block.
  // Against its own quietest part nothing changed; against the host, nothing was left.
  std::vector<RunRecord> runs;
  for (std::size_t b = 1; b <= 20; ++b) runs.push_back(run_idle(b, 10000000, 19000000, 1000000));
  const HostLoad h = analyse_host_load(run_table_of(runs));
  REQUIRE(h.segments.size() == 1);
  CHECK(h.segments[0].idle_cpus == Approx(0.1).epsilon(1e-12));
  CHECK(h.segments[0].busy);
  CHECK(h.busy_blocks.size() == 20);
  CHECK(describe_host_load(h) == "the host was busy during blocks 1-20: 1.90 CPUs in other processes, 0.10 left "
                                 "idle: less than 0.5 CPU idle throughout");
  // The same load with a CPU idle is not busy: the target had room.
  std::vector<RunRecord> roomy;
  for (std::size_t b = 1; b <= 20; ++b) roomy.push_back(run_idle(b, 10000000, 19000000, 10000000));
  CHECK(analyse_host_load(run_table_of(roomy)).busy_blocks.empty());
  // A single-CPU host is never idle while the target runs: no load elsewhere, not busy.
  std::vector<RunRecord> single;
  for (std::size_t b = 1; b <= 20; ++b) single.push_back(run_idle(b, 10000000, 0, 0));
  CHECK(analyse_host_load(run_table_of(single)).busy_blocks.empty());
}

TEST_CASE("host load: calibration on simulated tick-quantised loads") {
  // kLoadChangeZ's false-alarm rate and power, on 1,000 seeded series each.
  std::mt19937_64 rng(7);
  std::size_t false_splits = 0, found = 0, exact = 0;
  for (int i = 0; i < 1000; ++i) {
    false_splits += analyse_host_load(run_table_of(simulated(rng, 0.05, 0, 0, 0))).segments.size() > 1;
    const HostLoad h = analyse_host_load(run_table_of(simulated(rng, 0.05, 0.9, 101, 140)));
    const bool one = !h.busy_blocks.empty() && h.busy_blocks.back() - h.busy_blocks.front() + 1 == h.busy_blocks.size();
    found += one && std::abs(static_cast<long>(h.busy_blocks.front()) - 101) <= 2 &&
             std::abs(static_cast<long>(h.busy_blocks.back()) - 140) <= 2;
    exact += h.busy_blocks.size() == 40 && h.busy_blocks.front() == 101;
  }
  std::printf("host load calibration: %zu false splits, %zu found within 2 blocks, %zu exact, of 1000\n", false_splits,
              found, exact);
  CHECK(false_splits == 0);
  CHECK(found == 1000);
  CHECK(exact == 930);
}
