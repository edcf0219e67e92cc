// The check's loop (run/session.h) on a real target: when it looks, when it stops, and
// what its end note records. The looks' conclusions are scripted, so each test pins
// the stopping rule alone.
#include <catch2/catch.hpp>

#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <set>

#include "events/event.h"
#include "record/journal.h"
#include "record/journal_reader.h"
#include "run/backend.h"
#include "run/session.h"

#include "../temp_dir.h"
#include "session_journal.h"

using namespace obscheck;
namespace fs = std::filesystem;

namespace {

// /bin/true with task-clock, one counter: one level and the A/A copy, 2 runs a block.
Session true_session(std::size_t max_blocks, std::optional<std::size_t> fixed = std::nullopt) {
  Session s;
  s.plan = obscheck::test::held_counter_plan({"task-clock"}, 9, max_blocks, fixed);
  s.spec.base.path = "/bin/true";
  s.spec.base.argv = {"true"};
  s.spec.base.env = EnvBlock::for_target();
  s.spec.backend = choose_backend(BackendKind::native);
  s.spec.events = parse_events("task-clock");
  s.spec.item_events = {{0}};
  return s;
}

// The journal every session here writes (session_journal.h).
struct Journal : obscheck::test::SessionJournal {
  explicit Journal(const Plan& plan) : SessionJournal(plan, "/bin/true") {}
};

// A look that decides at look `decide_at` (0: never) and records what it saw.
struct ScriptedLooks {
  std::size_t decide_at = 0;
  bool could_decide = true;
  std::vector<std::size_t> runs_seen;
  LookFn fn() {
    return [this](const std::vector<RunRecord>& runs, std::size_t looks) {
      runs_seen.push_back(runs.size());
      LookOutcome out{looks == decide_at, looks == decide_at, [this](std::size_t) { return could_decide; }, {}};
      if (looks == decide_at) out.decided = {{"wall-time", "not-perturbed"}};
      return out;
    };
  }
};

}  // namespace

TEST_CASE("session: stops at the first look whose verdicts are decided, and notes it finished") {
  Session s = true_session(100);
  Journal j(s.plan);
  s.journal_path = j.path;
  ScriptedLooks looks{2};
  const SessionOutcome out = run_session(s, j.writer, looks.fn());
  // Looks at 10 and 12 measured blocks, after one warm-up block; 2 runs a block.
  CHECK(looks.runs_seen == std::vector<std::size_t>{22, 26});
  CHECK(out.looks == 2);
  CHECK_FALSE(out.interrupted);
  CHECK(out.failure.empty());
  CHECK_FALSE(out.budget_spent);
  CHECK(out.runs_planned == 202);  // up to the last look of the schedule: 100 blocks + 1 warm-up
  const JournalData d = load_journal(j.path);
  CHECK(d.runs.size() == 26);
  // A note per look (when each answer was reached), then the end note.
  REQUIRE(d.notes.size() == 3);
  CHECK(d.notes[0].at("kind") == "look");
  CHECK(d.notes[0].at("blocks") == 10);
  CHECK(d.notes[0].at("runs") == 22);
  CHECK(d.notes[0].at("decided") == nlohmann::json::array());
  CHECK(d.notes[1].at("blocks") == 12);
  CHECK(d.notes[1].at("decided") == nlohmann::json::parse(R"([{"metric":"wall-time","verdict":"not-perturbed"}])"));
  CHECK(d.notes[1].at("seconds").get<double>() >= d.notes[0].at("seconds").get<double>());
  CHECK(d.notes.back().at("kind") == "finished");
  CHECK(d.notes.back().at("sweep").at("looks") == 2);
}

TEST_CASE("session: an undecided check runs to the schedule's last look, the cap") {
  Session s = true_session(12);
  Journal j(s.plan);
  s.journal_path = j.path;
  ScriptedLooks looks;
  const SessionOutcome out = run_session(s, j.writer, looks.fn());
  CHECK(looks.runs_seen == std::vector<std::size_t>{22, 26});
  CHECK(out.looks == 2);
  CHECK(load_journal(j.path).runs.size() == 26);
}

TEST_CASE("session: --runs N runs exactly N blocks with one look, whatever the budget") {
  Session s = true_session(100, 3);
  s.time_budget_s = 1e-9;
  Journal j(s.plan);
  s.journal_path = j.path;
  ScriptedLooks looks;
  const SessionOutcome out = run_session(s, j.writer, looks.fn());
  CHECK(looks.runs_seen == std::vector<std::size_t>{8});
  CHECK_FALSE(out.budget_spent);
}

TEST_CASE("session: a spent time budget stops the check at its look") {
  Session s = true_session(100);
  s.time_budget_s = 1e-9;
  Journal j(s.plan);
  s.journal_path = j.path;
  ScriptedLooks looks;
  const SessionOutcome out = run_session(s, j.writer, looks.fn());
  // The budget is kept to within a block: the first look is cut to one block at the
  // warm-up's pace (2 warm-up runs, 2 measured).
  CHECK(looks.runs_seen == std::vector<std::size_t>{4});
  CHECK(out.budget_spent);
  CHECK(out.stopped == StopReason::budget);
  const nlohmann::json end = load_journal(j.path).notes.back();
  CHECK(end.at("kind") == "finished");
  CHECK(end.at("sweep").at("stopped") == "budget");
  CHECK(end.at("sweep").at("blocks") == 1);
}

