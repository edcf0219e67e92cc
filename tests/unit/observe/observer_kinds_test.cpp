// The table of observer kinds (observe/observer_kinds.h): every kind of the enum has
// one row, in the enum's order, whose parts job/check/check_setup.cpp and the runner walk
// instead of branching per kind.
#include <catch2/catch.hpp>

#include <set>
#include <string>

#include "observe/observer_kinds.h"
#include "observe/sim.h"
#include "util/error.h"

using namespace obscheck;

TEST_CASE("observer kinds: one row per kind of the enum, in its order, each with its doses") {
  const auto rows = observer_kinds();
  REQUIRE(rows.size() == kAllObserverKinds.size());
  for (std::size_t i = 0; i < rows.size(); ++i) {
    INFO("row " << i << ": " << to_string(rows[i].kind));
    CHECK(rows[i].kind == kAllObserverKinds[i]);
    CHECK(&observer_info(kAllObserverKinds[i]) == &rows[i]);
    CHECK(rows[i].doses != nullptr);
  }
}

TEST_CASE("observer kinds: each kind but the default is chosen by its own option and recognised by its own key") {
  std::set<std::string_view> options, keys;
  for (const ObserverKindInfo& k : observer_kinds()) {
    INFO(to_string(k.kind));
    if (k.kind == ObserverKind::counters) {
      CHECK(k.option.empty());  // the default: chosen when no other is
      CHECK(k.resume_key.empty());
      continue;
    }
    CHECK(k.option.rfind("--", 0) == 0);
    CHECK_FALSE(k.resume_key.empty());
    options.insert(k.option);
    keys.insert(k.resume_key);
  }
  CHECK(options.size() == kAllObserverKinds.size() - 1);
  CHECK(keys.size() == kAllObserverKinds.size() - 1);
}

TEST_CASE("observer kinds: only the counters count in process and vary the layout, and dose their own list") {
  for (const ObserverKindInfo& k : observer_kinds()) {
    INFO(to_string(k.kind));
    const bool counters = k.kind == ObserverKind::counters;
    CHECK(k.in_process == counters);
    CHECK(k.varies_layout == counters);
    CHECK((k.counters == DefaultCounters::dosed) == counters);
    CHECK((k.attach == Attach::counters_only) == counters);
    CHECK((k.program != nullptr) == (k.kind == ObserverKind::build));
  }
  CHECK(observer_info(ObserverKind::command).counters == DefaultCounters::target_metrics);
  CHECK(observer_info(ObserverKind::command).attach == Attach::wraps_launch);
  CHECK(observer_info(ObserverKind::sampling).attach == Attach::watches_child);
  CHECK(observer_info(ObserverKind::probes).attach == Attach::counts_beside);
  CHECK(observer_info(ObserverKind::breakpoints).attach == Attach::counts_beside);
  CHECK(observer_info(ObserverKind::build).attach == Attach::runs_a_variant);
}

TEST_CASE("observer kinds: the simulator refuses, by its row, what it cannot apply") {
  for (const ObserverKindInfo& k : observer_kinds()) {
    INFO(to_string(k.kind));
    if (k.sim_why.empty()) {
      CHECK_NOTHROW(require_sim_observer(k.kind));
      continue;
    }
    try {
      require_sim_observer(k.kind);
      FAIL("no throw");
    } catch (const Error& e) {
      CHECK(e.kind() == ErrorKind::usage);
      CHECK(std::string(e.what()) ==
            std::string(k.sim_subject) + " not apply under simulation: " + std::string(k.sim_why));
    }
  }
  CHECK_NOTHROW(require_sim_observer(ObserverKind::counters));
  CHECK_NOTHROW(require_sim_observer(ObserverKind::build));
  CHECK_THROWS_AS(require_sim_observer(ObserverKind::sampling), Error);
}

TEST_CASE("observer kinds: the counters' doses are plan/'s counter levels, resolved without the host") {
  const ObserverRequest request;
  const std::vector<std::string> counters = {"task-clock", "page-faults"};
  LaunchSpec base;
  base.path = "/bin/true";
  base.argv = {"/bin/true"};
  const Doses d = observer_info(ObserverKind::counters).doses({request, counters, true, base, ""});
  CHECK(d.levels == counter_levels(counters, true));
  CHECK(d.spec.kind == ObserverKind::counters);
  CHECK(d.notes.empty());
  const Doses simulated = observer_info(ObserverKind::counters).doses({request, counters, false, base, ""});
  CHECK(simulated.levels == counter_levels(counters, false));
}

TEST_CASE("observer kinds: each row reads its own option's value from a request, and only its own") {
  ObserverRequest r;
  r.kind = ObserverKind::breakpoints;
  r.symbols = {"main", "f"};
  CHECK(observer_info(ObserverKind::breakpoints).given(r) == "main,f");
  CHECK(observer_info(ObserverKind::probes).given(r).empty());  // the same symbols, another kind
  r = ObserverRequest{};
  r.kind = ObserverKind::sampling;
  r.frequencies = {0, 99};
  CHECK(observer_info(ObserverKind::sampling).given(r) == "0,99");
  r = ObserverRequest{};
  r.kind = ObserverKind::command;
  r.command = "perf record -F {level} --";
  CHECK(observer_info(ObserverKind::command).given(r) == "perf record -F {level} --");
  r = ObserverRequest{};
  r.kind = ObserverKind::build;
  r.build = "make OUT={out}";
  CHECK(observer_info(ObserverKind::build).given(r) == "make OUT={out}");
  CHECK(observer_info(ObserverKind::counters).given == nullptr);
}
