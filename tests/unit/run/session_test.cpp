// The check's loop (run/session.h) on a real target: when it looks, when it stops, and
// what its end note records. The looks' conclusions are scripted, so each test pins
// the stopping rule alone.
#include <catch2/catch.hpp>

#include <chrono>
#include <cstdlib>
#include <filesystem>

#include "events/event.h"
#include "record/journal.h"
#include "record/journal_reader.h"
#include "run/backend.h"
#include "run/session.h"

#include "../temp_dir.h"

using namespace obscheck;
using obscheck::test::TempDir;
namespace fs = std::filesystem;

namespace {

// /bin/true with task-clock, one counter: one level and the A/A copy, 2 runs a block.
Session true_session(std::size_t max_blocks, std::optional<std::size_t> fixed = std::nullopt) {
  Session s;
  PlanSpec ps;
  ps.counters = {"task-clock"};
  ps.levels = counter_levels(ps.counters);
  ps.layouts = {Layout::held};
  ps.seed = 9;
  ps.max_blocks = max_blocks;
  ps.fixed_blocks = fixed;
  s.plan = make_plan(ps);
  s.spec.base.path = "/bin/true";
  s.spec.base.argv = {"true"};
  s.spec.base.env = EnvBlock::for_target();
  s.spec.backend = choose_backend(BackendKind::native);
  s.spec.events = parse_events("task-clock");
  s.spec.item_events = {{0}};
  return s;
}

struct Journal {
  TempDir dir;
  std::string path = (dir.path / "j.jsonl").string();
  JournalWriter writer;
  explicit Journal(const Plan& plan) : writer(JournalWriter::create(path, manifest(plan))) {}
  static nlohmann::json manifest(const Plan& plan) {
    ManifestInput in;
    in.obscheck_version = "0.1.0";
    in.created = std::chrono::system_clock::now();
    in.options = {{"counters", {"task-clock"}}};
    in.target = {"/bin/true", {"true"}, std::string(64, 'a')};
    return make_manifest(in, plan);
  }
};

// A look that decides at look `decide_at` (0: never) and records what it saw.
struct ScriptedLooks {
  std::size_t decide_at = 0;
  bool could_decide = true;
  std::vector<std::size_t> runs_seen;
  LookFn fn() {
    return [this](const std::vector<RunRecord>& runs, std::size_t looks) {
      runs_seen.push_back(runs.size());
      LookOutcome out{looks == decide_at, [this](std::size_t) { return could_decide; }, {}};
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
  CHECK(looks.runs_seen == std::vector<std::size_t>{22});
  CHECK(out.budget_spent);
  CHECK(load_journal(j.path).notes.back().at("kind") == "finished");
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
  CHECK(never.runs_seen == std::vector<std::size_t>{22, 26});
  const JournalData d = load_journal(j.path);
  CHECK(d.runs.size() == 26);
  for (std::size_t i = 0; i < d.runs.size(); ++i) CHECK(d.runs[i].index == i);
}
