// observe/counters on the test PMU (tests/support/test_pmu.h): what happens after a
// hardware counter opens — group reads in both read formats, time enabled versus
// running, multiplex scaling and its label, faults — through the product's own code,
// on a host without a hardware PMU. Every expected value is worked out by hand from
// the model in test_pmu.h.
#include <catch2/catch.hpp>

#include <cmath>
#include <string>

#include "error_of.h"
#include "observe/counters.h"
#include "test_pmu.h"
#include "util/perf_syscalls.h"

using namespace obscheck;
using obscheck::test::error_of;
using obscheck::test::TestPmu;
using obscheck::test::TestPmuConfig;

namespace {

constexpr pid_t kTarget = 4242;  // the model never signals it: any number names a run
const test::EventKey kCycles{PERF_TYPE_HARDWARE, PERF_COUNT_HW_CPU_CYCLES};
const test::EventKey kInstructions{PERF_TYPE_HARDWARE, PERF_COUNT_HW_INSTRUCTIONS};
const test::EventKey kL1d{PERF_TYPE_HW_CACHE, 0x10000};

EventSet events(const std::string& spec) {
  ResolveOptions o;
  o.kernel_levels = KernelLevels::allowed;
  return parse_events(spec, o);
}

// 4 ms of task time in ticks of 1 ms; cycles 2/ns, instructions 3/ns, l1d 0.5/ns.
TestPmuConfig model(unsigned slots) {
  TestPmuConfig c;
  c.slots = slots;
  c.run_ns = 4'000'000;
  c.tick_ns = 1'000'000;
  c.events[kCycles].rate_per_ns = 2;
  c.events[kInstructions].rate_per_ns = 3;
  c.events[kL1d].rate_per_ns = 0.5;
  return c;
}

std::vector<Reading> count(TestPmu& pmu, const std::string& spec) {
  ScopedPerfSyscalls seam(pmu);
  const CounterSet set = CounterSet::open(kTarget, events(spec));
  return set.read();
}

}  // namespace

TEST_CASE("test PMU: a group is programmed as perf stat programs it and read in one PERF_FORMAT_GROUP read",
          "[counters][test-pmu]") {
  TestPmu pmu(model(4));
  const auto r = count(pmu, "{cycles,instructions}");
  REQUIRE(r.size() == 2);
  CHECK(r[0].name == "cycles");
  CHECK(r[0].raw == 8'000'000);
  CHECK(r[1].raw == 12'000'000);
  for (const Reading& x : r) {
    CHECK(x.time_enabled == 4'000'000);
    CHECK(x.time_running == 4'000'000);
    CHECK(x.running_fraction() == 1.0);
    CHECK_FALSE(x.multiplexed);
    CHECK(x.value == static_cast<double>(x.raw));
    CHECK(x.fault.empty());
  }
  // What was opened: leader then member, 0xf for both (TOTAL_TIME_ENABLED|RUNNING|ID|GROUP).
  REQUIRE(pmu.opened().size() == 2);
  const auto& lead = pmu.opened()[0];
  const auto& member = pmu.opened()[1];
  CHECK(lead.attr.read_format == 0xf);
  CHECK(lead.attr.disabled == 1);
  CHECK(lead.attr.enable_on_exec == 1);
  CHECK(lead.attr.inherit == 1);
  CHECK(lead.pid == kTarget);
  CHECK(lead.group_fd == -1);
  CHECK(member.attr.read_format == 0xf);
  CHECK(member.attr.disabled == 0);
  CHECK(member.attr.enable_on_exec == 0);
  CHECK(member.attr.inherit == 1);
  CHECK(member.group_fd >= 0);
}

