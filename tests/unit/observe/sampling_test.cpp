// The sampling observer on real runs: cpu-clock sampling (the software timer, which
// works without a PMU) at a fixed frequency takes one sample per 1/f seconds of the
// target's CPU time, so samples ≈ f × task-clock; a ring too small to hold them and
// never drained during the run loses samples and says how many.
#include <catch2/catch.hpp>

#include "error_of.h"

#include <string>

#include "events/event.h"
#include "launch/launcher.h"
#include "observe/counters.h"
#include "observe/sampling.h"
#include "util/error.h"

using namespace obscheck;
using Catch::Matchers::Contains;

using obscheck::test::error_of;

namespace {

const std::string kCompute = std::string(OBSCHECK_WORKLOADS) + "/compute";
// ~0.1 s of CPU on the machine this was written on: ~1000 samples at 10 kHz.
const std::string kComputeScale = "20000";
// Accepted distance of samples from f × task-clock (the acceptance bound).
constexpr double kSampleCountTolerance = 0.20;

CorkedChild spawn_compute(const std::string& scale) {
  LaunchSpec s;
  s.path = kCompute;
  s.argv = {kCompute, scale};
  s.env = EnvBlock({"LC_ALL=C"});
  return CorkedChild::spawn(s);
}

EventDesc cpu_clock() { return parse_events("cpu-clock").events.at(0); }

double task_clock_seconds(const CounterSet& c) { return c.read().at(0).value / 1e9; }

}  // namespace

TEST_CASE("sampling cpu-clock at 10 kHz takes 10000 samples per second of task-clock") {
  constexpr std::uint64_t kFreq = 10000;
  CorkedChild child = spawn_compute(kComputeScale);
  const CounterSet tc = CounterSet::open(child.pid(), parse_events("task-clock"));
  Sampler s = Sampler::open(child.pid(), cpu_clock(), kFreq);
  REQUIRE(s.active());
  REQUIRE(s.pollable_fd() >= 0);
  ExitInfo exit;
  {
    SamplerThread drainer(s);
    child.release();
    exit = child.wait();
  }
  REQUIRE(exit.ok());
  const SamplingStats st = s.stats();
  const double expected = kFreq * task_clock_seconds(tc);
  const double ratio = static_cast<double>(st.samples) / expected;
  CAPTURE(st.samples, st.lost, st.throttles, expected, st.event_count);
  CHECK(st.frequency == kFreq);
  CHECK(st.rings >= 1);
  CHECK(expected > 500);  // long enough for the ratio to mean something
  CHECK(ratio > 1 - kSampleCountTolerance);
  CHECK(ratio < 1 + kSampleCountTolerance);
  CHECK(st.lost == 0);  // the default ring drained every 5 ms never fills at 10 kHz
  CHECK(st.lost_records == 0);
  // The sampled event's own count is the target's cpu-clock time in ns: samples are
  // one per 1/f of it (same bound).
  const double per_count = static_cast<double>(st.samples) / (kFreq * (st.event_count / 1e9));
  CHECK(per_count > 1 - kSampleCountTolerance);
  CHECK(per_count < 1 + kSampleCountTolerance);
}

TEST_CASE("a one-page ring never drained during the run reports lost samples, not a failure") {
  // 4 KiB holds 4096 / 32 = 128 samples (8-byte header + ip + pid/tid + time); the
  // run takes ~1000 at 10 kHz.
  constexpr std::uint64_t kFreq = 10000;
  CorkedChild child = spawn_compute(kComputeScale);
  const CounterSet tc = CounterSet::open(child.pid(), parse_events("task-clock"));
  Sampler s = Sampler::open(child.pid(), cpu_clock(), kFreq, 1);
  child.release();
  const ExitInfo exit = child.wait();
  REQUIRE(exit.ok());
  s.drain();
  const SamplingStats st = s.stats();
  const double expected = kFreq * task_clock_seconds(tc);
  CAPTURE(st.samples, st.lost, st.lost_records, expected);
  CHECK(st.lost > 0);
  CHECK(st.samples <= 128 * st.rings);
  // Nothing vanished unaccounted for: taken + lost is the full rate.
  const double ratio = static_cast<double>(st.samples + st.lost) / expected;
  CHECK(ratio > 1 - kSampleCountTolerance);
  CHECK(ratio < 1 + kSampleCountTolerance);
  // Draining again finds nothing new and changes nothing.
  s.drain();
  CHECK(s.stats().samples == st.samples);
}

TEST_CASE("frequency 0 is no sampler, bad ring sizes, too-high rates and missing PMUs are errors") {
  CorkedChild child = spawn_compute("1");
  Sampler none = Sampler::open(child.pid(), cpu_clock(), 0);
  CHECK_FALSE(none.active());
  CHECK(none.pollable_fd() == -1);
  none.drain();
  const SamplingStats z = none.stats();
  CHECK(z.samples == 0);
  CHECK(z.lost == 0);
  CHECK(z.frequency == 0);
  CHECK(z.rings == 0);
  { SamplerThread t(none); }  // starts no thread, stops cleanly

  CHECK(error_of([&] { Sampler::open(child.pid(), cpu_clock(), 100, 3); }).kind() == ErrorKind::usage);

  const Error rate = error_of([&] { Sampler::open(child.pid(), cpu_clock(), 1000000000); });
  CHECK(rate.kind() == ErrorKind::event);
  CHECK_THAT(std::string(rate.what()), Contains("perf_event_max_sample_rate"));
  CHECK_THAT(rate.hint(), Contains("sysctl kernel.perf_event_max_sample_rate=1000000000"));

  // This host has no hardware PMU (helper notes: cycles gives ENOENT/EOPNOTSUPP).
  const Error cycles = error_of([&] { Sampler::open(child.pid(), parse_events("cycles").events.at(0), 1000); });
  CHECK(cycles.kind() == ErrorKind::event);
  CHECK_THAT(std::string(cycles.what()), Contains("cycles: cannot sample at 1000 Hz"));
}

TEST_CASE("a moved Sampler keeps its rings") {
  CorkedChild child = spawn_compute("2000");
  Sampler a = Sampler::open(child.pid(), cpu_clock(), 1000);
  Sampler b = std::move(a);
  CHECK_FALSE(a.active());
  CHECK(b.active());
  child.release();
  REQUIRE(child.wait().ok());
  b.drain();
  CHECK(b.stats().samples > 0);
}
