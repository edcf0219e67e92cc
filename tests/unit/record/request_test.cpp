#include <catch2/catch.hpp>

#include "record/request.h"
#include "util/error.h"

using namespace obscheck;

namespace {

CheckRequest sample_request() {
  CheckRequest r;
  r.counters = CounterList({"task-clock", "{page-faults,minor-faults}"});
  r.dropped = {"cycles: no hardware PMU"};
  r.observer.kind = ObserverKind::sampling;
  r.observer.frequencies = {0, 1000};
  r.observer.sample_event = "cpu-clock";
  r.mode = CountingMode::external;
  r.margin = 0.02;
  r.seed = 77;
  r.seed_given = true;
  r.runs = 0;
  r.max_runs = 40;
  r.warmup = 2;
  r.warmup_given = true;
  r.time_budget = 30;
  r.ignore_failure = true;
  r.leftovers = Leftovers::fail;
  r.launch.argv = {"./prog", "--size", "3"};
  r.launch.cpu = 1;
  r.launch.env_pad = 4096;
  r.launch.timeout_s = 5;
  r.launch.keep_output_head = true;
  return r;
}

nlohmann::json manifest_of(const CheckRequest& r) {
  return {{"options", request_to_json(r)}, {"seed", r.seed}, {"target", {{"argv", r.launch.argv}}}};
}

}  // namespace

TEST_CASE("request: a check request survives the manifest exactly") {
  const CheckRequest r = sample_request();
  CHECK(request_from_manifest(manifest_of(r)) == r);

  CheckRequest sim = sample_request();
  sim.observer = ObserverRequest{};
  sim.backend = BackendKind::sim;
  sim.sim = SimGeometry{{32768, 8, 64}, {4096, 1, 64}, {8388608, 16, 64}, "--sim-cache", {"a note"}};
  sim.mode = CountingMode::inprocess;
  CHECK(request_from_manifest(manifest_of(sim)) == sim);
}

TEST_CASE("request: the manifest keeps the journal format's keys and values") {
  const nlohmann::json j = request_to_json(sample_request());
  CHECK(j.at("counters") == nlohmann::json::array({"task-clock", "{page-faults,minor-faults}"}));
  CHECK(j.at("backend") == "native");
  CHECK(j.at("sim_geometry").is_null());
  CHECK(j.at("mode") == "external");
  CHECK(j.at("env_pad") == 4096);
  CHECK(j.at("run_as").is_null());
  CHECK(j.at("observer").at("sample_freq") == "0,1000");
  CHECK(j.at("observer").at("probes") == "");
}

TEST_CASE("request: each observer kind is restored from the key its option wrote") {
  for (ObserverKind k : {ObserverKind::counters, ObserverKind::probes, ObserverKind::breakpoints,
                         ObserverKind::command, ObserverKind::build}) {
    CheckRequest r = sample_request();
    r.observer = ObserverRequest{};
    r.observer.kind = k;
    if (k == ObserverKind::probes || k == ObserverKind::breakpoints) r.observer.symbols = {"f", "g"};
    if (k == ObserverKind::command) r.observer.command = "perf record -F {level} --", r.observer.levels = {"0", "99"};
    if (k == ObserverKind::build) r.observer.build = "cc -DOBS_PROBES={mask} p.c -o {out}";
    CHECK(request_from_manifest(manifest_of(r)).observer.kind == k);
  }
}

TEST_CASE("request: a journal written before a key existed gets that field's default") {
  const nlohmann::json old = {{"options", {{"counters", {"task-clock"}}, {"mode", "inprocess"}}},
                              {"seed", 5},
                              {"target", {{"argv", {"./a"}}}}};
  const CheckRequest r = request_from_manifest(old);
  CHECK(r.counters.items() == std::vector<std::string>{"task-clock"});
  CHECK(r.mode == CountingMode::inprocess);
  CHECK(r.margin == 0.01);
  CHECK(r.warmup == 1);
  CHECK(r.leftovers == Leftovers::kill);
  CHECK(r.backend == BackendKind::native);
  CHECK_FALSE(r.launch.env_pad);
  CHECK(r.launch.cpu == -1);
}