TEST_CASE("session: a check stops when the rest of its budget cannot decide what is undecided") {
  Session s = true_session(100);
  s.time_budget_s = 3600;
  Journal j(s.plan);
  s.journal_path = j.path;
  ScriptedLooks looks;
  looks.could_decide = false;
  const SessionOutcome out = run_session(s, j.writer, looks.fn());
  CHECK(looks.runs_seen == std::vector<std::size_t>{22});
  CHECK_FALSE(out.budget_spent);
}

TEST_CASE("session: a resumed session runs only what its journal lacks") {
  Session first = true_session(12);
  Journal j(first.plan);
  first.journal_path = j.path;
  ScriptedLooks decide_first{1};
  run_session(first, j.writer, decide_first.fn());
  REQUIRE(first.runs.size() == 22);

  Session again = true_session(12);
  again.journal_path = j.path;
  again.runs = first.runs;
  ScriptedLooks never;
  run_session(again, j.writer, never.fn());
  // The journal's look at 10 blocks is not taken again.
  CHECK(never.runs_seen == std::vector<std::size_t>{26});
  const JournalData d = load_journal(j.path);
  CHECK(d.runs.size() == 26);
  for (std::size_t i = 0; i < d.runs.size(); ++i) CHECK(d.runs[i].index == i);
}

namespace {

// /bin/true with task-clock and page-faults: the prefixes 1[task-clock] and
// 2[task-clock,page-faults], the solo 1[page-faults] and the A/A copy: 4 runs a block.
Session two_counter_session(std::size_t max_blocks) {
  Session s = true_session(max_blocks);
  PlanSpec ps = s.plan.spec;
  ps.counters = {"task-clock", "page-faults"};
  ps.levels = counter_levels(ps.counters);
  s.plan = make_plan(ps);
  s.spec.events = parse_events("task-clock,page-faults");
  s.spec.item_events = {{0}, {1}};
  return s;
}

// Every trial the plan (with its retirements) schedules up to `end_block` is in the
// journal exactly once, and nothing else is.
void check_each_trial_once(const std::string& path, std::size_t end_block) {
  const JournalData d = load_journal(path);
  const Plan plan = plan_from_journal(d);
  std::multiset<std::size_t> ran;
  for (const RunRecord& r : d.runs) ran.insert(r.index);
  std::multiset<std::size_t> planned;
  for (const Trial& t : trials(plan, 0, end_block)) planned.insert(t.index);
  CHECK(ran == planned);
}

// Settles configuration `config` at look `at` and never decides.
struct SettlingLooks {
  std::size_t at = 1, config = 1;
  std::vector<std::size_t> runs_seen;
  LookFn fn() {
    return [this](const std::vector<RunRecord>& runs, std::size_t looks) {
      runs_seen.push_back(runs.size());
      LookOutcome out{false, false, {}, {}, {}};
      if (looks >= at) out.settled_configs = {config};
      return out;
    };
  }
};

}  // namespace

TEST_CASE("session: a settled configuration stops running, the journal says from which block, and a resume keeps it") {
  Session s = two_counter_session(12);
  REQUIRE(s.plan.block_size() == 4);
  Journal j(s.plan);
  s.journal_path = j.path;
  SettlingLooks looks;
  const SessionOutcome out = run_session(s, j.writer, looks.fn());
  // Looks at 10 and 12 (the cap): 11 blocks of 4 runs, then 2 of 3.
  CHECK(looks.runs_seen == std::vector<std::size_t>{44, 50});
  CHECK(out.stopped == StopReason::cap);
  CHECK(out.runs_saved == 2);
  const JournalData d = load_journal(j.path);
  std::size_t retire_notes = 0;
  for (const auto& n : d.notes)
    if (n.at("kind") == "retire") {
      ++retire_notes;
      CHECK(n.at("look") == 1);
      CHECK(n.at("from_block") == 11);
      CHECK(n.at("configs") == nlohmann::json::array({s.plan.configs[1].id}));
    }
  CHECK(retire_notes == 1);
  for (const RunRecord& r : d.runs)
    if (r.config == 1) CHECK(r.block < 11);
  CHECK(d.notes.back().at("sweep").at("runs_saved") == 2);
  check_each_trial_once(j.path, 13);

}

