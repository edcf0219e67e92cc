// The check's loop (run/session.h) on the fake backend (tests/support/fake_measurer.h):
// no process runs and no counter opens, the runs' values come from a seeded generator
// and the clock moves only with the runs, so every look, stop, retirement and note is
// exact. Where the point is the stopping rule on real data the looks are the check's
// own (job/check/check_job.h analysis_at_looks); where it is the loop, they are scripted.
#include <catch2/catch.hpp>

#include <chrono>
#include <set>

#include "events/event.h"
#include "job/check/check_job.h"
#include "record/journal.h"
#include "record/journal_reader.h"
#include "run/session.h"
#include "run/signals.h"

#include "../temp_dir.h"
#include "session_journal.h"
#include "fake_measurer.h"

using namespace obscheck;
using obscheck::test::FakeBackend;

namespace {

// A check of `counters` on the fake: their prefix levels, the solo levels and the A/A
// copy, held layout; with `reference`, level 0 counting nothing first (the fake times
// the program, as the product's perf_event backend does). The spec names a target that is never started.
Session fake_session(FakeBackend& fake, const std::vector<std::string>& counters, std::size_t max_blocks,
                     std::optional<std::size_t> fixed = std::nullopt, bool reference = false) {
  Session s;
  s.plan = obscheck::test::held_counter_plan(counters, 9, max_blocks, fixed, reference);
  s.spec.base.path = "/nonexistent/fake-target";
  s.spec.base.argv = {"fake-target"};
  for (std::size_t i = 0; i < counters.size(); ++i) s.spec.item_events.push_back({i});
  fake.install(s);
  return s;
}

// The journal every session here writes (session_journal.h).
struct FakeJournal : obscheck::test::SessionJournal {
  explicit FakeJournal(const Plan& plan) : SessionJournal(plan, "/nonexistent/fake-target") {}
};

// The check's own looks (the sequential analysis) over the session's runs.
struct RealLooks {
  CheckRequest request;
  RunTable table;
  Findings findings;
  LookFn fn(const Plan& plan) { return analysis_at_looks(request, false, false, plan, table, findings); }
};

// Scripted looks: decisive at look `decide_at` (0: never), could_decide_by answering
// `could_decide` and remembering what it was asked; each look's run count kept.
struct LoopLooks {
  std::size_t decide_at = 0;
  bool could_decide = true;
  std::vector<std::size_t> runs_seen, asked_blocks;
  LookFn fn() {
    return [this](const std::vector<RunRecord>& runs, std::size_t looks) {
      runs_seen.push_back(runs.size());
      LookOutcome out{looks == decide_at, looks == decide_at, {}, {}, {}};
      out.could_decide_by = [this](std::size_t b) {
        asked_blocks.push_back(b);
        return could_decide;
      };
      return out;
    };
  }
};

std::vector<nlohmann::json> notes_of_kind(const JournalData& d, const std::string& kind) {
  std::vector<nlohmann::json> out;
  for (const nlohmann::json& n : d.notes)
    if (n.at("kind") == kind) out.push_back(n);
  return out;
}

// The fake's effect: every metric of a configuration that programs `items` counters
// times `factor`, the rest unchanged.
std::vector<double> effect_on_items(const Plan& plan, std::size_t items, double factor) {
  std::vector<double> out;
  for (const Configuration& c : plan.configs) out.push_back(c.level.programmed.size() == items ? factor : 1.0);
  return out;
}

}  // namespace