TEST_CASE("request: a manifest that records no request is an io error naming what is missing") {
  const nlohmann::json no_counters = {{"options", {{"mode", "external"}}}, {"seed", 5}, {"target", {{"argv", {"a"}}}}};
  try {
    request_from_manifest(no_counters);
    FAIL("accepted");
  } catch (const Error& e) {
    CHECK(e.kind() == ErrorKind::io);
    CHECK_THAT(e.what(), Catch::Contains("counters"));
  }
  CHECK_THROWS_AS(backend_from_string("pmu"), Error);
  CHECK(backend_from_string("sim") == BackendKind::sim);
  // A journal always records what it counted and what it ran.
  for (const char* empty : {"counters", "argv"}) {
    nlohmann::json bad = {{"options", {{"counters", {"task-clock"}}}}, {"seed", 5}, {"target", {{"argv", {"a"}}}}};
    if (std::string(empty) == "counters") bad["options"]["counters"] = nlohmann::json::array();
    else bad["target"]["argv"] = nlohmann::json::array();
    try {
      request_from_manifest(bad);
      FAIL("accepted");
    } catch (const Error& e) {
      CHECK(e.kind() == ErrorKind::io);
    }
  }
  // A value only the command line could get wrong is the journal's fault in a journal.
  for (const auto& [key, value] : {std::pair<const char*, const char*>{"backend", "pmu"}, {"mode", "inside"}}) {
    nlohmann::json bad = {{"options", {{"counters", {"task-clock"}}}}, {"seed", 5}, {"target", {{"argv", {"a"}}}}};
    bad["options"][key] = value;
    try {
      request_from_manifest(bad);
      FAIL("accepted");
    } catch (const Error& e) {
      CHECK(e.kind() == ErrorKind::io);
      CHECK_THAT(e.what(), Catch::Contains(value));
    }
  }
}

TEST_CASE("request: a counter list is its items, written back as the user would write them") {
  const CounterList c({"cycles", "{l1d,l1i}"});
  CHECK(c.size() == 2);
  CHECK(c[1] == "{l1d,l1i}");
  CHECK(c.text() == "cycles,{l1d,l1i}");
  CHECK(CounterList().empty());
}

// How a resumed journal recognises its observer: the manifest's options name it by the
// key of its row (observe/observer_kinds.h resume_key), for every kind of the enum.
TEST_CASE("request: every observer kind is recognised again from the journal's options") {
  for (const ObserverKind kind : kAllObserverKinds) {
    INFO(to_string(kind));
    CheckRequest r = sample_request();
    r.observer = ObserverRequest{};
    r.observer.kind = kind;
    switch (kind) {
      case ObserverKind::counters: break;
      case ObserverKind::probes:
      case ObserverKind::breakpoints: r.observer.symbols = {"main", "f"}; break;
      case ObserverKind::sampling: r.observer.frequencies = {0, 99}; break;
      case ObserverKind::command:
        r.observer.command = "perf record -F {level} --";
        r.observer.levels = {"0", "99"};
        break;
      case ObserverKind::build: r.observer.build = "make OUT={out} MASK={mask}"; break;
    }
    CHECK(request_from_manifest(manifest_of(r)).observer == r.observer);
  }
}

// The observer's lists are typed in the request and written as the options spell them,
// so a journal's bytes are what the command line's text was.
TEST_CASE("request: the observer's typed lists are written as their options' text, and read back") {
  CheckRequest r = sample_request();
  r.observer = ObserverRequest{};
  r.observer.kind = ObserverKind::probes;
  r.observer.auto_symbols = 3;
  nlohmann::json j = request_to_json(r);
  CHECK(j.at("observer").at("probes") == "auto:3");
  CHECK(request_from_manifest(manifest_of(r)).observer == r.observer);
  r.observer = ObserverRequest{};
  r.observer.kind = ObserverKind::command;
  r.observer.command = "nice -n {level} --";
  r.observer.levels = {"0", "5", "10"};
  j = request_to_json(r);
  CHECK(j.at("observer").at("levels") == "0,5,10");
  CHECK(j.at("observer").at("observer_cmd") == "nice -n {level} --");
  CHECK(request_from_manifest(manifest_of(r)).observer == r.observer);
  // A value its reader refuses is the journal's fault (exit 6), naming the field.
  j = manifest_of(r);
  j["options"]["observer"]["levels"] = std::string(200, ',') + "x";
  for (int i = 0; i < 64; ++i) j["options"]["observer"]["levels"] = j["options"]["observer"]["levels"].get<std::string>() + ",y";
  try {
    request_from_manifest(j);
    FAIL("no throw");
  } catch (const Error& e) {
    CHECK(e.kind() == ErrorKind::io);
    CHECK(std::string(e.what()) ==
          "field options.observer.levels is malformed: --levels: a check doses at most 64 levels");
  }
}
