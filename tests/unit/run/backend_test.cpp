// The backend chosen once (run/backend.h): what each one says, counts and defaults to,
// and what an in-process target is told. The simulated backend is built from a fixed
// geometry, so nothing here needs valgrind or a PMU.
#include <catch2/catch.hpp>

#include <algorithm>

#include "observe/inprocess.h"
#include "record/request.h"
#include "run/backend.h"
#include "util/error.h"

using namespace obscheck;

namespace {

SimGeometry fixed_geometry() {
  return SimGeometry{{32768, 8, 64}, {32768, 8, 64}, {8388608, 16, 64}, "--sim-cache", {"a note"}};
}

std::string var(const EnvBlock& env, const std::string& name) {
  for (const std::string& v : env.vars())
    if (v.rfind(name + "=", 0) == 0) return v.substr(name.size() + 1);
  return "<unset>";
}

ErrorKind kind_of(const std::function<void()>& f) {
  try {
    f();
  } catch (const Error& e) {
    return e.kind();
  }
  FAIL("no Error thrown");
  return ErrorKind::io;
}

}  // namespace

TEST_CASE("backend: the choice by name, and what a recorded choice needs") {
  // The name is read into its kind where --backend is read (record/request.h).
  const auto native = choose_backend(backend_from_string("native"), "");
  CHECK(native->kind() == BackendKind::native);
  CHECK_FALSE(native->geometry());
  CHECK_FALSE(native->exact());
  CHECK(native->times_the_program());
  CHECK(native->counts_in_the_target());
  CHECK(native->notes({"task-clock"}).empty());
  CHECK_NOTHROW(native->admit(ObserverKind::probes));
  CHECK_NOTHROW(native->require_here());
  // A --sim-cache without --backend sim changes nothing.
  CHECK(choose_backend(backend_from_string("native"), "D1=2048,1,32")->kind() == BackendKind::native);

  CHECK(kind_of([] { choose_backend(backend_from_string("papi"), ""); }) == ErrorKind::usage);
  // A malformed --sim-cache is the user's to fix, whatever this host has installed.
  CHECK(kind_of([] { choose_backend(backend_from_string("sim"), "D1=2048,3,32"); }) == ErrorKind::usage);
  CHECK(choose_backend(backend_from_string("sim"), "D1=2048,1,32")->geometry()->d1 == SimCache{2048, 1, 32});
  // A journal that names the simulator without its geometry is malformed.
  CHECK(kind_of([] { choose_backend(BackendKind::sim); }) == ErrorKind::io);
  CheckRequest r;
  r.backend = BackendKind::sim;
  r.sim = fixed_geometry();
  CHECK(choose_backend(r)->geometry() == fixed_geometry());
}

TEST_CASE("backend: each backend's defaults for each command") {
  const auto native = choose_backend(BackendKind::native);
  CHECK(native->default_counters(CounterUse::measure).text() == "task-clock,page-faults,ctx-switches,migrations");
  CHECK(native->default_counters(CounterUse::sweep).text() == "task-clock");
  CHECK(native->default_counters(CounterUse::observer_metrics).text() == "task-clock,page-faults");
  // The check's default adds the paper's PMU counters only where they can be counted.
  const std::string check = native->default_counters(CounterUse::check).text();
  CHECK((check == "task-clock,page-faults,ctx-switches,tsc" ||
         check == "cycles,instructions,l1d,l1i,task-clock,page-faults,ctx-switches,tsc"));

  const auto sim = choose_backend(BackendKind::sim, fixed_geometry());
  CHECK(sim->default_counters(CounterUse::check).text() == "cycles,instructions,l1d,l1i");
  CHECK(sim->default_counters(CounterUse::observer_metrics).text() == "instructions,cycles,l1d");
  CHECK(sim->default_counters(CounterUse::measure).text() ==
        "instructions,cycles,l1d,l1d-reads,l1i,llc,branches,branch-misses");
  CHECK(sim->default_counters(CounterUse::sweep).text() == "cycles,instructions,l1d");
}

TEST_CASE("backend: the simulator counts exactly, on any host, and says how") {
  const auto sim = choose_backend(BackendKind::sim, fixed_geometry());
  CHECK(sim->exact());
  CHECK_FALSE(sim->times_the_program());
  CHECK_FALSE(sim->counts_in_the_target());
  CHECK(kind_of([&] { sim->admit(ObserverKind::probes); }) == ErrorKind::usage);
  CHECK(kind_of([&] { sim->admit(ObserverKind::sampling); }) == ErrorKind::usage);
  CHECK_NOTHROW(sim->admit(ObserverKind::counters));
  CHECK_NOTHROW(sim->admit(ObserverKind::build));

  const ResolvedCounters c = sim->resolve(CounterList({"l1d", "cycles"}), false);
  CHECK(c.items == std::vector<std::string>{"l1d", "cycles"});
  CHECK(c.item_events == std::vector<std::vector<std::size_t>>{{0}, {1}});
  CHECK(c.events.events.empty());
  CHECK(c.names() == std::vector<std::string>{"l1d", "cycles"});
  CHECK(c.dropped.empty());
  CHECK(kind_of([&] { sim->resolve_all(CounterList({"l1dd"})); }) == ErrorKind::event);

  const std::vector<std::string> with_cycles = sim->notes({"l1d", "cycles"});
  REQUIRE(with_cycles.size() == 4);
  CHECK(with_cycles[0].rfind("simulated PMU: valgrind --tool=cachegrind", 0) == 0);
  CHECK(with_cycles[1] == "geometry: " + format_sim_geometry(fixed_geometry()) + " (--sim-cache)");
  CHECK(with_cycles[2] == "geometry: a note");
  CHECK(with_cycles[3].rfind("cycles is estimated, not measured: ", 0) == 0);
  CHECK(sim->notes({"l1d"}).size() == 3);  // nothing estimated
}

TEST_CASE("backend: what an in-process target is told") {
  SECTION("the simulator announces the names alone") {
    CheckSpec spec;
    const auto sim = choose_backend(BackendKind::sim, fixed_geometry());
    spec.sim_events = sim->resolve_all(CounterList({"instructions", "l1d", "llc"})).simulated;
    EnvBlock env({"HOME=/root"});
    sim->announce(env, spec, {0, 2}, 1);
    CHECK(env.vars() == std::vector<std::string>{"HOME=/root", std::string(kInprocessEventsVar) + "=instructions,llc"});
  }
  SECTION("perf_event preloads the counting library before any other preload") {
    CheckSpec spec;
    spec.probe_library = "/opt/obscheck/libobsprobe.so";
    spec.events = parse_events("task-clock,page-faults");
    EnvBlock env({"LD_PRELOAD=/usr/lib/libmine.so", "HOME=/root"});
    choose_backend(BackendKind::native)->announce(env, spec, {0, 1}, 1);
    CHECK(var(env, "LD_PRELOAD") == "/opt/obscheck/libobsprobe.so:/usr/lib/libmine.so");
    CHECK(var(env, kInprocessEventsVar) != "<unset>");
    CHECK(var(env, "HOME") == "/root");
  }
}
