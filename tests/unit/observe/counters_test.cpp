#include <catch2/catch.hpp>

#include <signal.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>
#include <x86intrin.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <fstream>
#include <string>
#include <vector>

#include "observe/counters.h"
#include "util/error.h"

using namespace obscheck;

namespace {

const std::string kWorkloads = OBSCHECK_WORKLOADS;

// observe/ is tested on its own, so the tests cork their child by hand: fork, block
// on a pipe, execv. (launch/ does this for real, with everything held constant.)
class Corked {
 public:
  explicit Corked(std::vector<std::string> argv) {
    int p[2];
    REQUIRE(::pipe(p) == 0);
    std::vector<char*> args;
    for (auto& a : argv) args.push_back(a.data());
    args.push_back(nullptr);
    pid_ = ::fork();
    REQUIRE(pid_ >= 0);
    if (pid_ == 0) {
      ::close(p[1]);
      char go;
      if (::read(p[0], &go, 1) != 1) ::_exit(126);
      ::execv(args[0], args.data());
      ::_exit(127);
    }
    ::close(p[0]);
    release_ = p[1];
  }
  ~Corked() {
    if (release_ >= 0) ::close(release_);
    if (pid_ > 0 && !reaped_) {
      ::kill(pid_, SIGKILL);
      ::waitpid(pid_, nullptr, 0);
    }
  }
  pid_t pid() const { return pid_; }
  // Releases the child and waits for it; returns wall nanoseconds.
  double run() {
    const auto t0 = std::chrono::steady_clock::now();
    REQUIRE(::write(release_, "x", 1) == 1);
    ::close(release_);
    release_ = -1;
    int status = 0;
    REQUIRE(::waitpid(pid_, &status, 0) == pid_);
    reaped_ = true;
    REQUIRE(WIFEXITED(status));
    REQUIRE(WEXITSTATUS(status) == 0);
    return std::chrono::duration<double, std::nano>(std::chrono::steady_clock::now() - t0).count();
  }

 private:
  pid_t pid_ = -1;
  int release_ = -1;
  bool reaped_ = false;
};

EventDesc software(const std::string& name, std::uint64_t config) {
  EventDesc e;
  e.name = name;
  e.spec = name;
  e.source = "alias";
  e.pmu = "software";
  e.attr.type = PERF_TYPE_SOFTWARE;
  e.attr.size = sizeof(perf_event_attr);
  e.attr.config = config;
  return e;
}

EventDesc msr_tsc() {
  EventDesc e;
  e.name = "tsc";
  e.spec = "msr/tsc/";
  e.source = "sysfs";
  e.pmu = "msr";
  std::ifstream in("/sys/bus/event_source/devices/msr/type");
  int type = -1;
  in >> type;
  REQUIRE(type > 0);
  e.attr.type = static_cast<std::uint32_t>(type);
  e.attr.size = sizeof(perf_event_attr);
  e.attr.config = 0;  // msr/tsc/: event=0x00 in the msr PMU's events/tsc
  return e;
}

EventSet lone(std::vector<EventDesc> events) {
  EventSet s;
  for (std::size_t i = 0; i < events.size(); ++i) s.groups.push_back({i});
  s.events = std::move(events);
  return s;
}

struct Measured {
  std::vector<Reading> readings;
  double wall_ns = 0;
};

Measured measure(std::vector<std::string> argv, const EventSet& events) {
  Corked child(std::move(argv));
  const CounterSet set = CounterSet::open(child.pid(), events);
  Measured m;
  m.wall_ns = child.run();
  m.readings = set.read();
  return m;
}

double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return v.size() % 2 ? v[v.size() / 2] : (v[v.size() / 2 - 1] + v[v.size() / 2]) / 2;
}

// Page faults of `pagetouch n`, the median of `reps` runs, every reading exact.
double pagetouch_faults(long n, int reps) {
  const EventSet events = lone({software("page-faults", PERF_COUNT_SW_PAGE_FAULTS)});
  std::vector<double> v;
  for (int i = 0; i < reps; ++i) {
    const Measured m = measure({kWorkloads + "/pagetouch", std::to_string(n)}, events);
    REQUIRE(m.readings.size() == 1);
    CHECK_FALSE(m.readings[0].multiplexed);
    v.push_back(m.readings[0].value);
  }
  return median(v);
}

// TSC ticks per nanosecond, against CLOCK_MONOTONIC over 50 ms.
double tsc_per_ns() {
  const auto t0 = std::chrono::steady_clock::now();
  const unsigned long long c0 = __rdtsc();
  while (std::chrono::steady_clock::now() - t0 < std::chrono::milliseconds(50)) {
  }
  const unsigned long long c1 = __rdtsc();
  const double ns = std::chrono::duration<double, std::nano>(std::chrono::steady_clock::now() - t0).count();
  return static_cast<double>(c1 - c0) / ns;
}

}  // namespace

TEST_CASE("page-faults grow by exactly the pages touched", "[counters]") {
  // pagetouch N writes N fresh pages once each (huge pages advised off), so doubling N
  // adds N faults; the fixed start-up cost (~52 here) cancels. perf stat measured
  // 1052, 2052, 4051 for N = 1000, 2000, 4000 on this host. One run of pagetouch 1000
  // faulted 1050 to 1054 times over 40 runs (the loader and libc fault a page or two
  // more or less), so two medians may differ by up to 4 beside the N pages.
  const double f1 = pagetouch_faults(1000, 5);
  const double f2 = pagetouch_faults(2000, 5);
  const double f4 = pagetouch_faults(4000, 5);
  INFO("page-faults: " << f1 << " " << f2 << " " << f4);
  CHECK(std::abs((f2 - f1) - 1000) <= 4);
  CHECK(std::abs((f4 - f2) - 2000) <= 4);
  CHECK(f1 >= 1000);
}

