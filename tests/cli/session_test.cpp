// The check's session as a user drives it: a check stopped by its time budget goes on
// with --resume (more blocks, the same plan, each planned run exactly once), a resume
// without --time-budget keeps the journal's budget, the report says what each stretch
// added, and the configurations a check stops running are recorded in its journal and
// never run again, also across an interruption and a resume.
#include <signal.h>

#include <catch2/catch.hpp>
#include <fstream>
#include <map>
#include <nlohmann/json.hpp>
#include <set>
#include <string>

#include "run_cli.h"

using nlohmann::json;
using obscheck::test::interrupt_after;
using obscheck::test::journal_lines;
using obscheck::test::run_cli;
using obscheck::test::run_indexes;
using obscheck::test::workload;

namespace {

std::string session_tmp(const std::string& name) {
  return "/tmp/obscheck-session-test-" + std::to_string(getpid()) + "-" + name;
}

std::vector<json> notes_of(const std::string& journal, const std::string& kind) {
  std::vector<json> out;
  for (const json& l : journal_lines(journal))
    if (l.value("type", "") == "note" && l.value("kind", "") == kind) out.push_back(l);
  return out;
}

// Each run index once; no run of a retired configuration from its block on.
void check_journal_consistent(const std::string& journal) {
  const auto idx = run_indexes(journal);
  CHECK(std::set<std::size_t>(idx.begin(), idx.end()).size() == idx.size());
  std::map<std::string, std::size_t> retired_from;
  for (const json& n : notes_of(journal, "retire"))
    for (const auto& id : n.at("configs")) retired_from.emplace(id.get<std::string>(), n.at("from_block").get<std::size_t>());
  for (const json& l : journal_lines(journal)) {
    if (l.value("type", "") != "run") continue;
    const auto it = retired_from.find(l.at("config_id").get<std::string>());
    if (it != retired_from.end()) CHECK(l.at("block").get<std::size_t>() < it->second);
  }
}

std::size_t measured_blocks(const std::string& journal) {
  std::set<std::size_t> blocks;
  for (const json& l : journal_lines(journal))
    if (l.value("type", "") == "run" && !l.value("warmup", false)) blocks.insert(l.at("block").get<std::size_t>());
  return blocks.size();
}

}  // namespace

TEST_CASE("session: --resume of a check stopped by its time budget adds blocks, without --time-budget it keeps the journal's") {
  const std::string journal = session_tmp("budget.jsonl");
  unlink(journal.c_str());
  // A budget spent by the warm-up: one measured block, then the check stops.
  auto first = run_cli({"--counters", "task-clock", "--time-budget", "0.001", "--journal", journal, "--",
                        workload("compute"), "20"});
  REQUIRE((first.code == 0 || first.code == 1));
  // The one-screen answer wraps at 100 columns, between words: the command stays whole.
  CHECK(first.out.find("continue with") != std::string::npos);
  CHECK(first.out.find("obscheck --resume " + journal) != std::string::npos);
  CHECK(first.err.find("obscheck: a block (") != std::string::npos);  // the forecast, once
  CHECK(first.err.find("obscheck: a block (", first.err.find("obscheck: a block (") + 1) == std::string::npos);
  const auto ends = notes_of(journal, "finished");
  REQUIRE(ends.size() == 1);
  CHECK(ends[0].at("sweep").at("stopped") == "budget");
  CHECK(measured_blocks(journal) == 1);
  const std::size_t runs_before = run_indexes(journal).size();

  auto second = run_cli({"--resume", journal, "--time-budget", "0.001"});
  REQUIRE((second.code == 0 || second.code == 1));
  CHECK(second.err.find("continuing " + journal) != std::string::npos);
  CHECK(second.err.find("is complete") == std::string::npos);
  CHECK(measured_blocks(journal) == 2);
  CHECK(run_indexes(journal).size() > runs_before);

  // No --time-budget: the journal's budget (0.001 s), not the default 60 s: one block more.
  auto third = run_cli({"--resume", journal});
  REQUIRE((third.code == 0 || third.code == 1));
  CHECK(measured_blocks(journal) == 3);
  check_journal_consistent(journal);
  const auto idx = run_indexes(journal);
  for (std::size_t i = 0; i < idx.size(); ++i) CHECK(idx[i] == i);  // each planned run once, in order

  auto report = run_cli({"report", "--verbose", journal});
  CHECK(report.out.find("sweep: 1 blocks, stopped by the time budget (0.001 s); then +1 blocks, stopped by the time "
                        "budget (0.001 s); then +1 blocks, stopped by the time budget (0.001 s)") != std::string::npos);
  auto as_json = run_cli({"report", "--json", journal});
  CHECK(json::parse(as_json.out).at("context").at("sweep").size() == 1);
  unlink(journal.c_str());
}