// Read after the target exited, the members give what one group read gives: nothing
// for a report to note.
TEST_CASE("test PMU: where the kernel refuses a group read with inherit, members are read one by one",
          "[counters][test-pmu]") {
  TestPmuConfig c = model(4);
  c.refuse_group_with_inherit = true;
  TestPmu pmu(c);
  const auto r = count(pmu, "{cycles,instructions}");
  REQUIRE(r.size() == 2);
  CHECK(r[0].raw == 8'000'000);
  CHECK(r[1].raw == 12'000'000);
  CHECK(r[1].time_running == 4'000'000);
  // The refused 0xf open, then 0x7 (no GROUP) for leader and member.
  REQUIRE(pmu.opened().size() == 3);
  CHECK(pmu.opened()[0].attr.read_format == 0xf);
  CHECK(pmu.opened()[1].attr.read_format == 0x7);
  CHECK(pmu.opened()[2].attr.read_format == 0x7);
}

TEST_CASE("test PMU: three counters on two slots rotate: each ran 2 of 3 ms and is scaled by 1.5, labelled",
          "[counters][test-pmu]") {
  TestPmuConfig c = model(2);
  c.run_ns = 3'000'000;  // ticks: {cycles,instructions} {instructions,l1d} {l1d,cycles}
  TestPmu pmu(c);
  const auto r = count(pmu, "cycles,instructions,l1d,task-clock");
  REQUIRE(r.size() == 4);
  const double rates[] = {2, 3, 0.5};
  for (std::size_t i = 0; i < 3; ++i) {
    INFO(r[i].name);
    CHECK(r[i].time_enabled == 3'000'000);
    CHECK(r[i].time_running == 2'000'000);
    CHECK(r[i].raw == static_cast<std::uint64_t>(rates[i] * 2'000'000));
    CHECK(r[i].multiplexed);
    CHECK(r[i].scale == 1.5);
    CHECK(r[i].value == rates[i] * 3'000'000);  // the kernel's estimate: raw x enabled / running
    CHECK(r[i].running_fraction() == Approx(2.0 / 3.0).epsilon(0));
    CHECK(r[i].fault.empty());
  }
  // A software event needs no slot: never multiplexed (1 count per ns by default).
  CHECK(r[3].name == "task-clock");
  CHECK(r[3].raw == 3'000'000);
  CHECK_FALSE(r[3].multiplexed);
  CHECK(r[3].running_fraction() == 1.0);
}

TEST_CASE("test PMU: two groups of two on two slots take turns, each on half the time", "[counters][test-pmu]") {
  TestPmu pmu(model(2));
  const auto r = count(pmu, "{cycles,instructions},{l1d,cycles}");
  REQUIRE(r.size() == 4);
  for (const Reading& x : r) {
    INFO(x.name);
    CHECK(x.time_enabled == 4'000'000);
    CHECK(x.time_running == 2'000'000);
    CHECK(x.scale == 2.0);
    CHECK(x.multiplexed);
  }
  CHECK(r[0].raw == 4'000'000);
  CHECK(r[0].value == 8'000'000.0);
  CHECK(r[2].raw == 1'000'000);
  CHECK(r[2].value == 2'000'000.0);
}

