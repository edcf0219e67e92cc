// The plan as a journal's manifest holds it (record/plan_json.h): the spec round-trips,
// a tampered or missing field is an io error, and each level's knob is written with
// the bytes plan/ wrote before it was typed, so old journals read as they did.
#include <catch2/catch.hpp>
#include <fmt/core.h>

#include <fstream>
#include <set>
#include <string>

#include "plan/levels.h"
#include "plan/plan.h"
#include "record/plan_json.h"
#include "util/error.h"

using namespace obscheck;

namespace {

std::vector<std::string> ids(const Plan& p) {
  std::vector<std::string> out;
  for (const auto& c : p.configs) out.push_back(c.id);
  return out;
}

}  // namespace

TEST_CASE("plan JSON round trip rebuilds the same plan and orders") {
  PlanSpec s;
  s.counters = {"cycles", "l1d", "llc"};
  s.levels = counter_levels(s.counters);
  s.layouts = layouts_for(CountingMode::inprocess);
  s.seed = 0xfedcba9876543210ULL;  // above 2^63: must survive as an unsigned number
  s.fixed_blocks = 12;
  s.max_blocks = 200;
  const Plan p = make_plan(s);
  const auto j = nlohmann::json::parse(plan_to_json(p).dump());
  const Plan q = plan_from_json(j);
  CHECK(q.spec == p.spec);
  CHECK(ids(q) == ids(p));
  CHECK(q.aa == p.aa);
  CHECK(block_order(q, 5) == block_order(p, 5));

  auto tampered = j;
  tampered["configs"][2]["id"] = "counters=9[x]/held";
  CHECK_THROWS_AS(plan_from_json(tampered), Error);
  auto missing = j;
  missing.erase("seed");
  try {
    plan_from_json(missing);
    FAIL("no throw");
  } catch (const Error& e) {
    CHECK(e.kind() == ErrorKind::io);
    CHECK(std::string(e.what()).find("seed") != std::string::npos);
  }
}

TEST_CASE("plan JSON: the observer is written by name and read back to the same kind") {
  const auto round_trip = [](PlanSpec s) {
    s.levels = {Level{0, "0", {}, {}, {}}, Level{1, "1", {}, {}, {}}};
    s.layouts = {Layout::held};
    const Plan p = make_plan(s);
    const nlohmann::json j = plan_to_json(p);
    const Plan q = plan_from_json(j);
    CHECK(q.spec == p.spec);
    return j.at("observer").get<std::string>();
  };
  const std::vector<std::pair<ObserverKind, std::string>> observers = {
      {ObserverKind::counters, "counters"}, {ObserverKind::probes, "probes"}, {ObserverKind::breakpoints, "breakpoints"},
      {ObserverKind::sampling, "sampling"}, {ObserverKind::command, "command"}, {ObserverKind::build, "build"}};
  for (const auto& [kind, name] : observers) {
    PlanSpec s;
    s.observer = kind;
    CHECK(round_trip(s) == name);
    CHECK(observer_kind_from_string(name) == kind);
  }
  for (const auto& [kind, name] : std::vector<std::pair<PlanKind, std::string>>{
           {PlanKind::measure, "measure"}, {PlanKind::bias, "bias"}, {PlanKind::compare, "compare"}}) {
    PlanSpec s;
    s.kind = kind;
    CHECK(round_trip(s) == name);
    CHECK_FALSE(observer_kind_from_string(name));
  }
  PlanSpec s;
  s.levels = counter_levels({"cycles"});
  s.layouts = {Layout::held};
  nlohmann::json unknown = plan_to_json(make_plan(s));
  for (const char* name : {"Counters", "check", "", "counters "}) {
    unknown["observer"] = name;
    try {
      plan_from_json(unknown);
      FAIL("no throw for observer '" << name << "'");
    } catch (const Error& e) {
      CHECK(e.kind() == ErrorKind::io);
      CHECK(std::string(e.what()) == fmt::format("plan: unknown observer '{}'", name));
    }
  }
}

TEST_CASE("plan JSON: a shard survives the journal's JSON, and the whole plan has no shard key") {
  PlanSpec s;
  s.counters = {"task-clock", "page-faults"};
  s.levels = counter_levels(s.counters, true);
  s.layouts = {Layout::held};
  s.seed = 5;
  s.fixed_blocks = 10;
  const Plan whole = make_plan(s);
  for (std::size_t i = 0; i < 3; ++i) {
    PlanSpec sh = s;
    sh.shard = Shard{i, 3};
    const Plan p = make_plan(sh);
    CHECK(plan_from_json(plan_to_json(p)).spec == p.spec);
  }
  CHECK_FALSE(plan_to_json(whole).contains("shard"));  // other journals read as before
}

