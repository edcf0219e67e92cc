#include <catch2/catch.hpp>

#include <fstream>

#include "record/plan_file.h"
#include "record/plan_json.h"
#include "../temp_dir.h"
#include "util/error.h"

using namespace obscheck;
using Catch::Matchers::Contains;

namespace {

PlanFile sample() {
  PlanSpec s;
  s.counters = {"task-clock"};
  s.levels = counter_levels(s.counters, true);
  s.layouts = {Layout::held};
  s.seed = 9;
  s.fixed_blocks = 12;
  PlanFile f;
  f.obscheck_version = "0.1.0";
  f.created = "2026-11-24T00:00:00Z";
  f.options = {{"counters", {"task-clock"}}, {"runs", 12}, {"margin", 0.01}};
  f.plan = plan_to_json(make_plan(s));
  f.target = TargetInfo{"/bin/true", {"/bin/true"}, std::string(64, 'a')};
  f.digest = plan_digest(f.options, f.plan, f.target);
  return f;
}

}  // namespace

TEST_CASE("plan file: round trip, and the digest ignores only the target's path") {
  const PlanFile f = sample();
  const PlanFile back = plan_file_from_json(plan_file_json(f), "p.json");
  CHECK(back.digest == f.digest);
  CHECK(back.plan == f.plan);
  CHECK(back.target.argv == f.target.argv);
  TargetInfo moved = f.target;
  moved.path = "/opt/bin/true";
  CHECK(plan_digest(f.options, f.plan, moved) == f.digest);
  TargetInfo other = f.target;
  other.sha256 = std::string(64, 'b');
  CHECK(plan_digest(f.options, f.plan, other) != f.digest);
}

TEST_CASE("plan file: an edited plan, another format or version, and bad JSON are refused as io errors") {
  const obscheck::test::TempDir dir;
  const std::string path = dir.file("p.json");
  nlohmann::json j = plan_file_json(sample());
  j["plan"]["seed"] = 10;  // edited by hand
  std::ofstream(path) << j.dump();
  try {
    read_plan_file(path);
    FAIL("an edited plan was read");
  } catch (const Error& e) {
    CHECK(e.kind() == ErrorKind::io);
    CHECK_THAT(e.what(), Contains("changed after it was written"));
  }
  j = plan_file_json(sample());
  j["version"] = 99;
  CHECK_THROWS_AS(plan_file_from_json(j, path), Error);
  CHECK_THROWS_AS(plan_file_from_json(nlohmann::json{{"format", "obscheck-journal"}}, path), Error);
  std::ofstream(path) << "{ not json";
  CHECK_THROWS_AS(read_plan_file(path), Error);
  CHECK_THROWS_AS(read_plan_file(dir.file("absent.json")), Error);
}

TEST_CASE("json_difference names the first place two values differ") {
  const nlohmann::json a{{"plan", {{"seed", 1}, {"levels", {"a", "b"}}}}, {"x", 1}};
  nlohmann::json b = a;
  CHECK(json_difference(a, b).empty());
  b["plan"]["seed"] = 2;
  CHECK(json_difference(a, b) == "plan.seed: 1 vs 2");
  b = a;
  b["plan"]["levels"][1] = "c";
  CHECK(json_difference(a, b) == "plan.levels[1]: \"b\" vs \"c\"");
  b = a;
  b.erase("x");
  CHECK(json_difference(a, b) == "x: 1 vs (absent)");
}
