// events/availability on the test PMU (tests/support/test_pmu.h): probing opens a set
// as a counting run will (counting_attr), and a refusal a hardware PMU gives is
// diagnosed, on a host without one. And one error path: a malformed list is the same
// EventSyntaxError wherever it is read (for a list whose names are known: parse_events
// resolves each item as it reaches it, so a bad name ahead of a bad brace is named first).
#include <catch2/catch.hpp>

#include <cerrno>

#include "events/event.h"
#include "test_pmu.h"
#include "util/perf_syscalls.h"

using namespace obscheck;
using obscheck::test::TestPmu;
using obscheck::test::TestPmuConfig;

namespace {

EventSet events(const std::string& spec) {
  ResolveOptions o;
  o.kernel_levels = KernelLevels::allowed;
  return parse_events(spec, o);
}

}  // namespace

TEST_CASE("test PMU: probing a set opens what a counting run programs, and names the group that cannot fit",
          "[test-pmu]") {
  TestPmuConfig c;
  c.slots = 2;
  TestPmu pmu(c);
  ScopedPerfSyscalls seam(pmu);
  const std::vector<Availability> av = probe_event_set(events("{cycles,instructions,l1d},task-clock"));
  REQUIRE(av.size() == 4);
  // The third hardware event of a group cannot fit two counters: EINVAL (validate_group).
  CHECK(av[0].available == false);
  CHECK(av[0].reason == "its group cannot be opened: l1d fails (EINVAL)");
  CHECK(av[2].err == EINVAL);
  CHECK(av[2].reason ==
        "the kernel rejected l1d: an unsupported modifier or attribute (EINVAL from perf_event_open)");
  CHECK(av[3].available);
  // What was opened: the group leader and members as perf stat programs them.
  REQUIRE(pmu.opened().size() >= 3);
  CHECK(pmu.opened()[0].attr.read_format == 0xf);
  CHECK(pmu.opened()[0].attr.enable_on_exec == 1);
  CHECK(pmu.opened()[1].attr.read_format == 0xf);
  CHECK(pmu.opened()[1].attr.disabled == 0);
}

TEST_CASE("test PMU: a busy counter is diagnosed as busy", "[test-pmu]") {
  TestPmuConfig c;
  c.refuse[{PERF_TYPE_HARDWARE, PERF_COUNT_HW_CPU_CYCLES}] = EBUSY;
  TestPmu pmu(c);
  ScopedPerfSyscalls seam(pmu);
  const Availability a = probe_event(events("cycles").events.at(0));
  CHECK_FALSE(a.available);
  CHECK(a.err == EBUSY);
  CHECK(a.reason == "the PMU is busy: another user holds exclusive counters (EBUSY from perf_event_open)");
}

TEST_CASE("one error path: split_event_list refuses a malformed list exactly as parse_events does") {
  for (const char* bad : {"{cycles,instructions", "cycles}", "cycles,,instructions", "{cycles,{instructions}}", "cpu/event=1"}) {
    INFO(bad);
    std::string from_parse, from_split;
    try {
      parse_events(bad);
    } catch (const EventSyntaxError& e) {
      from_parse = format_event_error(e) + "|" + e.hint();
    }
    try {
      split_event_list(bad);
    } catch (const EventSyntaxError& e) {
      from_split = format_event_error(e) + "|" + e.hint();
      CHECK(e.kind() == ErrorKind::event);
    }
    CHECK_FALSE(from_split.empty());
    CHECK(from_split == from_parse);
  }
}