TEST_CASE("session: a check interrupted after a retirement, resumed from its journal, keeps it and runs each trial once") {
  Session s = two_counter_session(15);
  Journal j(s.plan);
  s.journal_path = j.path;
  SettlingLooks looks;
  run_session(s, j.writer, looks.fn());
  const JournalData whole = load_journal(j.path);

  // The journal as Ctrl-C in block 13 would leave it: the retire note, the runs before.
  Journal cut(s.plan);
  for (const RunRecord& r : whole.runs)
    if (r.block < 13 || (r.block == 13 && r.position < 2)) cut.writer.append(r);
  for (const nlohmann::json& n : whole.notes)
    if (n.at("kind") == "retire") cut.writer.append_note(n);
  cut.writer.sync();
  const JournalData d = load_journal(cut.path);
  Session again = two_counter_session(15);
  again.plan = plan_from_journal(d);
  REQUIRE(again.plan.retired == std::vector<Retirement>{{1, 11}});
  again.journal_path = cut.path;
  again.runs = d.runs;
  SettlingLooks more;
  const SessionOutcome out = run_session(again, cut.writer, more.fn());
  // The looks at 10 and 12 are the journal's; the resumed session looks at 15 only.
  CHECK(more.runs_seen == std::vector<std::size_t>{44 + 5 * 3});
  CHECK(out.stopped == StopReason::cap);
  CHECK(out.runs_saved == 5);
  check_each_trial_once(cut.path, 16);
  for (const RunRecord& r : load_journal(cut.path).runs)
    if (r.config == 1) CHECK(r.block < 11);
}

TEST_CASE("session: a check stopped by its budget, resumed with a budget, adds blocks and runs each trial once") {
  Session s = true_session(100);
  s.time_budget_s = 1e-9;
  Journal j(s.plan);
  s.journal_path = j.path;
  ScriptedLooks looks;
  const SessionOutcome first = run_session(s, j.writer, looks.fn());
  REQUIRE(first.stopped == StopReason::budget);
  REQUIRE(continuable_stop(first.stopped));
  const std::size_t before = load_journal(j.path).runs.size();
  CHECK(before == 4);

  Session again = true_session(100);
  again.time_budget_s = 1e-9;
  again.journal_path = j.path;
  again.runs = load_journal(j.path).runs;
  ScriptedLooks more;
  const SessionOutcome second = run_session(again, j.writer, more.fn());
  // The pace is not known to a resumed session: one block, then the budget is spent.
  CHECK(second.stopped == StopReason::budget);
  CHECK(more.runs_seen == std::vector<std::size_t>{6});
  const JournalData d = load_journal(j.path);
  CHECK(d.runs.size() == before + 2);
  for (std::size_t i = 0; i < d.runs.size(); ++i) CHECK(d.runs[i].index == i);
  CHECK(d.notes.back().at("sweep").at("blocks") == 2);
}

TEST_CASE("session: the warm-up's step sees the warm-up's runs once and sets the budget") {
  Session s = true_session(100);
  s.time_budget_s = 3600;
  Journal j(s.plan);
  s.journal_path = j.path;
  std::size_t calls = 0, warmup_runs = 0;
  s.after_warmup = [&](const WarmupSeen& w) {
    ++calls;
    warmup_runs = w.runs->size();
    CHECK(w.time_budget_s == 3600);
    CHECK(w.block_s > 0);
    return 1e-9;  // a budget already spent: one block, then stop
  };
  ScriptedLooks looks;
  const SessionOutcome out = run_session(s, j.writer, looks.fn());
  CHECK(calls == 1);
  CHECK(warmup_runs == 2);
  CHECK(out.time_budget_s == 1e-9);
  CHECK(out.stopped == StopReason::budget);
  CHECK(looks.runs_seen == std::vector<std::size_t>{4});
}

TEST_CASE("session: a check whose every configuration is settled stops there, decided") {
  Session s = two_counter_session(100);
  Journal j(s.plan);
  s.journal_path = j.path;
  ScriptedLooks never;
  const LookFn settle_all = [&](const std::vector<RunRecord>& runs, std::size_t looks) {
    LookOutcome out = never.fn()(runs, looks);
    out.settled_configs = {0, 1, 2, 3};
    out.answered = true;
    return out;
  };
  const SessionOutcome out = run_session(s, j.writer, settle_all);
  CHECK(never.runs_seen == std::vector<std::size_t>{44});
  CHECK(out.stopped == StopReason::decided);
  CHECK_FALSE(continuable_stop(out.stopped));
  const JournalData d = load_journal(j.path);
  CHECK(d.notes.back().at("sweep").at("stopped") == "decided");
  CHECK(d.notes.back().at("sweep").at("runs_saved") == 0);  // no block was run without them
}

TEST_CASE("session: settled with verdicts out of reach within the cap stops at the cap, which a resume may raise") {
  Session s = two_counter_session(100);
  Journal j(s.plan);
  s.journal_path = j.path;
  ScriptedLooks never;
  const LookFn out_of_reach = [&](const std::vector<RunRecord>& runs, std::size_t looks) {
    LookOutcome out = never.fn()(runs, looks);
    out.settled_configs = {0, 1, 2, 3};  // settled, but inconclusive: not answered
    return out;
  };
  const SessionOutcome out = run_session(s, j.writer, out_of_reach);
  CHECK(out.stopped == StopReason::cap);
  CHECK(load_journal(j.path).notes.back().at("sweep").at("stopped") == "cap");
}
