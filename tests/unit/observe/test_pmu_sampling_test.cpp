// observe/sampling on the test PMU (tests/support/test_pmu.h): the sampler's own
// open, ring mapping, drain and read, through the perf_event seam, on a host without
// a hardware PMU — samples counted, throttling seen with the rate it left, lost
// samples named. Every expected value is worked out by hand from the model.
#include <unistd.h>

#include <catch2/catch.hpp>

#include <string>

#include "observe/sampling.h"
#include "test_pmu.h"
#include "util/perf_syscalls.h"

using namespace obscheck;
using obscheck::test::TestPmu;
using obscheck::test::TestPmuConfig;

namespace {

constexpr pid_t kSampledTarget = 4242;  // the model never signals it: any number names a run
const test::EventKey kSampledCycles{PERF_TYPE_HARDWARE, PERF_COUNT_HW_CPU_CYCLES};

EventDesc cycles() {
  ResolveOptions o;
  o.kernel_levels = KernelLevels::allowed;
  return parse_events("cycles", o).events.at(0);
}

// 4 ms of task time in ticks of 1 ms on CPU 0; cycles 2/ns; the kernel lets 100 kHz through.
TestPmuConfig model() {
  TestPmuConfig c;
  c.run_ns = 4'000'000;
  c.tick_ns = 1'000'000;
  c.events[kSampledCycles].rate_per_ns = 2;
  c.sampling.cpu = 0;
  c.sampling.throttle_hz = 100'000;
  return c;
}

SamplingStats sample(TestPmu& pmu, std::uint64_t hz, std::size_t ring_pages = kDefaultRingPages) {
  ScopedPerfSyscalls seam(pmu);
  Sampler s = Sampler::open(kSampledTarget, cycles(), hz, ring_pages);
  s.drain();
  return s.stats();
}

}  // namespace

TEST_CASE("test PMU: the sampler counts every sample of a run below the throttling rate", "[sampling][test-pmu]") {
  TestPmu pmu(model());
  const SamplingStats st = sample(pmu, 1000);
  // 1000 Hz over 4 ms: one sample per 1 ms tick, all on the CPU the target ran on.
  CHECK(st.samples == 4);
  CHECK(st.throttles == 0);
  CHECK(st.unthrottles == 0);
  CHECK(st.lost == 0);
  CHECK(st.run_ns == 4'000'000);
  CHECK(st.event_count == 8'000'000);
  CHECK(achieved_hz(st) == 1000.0);
  // Opened as perf record opens it: one event per online CPU, frequency mode, inherited.
  REQUIRE(pmu.opened().size() == st.rings);
  for (const auto& o : pmu.opened()) {
    CHECK(o.attr.freq == 1);
    CHECK(o.attr.sample_freq == 1000);
    CHECK(o.attr.inherit == 1);
    CHECK(o.pid == kSampledTarget);
  }
}

TEST_CASE("test PMU: a throttled sampler reports the throttling and the rate it achieved", "[sampling][test-pmu]") {
  TestPmu pmu(model());
  const SamplingStats st = sample(pmu, 1'000'000);
  // Asked 1 MHz, let through 100 kHz: 100 samples per tick, then throttled for the
  // rest of it and unthrottled at the next one, in each of the 4 ticks.
  CHECK(st.frequency == 1'000'000);
  CHECK(st.samples == 400);
  CHECK(st.throttles == 4);
  CHECK(st.unthrottles == 4);
  CHECK(st.lost == 0);
  CHECK(achieved_hz(st) == 100'000.0);
}

TEST_CASE("test PMU: samples a full ring could not hold are named lost", "[sampling][test-pmu]") {
  REQUIRE(::sysconf(_SC_PAGESIZE) == 4096);  // the record counts below are for 4 KiB pages
  TestPmu pmu(model());
  const SamplingStats st = sample(pmu, 1'000'000, 1);
  // One 4096-byte page holds 127 records of 32 bytes beside the 24-byte LOST record:
  // the first tick's 100 samples, its THROTTLE and UNTHROTTLE, and 25 samples of the
  // second tick. The other 275 samples are lost, and said so.
  CHECK(st.samples == 125);
  CHECK(st.throttles == 1);
  CHECK(st.unthrottles == 1);
  CHECK(st.lost_records == 1);
  CHECK(st.lost == 275);
  CHECK(achieved_hz(st) == 31'250.0);
}
