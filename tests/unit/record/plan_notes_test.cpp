// The plan's own notes (record/plan_notes.h): a retirement and a raised cap, made from
// a plan, round-tripped through the journal's JSON and applied back, typed.
#include <catch2/catch.hpp>

#include <nlohmann/json.hpp>

#include <optional>
#include <string>
#include <vector>

#include "plan/levels.h"
#include "plan/plan.h"
#include "record/journal_notes.h"
#include "record/plan_notes.h"
#include "util/error.h"

using namespace obscheck;

namespace {

ExtendNote extend_to(std::size_t max_blocks) { return ExtendNote{max_blocks, std::nullopt}; }

}  // namespace

TEST_CASE("plan notes: a retired configuration's trials are left out from its block on, and its note round-trips") {
  PlanSpec ps;
  ps.counters = {"task-clock", "page-faults"};
  ps.levels = counter_levels(ps.counters);
  ps.layouts = {Layout::held};
  ps.seed = 3;
  Plan plan = make_plan(ps);
  REQUIRE(plan.block_size() == 4);
  const std::size_t before = trials(plan, 0, 6).size();
  CHECK(before == 24);

  const nlohmann::json note = to_json(retire_note(plan, {1, 3}, 4, 2));
  CHECK(note.at("kind") == "retire");
  CHECK(note.at("from_block") == 4);
  CHECK(note.at("configs") == nlohmann::json::array({plan.configs[1].id, plan.configs[3].id}));
  apply_retire_note(plan, retire_note_from(note));
  CHECK(plan.retired == std::vector<Retirement>{{1, 4}, {3, 4}});
  apply_retire_note(plan, retire_note(plan, {1}, 5, 3));  // already retired: the earlier block stays
  CHECK(plan.retired.size() == 2);

  CHECK(runs_in(plan, 1, 3));
  CHECK_FALSE(runs_in(plan, 1, 4));
  CHECK(configs_in_block(plan, 5) == 2);
  const auto left = trials(plan, 0, 6);
  CHECK(left.size() == 4 * 4 + 2 * 2);
  for (const Trial& t : left) CHECK((t.block < 4 || (t.config != 1 && t.config != 3)));
  // Indexes and positions stay the plan's: a trial is the same trial with or without the retirement.
  for (const Trial& t : left) CHECK(t == trial_at(plan, t.index));
  CHECK(runs_for(plan, 5) == left.size());
  CHECK(runs_retired(plan, 6) == 4);

  CHECK_THROWS_AS(apply_retire_note(plan, retire_note_from({{"kind", "retire"}, {"from_block", 2}, {"configs", {"nope"}}})),
                  Error);
  CHECK_THROWS_AS(apply_retire_note(plan, retire_note_from({{"kind", "retire"}, {"configs", nlohmann::json::array()}})),
                  Error);
}

TEST_CASE("plan notes: an extend note raises a sequential plan's cap and keeps every block's order") {
  PlanSpec ps;
  ps.counters = {"task-clock"};
  ps.levels = counter_levels(ps.counters);
  ps.layouts = {Layout::held};
  ps.seed = 11;
  ps.max_blocks = 4;
  Plan plan = make_plan(ps);
  const auto before = trials(plan, 0, 4);
  const nlohmann::json note = to_json(extend_to(9));
  CHECK(note == nlohmann::json{{"kind", "extend"}, {"max_blocks", 9}});
  apply_extend_note(plan, extend_note_from(note));
  CHECK(plan.spec.max_blocks == 9);
  CHECK(plan_looks(plan).back() == 9);
  const auto after = trials(plan, 0, 9);
  REQUIRE(after.size() == 9 * plan.block_size());
  for (std::size_t i = 0; i < before.size(); ++i) CHECK(after[i] == before[i]);

  CHECK_THROWS_AS(apply_extend_note(plan, extend_to(9)), Error);  // does not raise it
  CHECK_THROWS_AS(apply_extend_note(plan, extend_to(3)), Error);
  CHECK_THROWS_AS(apply_extend_note(plan, extend_note_from({{"kind", "extend"}})), Error);
  CHECK_THROWS_AS(apply_extend_note(plan, extend_note_from({{"kind", "extend"}, {"max_blocks", -5}})), Error);
  CHECK_THROWS_AS(apply_extend_note(plan, extend_to(std::size_t{1} << 40)), Error);  // beyond 2^32 runs
  CHECK(plan.spec.max_blocks == 9);
  ps.fixed_blocks = 4;
  Plan fixed = make_plan(ps);
  CHECK_THROWS_AS(apply_extend_note(fixed, extend_to(9)), Error);

  // A journal's notes, in order; other kinds are not the plan's.
  ps.fixed_blocks.reset();
  Plan noted = make_plan(ps);
  apply_plan_notes(noted, {to_json(retire_note(noted, {1}, 2, 1)), {{"kind", "look"}}, to_json(extend_to(6))}, "j.jsonl");
  CHECK(noted.spec.max_blocks == 6);
  CHECK(noted.retired == std::vector<Retirement>{{1, 2}});
  try {
    apply_plan_notes(noted, {to_json(extend_to(5))}, "j.jsonl");
    FAIL("a note lowering the cap was applied");
  } catch (const Error& e) {
    CHECK(std::string(e.what()) == "journal j.jsonl: an \"extend\" note to 5 blocks does not raise the cap (6)");
  }
}