TEST_CASE("fake session: a giant effect is decided at the first look, which the journal notes, and the nulls at 15 blocks (three doses)") {
  FakeBackend fake;
  fake.script.noise = 0.001;
  Session s = fake_session(fake, {"task-clock", "page-faults"}, 2000, std::nullopt, true);
  fake.script.effect = effect_on_items(s.plan, 2, 2.0);
  REQUIRE(s.plan.block_size() == 5);
  s.first_look = first_look(s.plan);
  FakeJournal j(s.plan);
  s.journal_path = j.path;
  RealLooks looks;
  const SessionOutcome out = run_session(s, j.writer, looks.fn(s.plan));
  CHECK(out.stopped == StopReason::decided);
  CHECK(s.first_look == 4);  // analysis/check.h first_look: the primary family can reject from 4 blocks
  // wall time at the levels without the effect is "not perturbed" only once an effect on
  // 1 run in 4 would have shown at all three of its doses together (alpha / 3 each:
  // (3/4)^14 = 1.8% > 1.67%, (3/4)^15 = 1.3%, so 15 blocks; analysis/check.h): the check
  // ends at the first look from 15 (looks at 4, 5, 6, 7, 8, 10, 12, 15).
  CHECK(intermittent_cover_blocks(0.05, 3) == 15);
  CHECK(out.looks == 8);
  const JournalData d = load_journal(j.path);
  CHECK(d.runs.size() == fake.ledger.calls);
  const auto look_notes = notes_of_kind(d, "look");
  REQUIRE(look_notes.size() == 8);
  CHECK(look_notes.back().at("blocks") == 15);
  CHECK(look_notes[0].at("blocks") == 4);
  CHECK(look_notes[0].at("runs") == 25);
  CHECK(look_notes[0].at("seconds") == 6.25);  // 25 runs of a quarter second on the fake clock
  // The stopping family (the counters and wall time) first, each perturbed; the other
  // driver metrics decided by then are listed after them. Wall time, compared at the
  // levels without the effect too, is decided at a later look.
  const nlohmann::json decided = look_notes[0].at("decided");
  REQUIRE(decided.size() >= 2);
  CHECK(decided[0] == nlohmann::json({{"metric", "task-clock"}, {"verdict", "perturbed"}}));
  CHECK(decided[1] == nlohmann::json({{"metric", "page-faults"}, {"verdict", "perturbed"}}));
  for (const nlohmann::json& m : decided) CHECK(m.at("verdict") == "perturbed");
  bool wall = false;
  for (const nlohmann::json& note : look_notes)
    for (const nlohmann::json& m : note.at("decided"))
      wall |= m == nlohmann::json({{"metric", "wall-time"}, {"verdict", "perturbed"}});
  CHECK(wall);
  CHECK(d.notes.back().at("kind") == "finished");
  CHECK(d.notes.back().at("sweep").at("stopped") == "decided");
  // A quarter second a run over the 16 blocks (the warm-up and 15 measured), fewer runs a
  // block once the settled configurations retired.
  CHECK(d.notes.back().at("sweep").at("seconds_per_block").get<double>() ==
        Approx(0.25 * static_cast<double>(fake.ledger.calls) / 16));
}

TEST_CASE("fake session: an A/A check with a fixed number of blocks looks once and is decided") {
  FakeBackend fake;
  fake.script.noise = 0.001;
  Session s = fake_session(fake, {"task-clock", "page-faults"}, 2000, 20, true);
  FakeJournal j(s.plan);
  s.journal_path = j.path;
  RealLooks looks;
  const SessionOutcome out = run_session(s, j.writer, looks.fn(s.plan));
  CHECK(out.looks == 1);
  CHECK(out.stopped == StopReason::decided);
  CHECK(fake.ledger.calls == 105);  // the warm-up block and 20 measured, 5 runs each
  CHECK(looks.findings.answered);
  REQUIRE(looks.findings.verdicts.size() == 2 + 3 * 7);  // a counter at the level that adds it; the driver's 7 metrics at 3 levels
  for (const LevelVerdict& v : looks.findings.verdicts)
    CHECK(v.verdict == Verdict::not_perturbed);
}

TEST_CASE("fake session: a fixed number of blocks left undecided stops as fixed, whatever the budget") {
  FakeBackend fake;
  Session s = fake_session(fake, {"task-clock"}, 2000, 7);
  s.time_budget_s = 1;  // --runs N asked for exactly N blocks: no budget applies
  FakeJournal j(s.plan);
  s.journal_path = j.path;
  LoopLooks looks;
  const SessionOutcome out = run_session(s, j.writer, looks.fn());
  CHECK(looks.runs_seen == std::vector<std::size_t>{16});
  CHECK(out.stopped == StopReason::fixed);
  CHECK_FALSE(out.budget_spent);
  CHECK(out.time_budget_s == 0);
  CHECK_FALSE(continuable_stop(out.stopped));
  CHECK(load_journal(j.path).notes.back().at("sweep").at("stopped") == "fixed");
}