TEST_CASE("session: --resume of a check stopped at --max-runs raises its cap, each planned run exactly once") {
  const std::string journal = session_tmp("cap.jsonl"), cut = session_tmp("cap-cut.jsonl");
  unlink(journal.c_str());
  auto first = run_cli({"--counters", "task-clock", "--max-runs", "2", "--journal", journal, "--", workload("compute"), "20"});
  REQUIRE((first.code == 0 || first.code == 1));
  const auto ends = notes_of(journal, "finished");
  REQUIRE(ends.size() == 1);
  if (ends[0].at("sweep").at("stopped") != "cap") {
    WARN("SKIPPED: the check decided within 2 blocks (" << ends[0].dump() << "); nothing to continue");
    return;
  }
  CHECK(first.out.find("continue with obscheck --resume " + journal) != std::string::npos);
  CHECK(measured_blocks(journal) == 2);

  // A resume can only raise the cap.
  auto lower = run_cli({"--resume", journal, "--max-runs", "1"});
  CHECK(lower.code == 2);
  CHECK(lower.err.find("--max-runs 1 is below the journal's cap of 2 blocks") != std::string::npos);
  CHECK(notes_of(journal, "extend").empty());

  // --max-runs N: up to N blocks.
  auto second = run_cli({"--resume", journal, "--max-runs", "3"});
  REQUIRE((second.code == 0 || second.code == 1));
  CHECK(second.err.find("continuing " + journal + " after 2 measured blocks (stopped at its cap of 2 blocks), up to 3 blocks") !=
        std::string::npos);
  CHECK(measured_blocks(journal) == 3);
  REQUIRE(notes_of(journal, "extend").size() == 1);
  CHECK(notes_of(journal, "extend")[0].at("max_blocks") == 3);

  // Without --max-runs: as many blocks again, here within a budget of one block.
  if (notes_of(journal, "finished").back().at("sweep").at("stopped") == "cap") {
    auto third = run_cli({"--resume", journal, "--time-budget", "0.001"});
    REQUIRE((third.code == 0 || third.code == 1));
    CHECK(third.err.find("up to 6 blocks") != std::string::npos);
    CHECK(measured_blocks(journal) == 4);
    CHECK(notes_of(journal, "extend").back().at("max_blocks") == 6);
  }
  check_journal_consistent(journal);
  const auto idx = run_indexes(journal);
  for (std::size_t i = 0; i < idx.size(); ++i) CHECK(idx[i] == i);  // each planned run once, in order

  // Both readers know the blocks past the manifest's cap.
  auto report = run_cli({"report", "--verbose", journal});
  CHECK(report.code != 3);
  // What each resume added: the cap it raised, then its blocks.
  CHECK(report.out.find("sweep: 2 blocks, stopped at --max-runs; a resume raised the cap from 2 to 3 blocks; then +1 blocks, ") !=
        std::string::npos);
  // Without the note, the runs past the manifest's cap are not the plan's.
  {
    std::ifstream in(journal);
    std::ofstream out(cut);
    for (std::string l; std::getline(in, l);)
      if (l.find("\"kind\":\"extend\"") == std::string::npos) out << l << "\n";
  }
  auto refused = run_cli({"report", cut});
  CHECK(refused.code == 6);
  CHECK(refused.err.find("field block 3 is beyond") != std::string::npos);
  unlink(journal.c_str());
  unlink(cut.c_str());
}

TEST_CASE("session: a resume of a decided check stays complete and writes nothing") {
  const std::string journal = session_tmp("fixed.jsonl");
  unlink(journal.c_str());
  auto first = run_cli({"--counters", "task-clock", "--runs", "2", "--journal", journal, "--", workload("compute"), "5"});
  REQUIRE((first.code == 0 || first.code == 1));
  CHECK(notes_of(journal, "finished").at(0).at("sweep").at("stopped") == "fixed");
  const auto before = journal_lines(journal).size();
  auto again = run_cli({"--resume", journal, "--time-budget", "5"});
  CHECK(again.err.find("is complete") != std::string::npos);
  CHECK(journal_lines(journal).size() == before);
  unlink(journal.c_str());
}

TEST_CASE("session: configurations stopped once settled are never run again, across an interruption and a resume") {
  const std::string journal = session_tmp("retire.jsonl"), out = session_tmp("retire.out");
  unlink(journal.c_str());
  const std::vector<std::string> args = {"--counters", "task-clock,page-faults,minor-faults", "--max-runs", "40",
                                         "--time-budget", "0", "--seed", "5", "--journal", journal, "--",
                                         workload("compute"), "5"};
  interrupt_after(args, journal, 60, out);
  check_journal_consistent(journal);
  auto resumed = run_cli({"--resume", journal});
  REQUIRE((resumed.code == 0 || resumed.code == 1));
  check_journal_consistent(journal);
  // The report re-reads the retirements: its planned runs leave the retired trials out.
  const json ctx = json::parse(run_cli({"report", "--json", journal}).out).at("context");
  CHECK(ctx.at("runs_done") == run_indexes(journal).size());
  if (notes_of(journal, "retire").empty())
    WARN("no configuration was settled before the check ended on this host: only the consistency was checked");
  unlink(journal.c_str());
  unlink(out.c_str());
}