TEST_CASE("plan JSON: the grouping is part of the recorded plan, absent without groups") {
  PlanSpec s;
  s.kind = PlanKind::compare;
  for (std::size_t c = 0; c < 6; ++c)
    for (std::size_t v = 0; v < 3; ++v)
      s.levels.push_back(Level{1, fmt::format("c{}/{}", c, v), {}, {}, LayoutCell{c, v}});
  s.layouts = {Layout::held};
  s.aa_control = false;
  s.group_size = 3;
  s.seed = 11;
  s.fixed_blocks = 4;
  const Plan p = make_plan(s);
  const auto j = plan_to_json(p);
  CHECK(j.at("group_size") == 3);
  CHECK(plan_from_json(j).spec == p.spec);
  CHECK(block_order(plan_from_json(j), 7) == block_order(p, 7));
  // Without groups the JSON has no such key, as before it existed.
  s.group_size = 1;
  CHECK_FALSE(plan_to_json(make_plan(s)).contains("group_size"));
}

TEST_CASE("plan JSON: each level knob is written as its extra object was, and read back") {
  const std::vector<std::pair<LevelKnob, nlohmann::json>> knobs = {
      {std::monostate{}, nlohmann::json::object()},
      {ProbesAttached{2}, {{"probes", 2}}},
      {SampledAt{1000}, {{"freq", 1000}}},
      {WrappedAt{"0"}, {{"wrap", "0"}}},
      {BuiltVariantRun{2, "cc"}, {{"variant", 2}, {"sha256", "cc"}}},
      {LayoutCell{3, 1}, {{"context", 3}, {"variant", 1}}}};
  for (const auto& [knob, json] : knobs) {
    CHECK(level_knob_to_json(knob) == json);
    CHECK(level_knob_from_json(json, "plan level 0 extra") == knob);
  }
  // The bytes of the level in the manifest, as the golden journals hold them.
  Plan p = make_plan([] {
    PlanSpec s;
    s.observer = ObserverKind::sampling;
    s.counters = {"task-clock"};
    s.levels = sampling_levels({0, 100}, 1);
    s.layouts = {Layout::held};
    return s;
  }());
  CHECK(plan_to_json(p).at("levels").at(1).dump() ==
        R"({"announced":[0],"dose":100,"extra":{"freq":100},"label":"100Hz","programmed":[0]})");
}

TEST_CASE("plan JSON: a level knob of the wrong type or unknown keys is an io error naming the level and field") {
  const auto message = [](const nlohmann::json& extra) {
    try {
      (void)level_knob_from_json(extra, "plan level 1 extra");
    } catch (const Error& e) {
      CHECK(e.kind() == ErrorKind::io);
      return std::string(e.what());
    }
    return std::string("no throw");
  };
  CHECK(message({{"freq", "fast"}}) == R"(plan level 1 extra: field 'freq' has the wrong type ("fast"))");
  CHECK(message({{"probes", -1}}) == "plan level 1 extra: field 'probes' has the wrong type (-1)");
  CHECK(message({{"wrap", 7}}) == "plan level 1 extra: field 'wrap' has the wrong type (7)");
  CHECK(message({{"variant", 1}, {"sha256", 2}}) == "plan level 1 extra: field 'sha256' has the wrong type (2)");
  CHECK(message({{"context", 1.5}, {"variant", 0}}) == "plan level 1 extra: field 'context' has the wrong type (1.5)");
  CHECK(message({{"rate", 3}}) == R"(plan level 1 extra: names no dose obscheck knows ({"rate":3}))");
  CHECK(message(nlohmann::json::array()) == "plan level 1 extra: is not an object ([])");

  // Through the plan: the level's index and the field are named.
  PlanSpec s;
  s.observer = ObserverKind::sampling;
  s.counters = {"task-clock"};
  s.levels = sampling_levels({0, 100}, 1);
  s.layouts = {Layout::held};
  nlohmann::json j = plan_to_json(make_plan(s));
  j["levels"][1]["extra"]["freq"] = "fast";
  try {
    plan_from_json(j);
    FAIL("no throw");
  } catch (const Error& e) {
    CHECK(e.kind() == ErrorKind::io);
    CHECK(std::string(e.what()) == R"(plan level 1 extra: field 'freq' has the wrong type ("fast"))");
  }
}

// The journals the golden tests keep (a check, bias, compare, measure, the report
// fixture): each manifest's plan, read with the typed knobs and written again, gives
// the very bytes on disk.
TEST_CASE("plan JSON: every golden journal's plan reads and is written again byte for byte") {
  std::size_t plans = 0;
  for (const char* name : {"check/journal.jsonl", "bias/journal.jsonl", "compare/journal.jsonl",
                           "measure/journal.jsonl", "report/fixture-check.jsonl"}) {
    INFO(name);
    std::ifstream in(std::string(OBSCHECK_GOLDEN_DIR) + "/" + name);
    std::string first;
    REQUIRE(std::getline(in, first));
    const nlohmann::json manifest = nlohmann::json::parse(first);
    const nlohmann::json& recorded = manifest.at("plan");
    CHECK(plan_to_json(plan_from_json(recorded)).dump() == recorded.dump());
    ++plans;
  }
  CHECK(plans == 5);
}