TEST_CASE("fake session: an A/A check too noisy to decide by its cap stops at the cap") {
  FakeBackend fake;
  fake.script.noise = 0.5;
  Session s = fake_session(fake, {"task-clock"}, 12, std::nullopt, true);
  FakeJournal j(s.plan);
  s.journal_path = j.path;
  RealLooks looks;
  const SessionOutcome out = run_session(s, j.writer, looks.fn(s.plan));
  // One look, at 10 blocks: wall time's interval there, [-61%, +154%], admits no effect
  // that 12 blocks (the cap) could show within ±1% or beyond it at this noise, so the
  // check stops at its cap from that look. (With the t-test on each comparison's own
  // degrees of freedom its interval was wider than the noise, and the check ran a
  // second look at 12 blocks that could not decide either.)
  CHECK(out.looks == 1);
  CHECK(out.stopped == StopReason::cap);
  CHECK(fake.ledger.calls == 33);  // 11 blocks of 3: level 0, 1[task-clock], the A/A copy
  CHECK_FALSE(looks.findings.answered);
  bool inconclusive = false;
  for (const LevelVerdict& v : looks.findings.verdicts) inconclusive = inconclusive || v.verdict == Verdict::inconclusive;
  CHECK(inconclusive);
  CHECK(load_journal(j.path).notes.back().at("sweep").at("stopped") == "cap");
}

TEST_CASE("fake session: a time budget stops the check at the look after it is spent, on the fake clock") {
  FakeBackend fake;  // a quarter second a run, 2 runs a block: half a second a block
  Session s = fake_session(fake, {"task-clock"}, 2000);
  s.time_budget_s = 6;
  FakeJournal j(s.plan);
  s.journal_path = j.path;
  LoopLooks looks;
  const SessionOutcome out = run_session(s, j.writer, looks.fn());
  // After the warm-up (0.5 s) the first look fits its 10 blocks (5.5 s); the rest of
  // the budget, 0.5 s, is one block: the second look is cut to 11 blocks, at 6 s.
  CHECK(looks.runs_seen == std::vector<std::size_t>{22, 24});
  CHECK(out.budget_spent);
  CHECK(out.stopped == StopReason::budget);
  CHECK(out.seconds_per_block == 0.5);
  CHECK(out.measured_blocks == 11);
  const JournalData d = load_journal(j.path);
  const auto look_notes = notes_of_kind(d, "look");
  REQUIRE(look_notes.size() == 2);
  CHECK(look_notes[0].at("seconds") == 5.5);
  CHECK(look_notes[1].at("blocks") == 11);
  CHECK(look_notes[1].at("seconds") == 6.0);
  CHECK(d.notes.back().at("sweep").at("stopped") == "budget");
  CHECK(d.notes.back().at("sweep").at("seconds") == 6.0);
}

TEST_CASE("fake session: the warm-up's step sees the warm-up's pace and sets the budget the looks keep") {
  FakeBackend fake;
  Session s = fake_session(fake, {"task-clock"}, 2000);
  s.time_budget_s = 3600;
  std::vector<double> seen_block_s;
  s.after_warmup = [&](const WarmupSeen& w) {
    seen_block_s.push_back(w.block_s);
    CHECK(w.runs->size() == 2);
    CHECK(w.time_budget_s == 3600);
    return 8.0;  // the look at 10 blocks fits (5.5 s after the warm-up); the rest is 5 blocks
  };
  FakeJournal j(s.plan);
  s.journal_path = j.path;
  LoopLooks looks;
  const SessionOutcome out = run_session(s, j.writer, looks.fn());
  CHECK(seen_block_s == std::vector<double>{0.5});
  CHECK(out.time_budget_s == 8.0);
  // 0.5 + 10 * 0.5 = 5.5 s at the first look; 2.5 s left is 5 blocks: the next look,
  // scheduled at 12, runs its 2 (6.5 s); then 1.5 s is 3 blocks, to 15 (8 s): spent.
  CHECK(looks.runs_seen == std::vector<std::size_t>{22, 26, 32});
  CHECK(out.stopped == StopReason::budget);
  CHECK(load_journal(j.path).notes.back().at("sweep").at("time_budget") == 8.0);
}

