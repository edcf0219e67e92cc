#include <catch2/catch.hpp>

#include <cmath>
#include <vector>

#include "observe/counters.h"
#include "util/error.h"

using namespace obscheck;

namespace {

constexpr std::uint64_t kReadFormat = kCountingReadFormat;
constexpr std::uint64_t kGroup = kReadFormat | PERF_FORMAT_GROUP;

ErrorKind parse_error(std::vector<std::uint64_t> words, std::uint64_t fmt, std::size_t nr) {
  try {
    parse_read_buffer(words, fmt, nr);
  } catch (const Error& e) {
    return e.kind();
  }
  FAIL("no error for a bad buffer");
  return ErrorKind::usage;
}

}  // namespace

TEST_CASE("a lone counter's buffer is value, time_enabled, time_running", "[read]") {
  const auto c = parse_read_buffer(std::vector<std::uint64_t>{100, 50, 50}, kReadFormat, 1);
  REQUIRE(c.size() == 1);
  CHECK(c[0].value == 100);
  CHECK(c[0].time_enabled == 50);
  CHECK(c[0].time_running == 50);

  // PERF_FORMAT_ID puts the id after the times; PERF_FORMAT_LOST after the id.
  const auto id = parse_read_buffer(std::vector<std::uint64_t>{7, 9, 8, 1234, 0},
                                    kReadFormat | PERF_FORMAT_ID | PERF_FORMAT_LOST, 1);
  CHECK(id[0].value == 7);
  CHECK(id[0].time_enabled == 9);
  CHECK(id[0].time_running == 8);
}

TEST_CASE("a group buffer is nr, the two times, then one value per member", "[read]") {
  const auto g = parse_read_buffer(std::vector<std::uint64_t>{2, 1000, 250, 10, 20}, kGroup, 2);
  REQUIRE(g.size() == 2);
  CHECK(g[0].value == 10);
  CHECK(g[1].value == 20);
  CHECK(g[1].time_enabled == 1000);
  CHECK(g[1].time_running == 250);

  // With ids: each value is followed by its id.
  const auto ids = parse_read_buffer(std::vector<std::uint64_t>{3, 5, 5, 11, 901, 22, 902, 33, 903},
                                     kGroup | PERF_FORMAT_ID, 3);
  REQUIRE(ids.size() == 3);
  CHECK(ids[0].value == 11);
  CHECK(ids[1].value == 22);
  CHECK(ids[2].value == 33);
}

TEST_CASE("short and inconsistent buffers are errors, not garbage", "[read]") {
  CHECK(parse_error({100, 50}, kReadFormat, 1) == ErrorKind::internal);              // no time_running
  CHECK(parse_error({}, kReadFormat, 1) == ErrorKind::internal);
  CHECK(parse_error({2, 1000, 250, 10}, kGroup, 2) == ErrorKind::internal);          // one value missing
  CHECK(parse_error({3, 1000, 250, 10, 20, 30}, kGroup, 2) == ErrorKind::internal);  // nr != expected
  CHECK(parse_error({2, 1000}, kGroup, 2) == ErrorKind::internal);                   // header cut
  CHECK(parse_error({1, 2, 3}, kReadFormat, 2) == ErrorKind::internal);              // group size, lone layout
  CHECK(parse_error({2, 5, 5, 11, 901, 22}, kGroup | PERF_FORMAT_ID, 2) == ErrorKind::internal);
}

TEST_CASE("scaling: exact, multiplexed and never-ran counters are labelled", "[read]") {
  const Reading exact = scale_reading("task-clock", {100, 50, 50});
  CHECK(exact.name == "task-clock");
  CHECK_FALSE(exact.multiplexed);
  CHECK(exact.value == 100.0);
  CHECK(exact.scale == 1.0);
  CHECK(exact.raw == 100);

  // Ran a quarter of the time it was enabled: 10 counted, 40 estimated.
  const auto g = parse_read_buffer(std::vector<std::uint64_t>{2, 1000, 250, 10, 20}, kGroup, 2);
  const Reading a = scale_reading("a", g[0]);
  const Reading b = scale_reading("b", g[1]);
  CHECK(a.multiplexed);
  CHECK(a.scale == 4.0);
  CHECK(a.value == 40.0);
  CHECK(a.raw == 10);
  CHECK(b.value == 80.0);

  const Reading third = scale_reading("c", {1000, 3, 1});
  CHECK(third.value == 3000.0);
  CHECK(third.scale == 3.0);

  const Reading never = scale_reading("d", {0, 100, 0});
  CHECK(never.multiplexed);
  CHECK(std::isnan(never.value));
  CHECK(never.scale == 0.0);

  const Reading unopened = scale_reading("e", {0, 0, 0});  // enabled never: nothing ran
  CHECK(std::isnan(unopened.value));
}

TEST_CASE("counting_attr sets the per-open flags and keeps the encoding", "[read]") {
  EventDesc e;
  e.name = "page-faults";
  e.attr.type = PERF_TYPE_SOFTWARE;
  e.attr.config = PERF_COUNT_SW_PAGE_FAULTS;
  e.attr.exclude_kernel = 1;

  const perf_event_attr lone = counting_attr(e, true, false);
  CHECK(lone.size == sizeof(perf_event_attr));
  CHECK(lone.type == PERF_TYPE_SOFTWARE);
  CHECK(lone.config == PERF_COUNT_SW_PAGE_FAULTS);
  CHECK(lone.exclude_kernel == 1);
  CHECK(lone.read_format == kReadFormat);
  CHECK(lone.disabled == 1);
  CHECK(lone.enable_on_exec == 1);
  CHECK(lone.inherit == 1);

  // perf stat's group: leader and members alike read 0xf (TOTAL_TIME_ENABLED|RUNNING|ID|GROUP).
  const perf_event_attr leader = counting_attr(e, true, true);
  CHECK(leader.read_format == 0xf);
  CHECK(leader.disabled == 1);
  CHECK(leader.enable_on_exec == 1);

  const perf_event_attr member = counting_attr(e, false, true);
  CHECK(member.read_format == 0xf);
  CHECK(member.disabled == 0);  // follows its leader
  CHECK(member.enable_on_exec == 0);
  CHECK(member.inherit == 1);
}