TEST_CASE("counters follow the target's children (inherit)", "[counters]") {
  // sh runs pagetouch twice as child processes: both children's faults are counted.
  const EventSet events = lone({software("page-faults", PERF_COUNT_SW_PAGE_FAULTS)});
  const std::string pt = kWorkloads + "/pagetouch";
  const Measured m = measure({"/bin/sh", "-c", pt + " 1000; " + pt + " 1000"}, events);
  CHECK(m.readings[0].value >= 2000);
}

TEST_CASE("a group is read as one and matches its members counted alone", "[counters]") {
  // The group {task-clock, page-faults} and a lone page-faults count the same run of
  // the same child, so the group's member and the lone counter see the same faults:
  // equal exactly. (Against a separate run, the loader and libc fault a page or a few
  // more or less from run to run.)
  EventSet set_up;
  set_up.events = {software("task-clock", PERF_COUNT_SW_TASK_CLOCK),
                   software("page-faults", PERF_COUNT_SW_PAGE_FAULTS),
                   software("page-faults", PERF_COUNT_SW_PAGE_FAULTS)};
  set_up.groups = {{0, 1}, {2}};
  Corked child({kWorkloads + "/pagetouch", "2000"});
  const CounterSet set = CounterSet::open(child.pid(), set_up);
  CHECK(set.size() == 3);
  child.run();
  const auto r = set.read();
  REQUIRE(r.size() == 3);
  CHECK(r[0].name == "task-clock");
  CHECK(r[1].name == "page-faults");
  CHECK_FALSE(r[1].multiplexed);
  CHECK_FALSE(r[2].multiplexed);
  CHECK(r[0].value > 0);
  CHECK(r[0].time_enabled == r[1].time_enabled);  // one group, one clock
  CHECK(r[1].value >= 2000);                      // pagetouch 2000 writes 2000 fresh pages
  CHECK(r[1].value == r[2].value);
}

TEST_CASE("task-clock and msr/tsc/ are positive and agree with wall time", "[counters]") {
  const EventSet events = lone({software("task-clock", PERF_COUNT_SW_TASK_CLOCK), msr_tsc()});
  const Measured m = measure({kWorkloads + "/compute", "2000"}, events);
  REQUIRE(m.readings.size() == 2);
  const Reading& task = m.readings[0];
  const Reading& tsc = m.readings[1];
  CHECK_FALSE(task.multiplexed);
  CHECK_FALSE(tsc.multiplexed);
  const double cpus = static_cast<double>(::sysconf(_SC_NPROCESSORS_ONLN));
  const double tsc_ns = tsc.value / tsc_per_ns();
  INFO("wall " << m.wall_ns << " ns, task-clock " << task.value << " ns, tsc " << tsc.value
               << " ticks = " << tsc_ns << " ns");
  // compute 2000 runs ~10 ms on this host. A process is never on the CPU for more
  // than wall time on every CPU; no lower bound against wall time, since a shared
  // machine may keep it waiting. This is a consistency check, not a timing test.
  CHECK(task.value > 1e6);
  CHECK(task.value <= m.wall_ns * cpus);
  // msr/tsc/ counts while the task runs, so in time units it tracks task-clock
  // (measured here: 10.756 ms of TSC for 10.763 ms of task-clock); ±25-33 %.
  CHECK(tsc.value > 0);
  CHECK(tsc_ns <= m.wall_ns * cpus);
  CHECK(tsc_ns >= 0.75 * task.value);
  CHECK(tsc_ns <= 1.33 * task.value);
}

TEST_CASE("a counter that cannot be opened fails the set, named with its errno", "[counters]") {
  EventDesc bogus = software("bogus-pmu-event", 0);
  bogus.attr.type = 0x7ffffff0;  // no PMU has this type: ENOENT
  Corked child({"/bin/true"});
  try {
    CounterSet::open(child.pid(), lone({software("task-clock", PERF_COUNT_SW_TASK_CLOCK), bogus}));
    FAIL("opened a bogus event");
  } catch (const Error& e) {
    CHECK(e.kind() == ErrorKind::event);
    // The reason `obscheck events` gives for the same errno (events/diagnose_open_error).
    CHECK(std::string(e.what()) == "the kernel does not support bogus-pmu-event on this host (ENOENT from perf_event_open)");
    CHECK_FALSE(e.hint().empty());
  }
  child.run();
}

TEST_CASE("counters on a child that never execs read as never ran", "[counters]") {
  Corked child({"/bin/true"});
  const CounterSet set = CounterSet::open(child.pid(), lone({software("task-clock", PERF_COUNT_SW_TASK_CLOCK)}));
  const auto r = set.read();  // still corked: enable_on_exec has not fired
  REQUIRE(r.size() == 1);
  CHECK(r[0].raw == 0);
  CHECK(std::isnan(r[0].value));
  CHECK(r[0].multiplexed);
  child.run();
}