TEST_CASE("fake session: a check stops as futile when the rest of its budget cannot decide, asked at the right horizon") {
  FakeBackend fake;
  Session s = fake_session(fake, {"task-clock"}, 100000);
  s.time_budget_s = 3600;
  FakeJournal j(s.plan);
  s.journal_path = j.path;
  LoopLooks looks;
  looks.could_decide = false;
  const SessionOutcome out = run_session(s, j.writer, looks.fn());
  CHECK(looks.runs_seen == std::vector<std::size_t>{22});
  // 10 blocks run, and (3600 - 5.5) s left at half a second a block: 7189 more.
  CHECK(looks.asked_blocks == std::vector<std::size_t>{10 + 7189});
  CHECK(out.stopped == StopReason::futile);
  CHECK_FALSE(out.budget_spent);
  CHECK(continuable_stop(out.stopped));
  CHECK(load_journal(j.path).notes.back().at("sweep").at("stopped") == "futile");
}

TEST_CASE("fake session: a settled configuration is no longer measured from the block after its look") {
  FakeBackend fake;
  Session s = fake_session(fake, {"task-clock", "page-faults"}, 12);
  REQUIRE(s.plan.block_size() == 4);
  FakeJournal j(s.plan);
  s.journal_path = j.path;
  const LookFn settle_config_1 = [](const std::vector<RunRecord>&, std::size_t) {
    LookOutcome out;
    out.settled_configs = {1};
    return out;
  };
  const SessionOutcome out = run_session(s, j.writer, settle_config_1);
  CHECK(out.stopped == StopReason::cap);
  // The warm-up and blocks 1 to 10 run every configuration; 11 and 12 all but config 1.
  CHECK(fake.ledger.calls_per_config == std::vector<std::size_t>{13, 11, 13, 13});
  CHECK(out.runs_saved == 2);
  const auto retired = notes_of_kind(load_journal(j.path), "retire");
  REQUIRE(retired.size() == 1);
  CHECK(retired[0].at("from_block") == 11);
}

TEST_CASE("fake session: the check's own looks retire a configuration once its comparisons are settled") {
  FakeBackend fake;
  fake.script.noise = 0.001;
  Session s = fake_session(fake, {"task-clock", "page-faults"}, 30, std::nullopt, true);
  REQUIRE(s.plan.block_size() == 5);
  // Both counters doubled: settled at once. page-faults alone costs exactly the margin
  // (1%): never shown within it nor beyond it, so its comparison stays open.
  for (const Configuration& c : s.plan.configs) {
    const std::size_t items = c.level.programmed.size();
    fake.script.effect.push_back(items == 2 ? 2.0 : items == 1 && c.level.programmed[0] == 1 ? 1.01 : 1.0);
  }
  s.first_look = first_look(s.plan);
  FakeJournal j(s.plan);
  s.journal_path = j.path;
  RealLooks looks;
  const SessionOutcome out = run_session(s, j.writer, looks.fn(s.plan));
  CHECK(out.stopped == StopReason::cap);
  const JournalData d = load_journal(j.path);
  const auto retired = notes_of_kind(d, "retire");
  // At the first look (4 blocks) the doubled pair is beyond the margin: it retires from
  // block 5. The added task-clock is within the margin, but "within" needs the blocks
  // at which an effect on 1 run in 4 would have shown at all of a metric's doses
  // together (analysis/check.h): wall time is compared at three doses, so 15 blocks
  // (alpha / 3 each), and it retires at the first look from 15 (look 8) from block 16.
  // Level 0, page-faults alone and the A/A copy run to the cap.
  REQUIRE(retired.size() == 2);
  CHECK(retired[0].at("look") == 1);
  CHECK(retired[0].at("from_block") == 5);
  CHECK(retired[0].at("configs") == nlohmann::json({s.plan.configs[2].id}));
  CHECK(retired[1].at("look") == 8);
  CHECK(retired[1].at("from_block") == 16);
  CHECK(retired[1].at("configs") == nlohmann::json({s.plan.configs[1].id}));
  CHECK(s.plan.configs[3].id == "counters=1[page-faults]/held");
  CHECK(fake.ledger.calls_per_config == std::vector<std::size_t>{31, 16, 5, 31, 31});
  CHECK(out.runs_saved == 41);  // 26 blocks without the pair, 15 without the added task-clock
  for (const RunRecord& r : d.runs) {
    if (r.config == 2) CHECK(r.block < 5);
    if (r.config == 1) CHECK(r.block < 16);
  }
}