TEST_CASE("test PMU: a counter that reads negative, reads zero, or stops counting is a fault, not a value",
          "[counters][test-pmu]") {
  TestPmuConfig c = model(4);
  c.events[kCycles].offset = -10'000'000;         // 8e6 - 1e7: negative as a signed count
  c.events[kInstructions].rate_per_ns = 0;        // instructions that read 0 over a run
  c.events[kL1d].stops_at_ns = 1'000'000;         // stops counting after 1 of 4 ms
  c.events[{PERF_TYPE_HW_CACHE, 0x10002}] = {.rate_per_ns = 1, .stops_at_ns = 0};  // LLC: never counts
  TestPmu pmu(c);
  const auto r = count(pmu, "cycles,instructions,l1d,llc");
  REQUIRE(r.size() == 4);
  CHECK(std::isnan(r[0].value));
  CHECK(r[0].fault == "cycles reads negative (-2000000 as a signed 64-bit count): a wrapped or broken counter");
  CHECK(std::isnan(r[1].value));
  CHECK(r[1].fault == "instructions reads 0 although it ran 4000000 ns: the PMU did not count it");
  // Stopped after a quarter: time_running stopped growing, so it reads as multiplexed
  // (running fraction 0.25) and is scaled; the label and the fraction say so.
  CHECK(r[2].fault.empty());
  CHECK(r[2].raw == 500'000);
  CHECK(r[2].time_running == 1'000'000);
  CHECK(r[2].running_fraction() == 0.25);
  CHECK(r[2].multiplexed);
  CHECK(r[3].name == "llc");
  CHECK(std::isnan(r[3].value));
  CHECK(r[3].fault == "llc never ran: time running 0 of 4000000 ns enabled (multiplexed out, or the PMU stopped "
                      "counting it)");
}

TEST_CASE("test PMU: a zero is a value for an event that may honestly count nothing", "[counters][test-pmu]") {
  TestPmuConfig c = model(4);
  c.events[kL1d].rate_per_ns = 0;
  TestPmu pmu(c);
  const auto r = count(pmu, "l1d");
  REQUIRE(r.size() == 1);
  CHECK(r[0].raw == 0);
  CHECK(r[0].value == 0.0);
  CHECK(r[0].fault.empty());
}

TEST_CASE("test PMU: refusals at open name the event, the errno and the remedy", "[counters][test-pmu]") {
  const auto open_error = [](TestPmuConfig c, const std::string& spec) {
    TestPmu pmu(std::move(c));
    ScopedPerfSyscalls seam(pmu);
    return error_of([&] { CounterSet::open(kTarget, events(spec)); });
  };
  TestPmuConfig busy = model(4);
  busy.refuse[kCycles] = EBUSY;
  const Error b = open_error(busy, "instructions,cycles");
  CHECK(b.kind() == ErrorKind::event);
  CHECK(std::string(b.what()) == "the PMU is busy: another user holds exclusive counters (EBUSY from perf_event_open)");

  // Five hardware events in one group on four counters can never be on at once.
  const Error big = open_error(model(4), "{cycles,instructions,l1d,cycles,instructions}");
  CHECK(big.kind() == ErrorKind::event);
  CHECK(std::string(big.what()) ==
        "the kernel rejected instructions: an unsupported modifier or attribute (EINVAL from perf_event_open)");

  TestPmuConfig nosup = model(4);
  nosup.refuse[kL1d] = EOPNOTSUPP;
  const Error n = open_error(nosup, "l1d");
  CHECK(n.kind() == ErrorKind::event);
  // The diagnosis reads this host's sysfs: with or without a cpu PMU directory.
  const std::string nw = n.what();
  CHECK((nw == "this CPU's PMU does not support l1d (EOPNOTSUPP from perf_event_open)" ||
         nw.starts_with("no hardware PMU on this host (no /sys/bus/event_source/devices/cpu")));

  TestPmuConfig full = model(4);
  full.refuse[kInstructions] = ENOSPC;
  const Error s = open_error(full, "{cycles,instructions}");
  CHECK(std::string(s.what()) ==
        "no free slot for instructions: more events than counters in one group (ENOSPC from perf_event_open)");
}

TEST_CASE("test PMU: seeded noise repeats run for run and stays within its bound", "[counters][test-pmu]") {
  TestPmuConfig c = model(4);
  c.noise = 0.01;
  c.seed = 7;
  std::vector<double> first, second;
  for (auto* out : {&first, &second}) {
    TestPmu pmu(c);
    ScopedPerfSyscalls seam(pmu);
    for (pid_t run = 100; run < 105; ++run) out->push_back(CounterSet::open(run, events("cycles")).read()[0].value);
  }
  CHECK(first == second);
  for (double v : first) {
    CHECK(v >= 8'000'000 * 0.99);
    CHECK(v <= 8'000'000 * 1.01);
  }
  CHECK(first[0] != first[1]);
}