TEST_CASE("fake session: a failed run ends the session with the failure, its look noted and no end note") {
  FakeBackend fake;
  fake.script.fail_at_call = 5;  // the third measured run
  Session s = fake_session(fake, {"task-clock"}, 2000);
  FakeJournal j(s.plan);
  s.journal_path = j.path;
  LoopLooks looks;
  const SessionOutcome out = run_session(s, j.writer, looks.fn());
  CHECK(fake.ledger.calls == 5);
  CHECK(out.stopped == StopReason::failed);
  CHECK(out.failure.rfind("the target exited with code 1 in run 4 (", 0) == 0);
  CHECK(out.end_note.is_null());
  const JournalData d = load_journal(j.path);
  CHECK(d.runs.size() == 5);  // the failed run is journalled: analysis names it
  CHECK(d.runs.back().exit.exit_code == 1);
  // The look over what ran is taken and noted; a failed sweep did not end, so no end note.
  REQUIRE(d.notes.size() == 1);
  CHECK(d.notes[0].at("kind") == "look");
}

TEST_CASE("fake session: an interrupted session notes it, and a second one on its journal goes on without repeating a look") {
  FakeBackend fake;
  fake.script.interrupt_at_call = 25;  // block 12's first run; blocks 0 to 11 are whole
  Session s = fake_session(fake, {"task-clock"}, 15);
  FakeJournal j(s.plan);
  s.journal_path = j.path;
  LoopLooks first;
  InterruptGuard::clear_for_tests();
  const SessionOutcome out = run_session(s, j.writer, first.fn());
  const bool was_interrupted = InterruptGuard::interrupted();
  InterruptGuard::clear_for_tests();
  CHECK(was_interrupted);
  CHECK(out.interrupted);
  CHECK(out.stopped == StopReason::interrupted);
  CHECK(first.runs_seen == std::vector<std::size_t>{22, 24});  // the cut run is not a measurement
  CHECK(out.end_note.at("kind") == "interrupted");
  const JournalData d = load_journal(j.path);
  CHECK(d.notes.back().at("kind") == "interrupted");
  CHECK(d.notes.back().at("sweep").at("stopped") == "interrupted");
  CHECK(d.runs.size() == 24);

  FakeBackend more;
  Session again = fake_session(more, {"task-clock"}, 15);
  again.plan = plan_from_journal(d);
  again.journal_path = j.path;
  again.runs = d.runs;
  LoopLooks second;
  const SessionOutcome resumed = run_session(again, j.writer, second.fn());
  // Looks at 12 and 15 only: the one at 10 is the journal's. No warm-up again.
  CHECK(second.runs_seen == std::vector<std::size_t>{26, 32});
  CHECK(more.ledger.calls == 8);
  CHECK(resumed.stopped == StopReason::cap);
  const JournalData after = load_journal(j.path);
  REQUIRE(after.runs.size() == 32);
  for (std::size_t i = 0; i < after.runs.size(); ++i) CHECK(after.runs[i].index == i);
  CHECK(after.notes.back().at("kind") == "finished");
}
