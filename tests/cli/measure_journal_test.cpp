// obscheck measure --journal FILE: every run recorded as it ends, in the check's journal
// format. obscheck report FILE prints what measure printed, byte for byte (a journal
// recorded once, tests/golden/measure/journal.jsonl: task-clock and page-faults, 10
// runs of compute 50, and fresh journals of this host); Ctrl-C leaves a valid journal
// that --resume completes with every planned run exactly once. OBSCHECK_UPDATE_GOLDEN=1
// rewrites the golden files.
#include <fcntl.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <catch2/catch.hpp>
#include <chrono>
#include <filesystem>
#include <fstream>
#include <set>
#include <thread>

#include "../unit/temp_dir.h"
#include "run_cli.h"

using nlohmann::json;
using obscheck::test::compare_golden;
using obscheck::test::interrupt_after;
using obscheck::test::journal_lines;
using obscheck::test::run_cli;
using obscheck::test::run_indexes;
using obscheck::test::slurp;
using obscheck::test::TempDir;
using obscheck::test::workload;

namespace fs = std::filesystem;

namespace {

const std::string kMeasureGolden = std::string(OBSCHECK_GOLDEN_DIR) + "/measure";

}  // namespace

TEST_CASE("measure journal: the report of a recorded measure matches its golden text and JSON") {
  const auto text = run_cli({"report", "--verbose", kMeasureGolden + "/journal.jsonl"}, {"NO_COLOR=1"});
  INFO(text.err);
  REQUIRE(text.code == 0);
  compare_golden(text.out, kMeasureGolden + "/report.txt");
  const auto brief = run_cli({"report", kMeasureGolden + "/journal.jsonl"}, {"NO_COLOR=1"});
  REQUIRE(brief.code == 0);
  compare_golden(brief.out, kMeasureGolden + "/brief.txt");
  const auto j = run_cli({"report", kMeasureGolden + "/journal.jsonl", "--json"});
  REQUIRE(j.code == 0);
  compare_golden(j.out, kMeasureGolden + "/report.json");
  // Its page is the table; the figures belong to the check's report.
  TempDir s;
  CHECK(run_cli({"report", kMeasureGolden + "/journal.jsonl", "--html", s.file("page.html")}).code == 0);
  CHECK(slurp(s.file("page.html")).find("<td>task-clock</td>") != std::string::npos);
  CHECK(run_cli({"report", kMeasureGolden + "/journal.jsonl", "--svg", s.file("figs")}).code == 2);
}

TEST_CASE("measure journal: obscheck report prints what measure printed, for every layout") {
  TempDir s;
  const std::string journal = s.file("m.jsonl");
  const auto live = run_cli({"measure", "-e", "task-clock,page-faults", "-r", "6", "--journal", journal, "--",
                             workload("compute"), "50"},
                            {"NO_COLOR=1"});
  INFO(live.err);
  REQUIRE(live.code == 0);
  const auto report = run_cli({"report", journal}, {"NO_COLOR=1"});
  REQUIRE(report.code == 0);
  CHECK(report.out == live.out);
  const auto lines = journal_lines(journal);
  CHECK(lines.front().at("command") == "measure");
  CHECK(lines.front().at("plan").at("aa_control") == false);
  CHECK(lines.back().at("kind") == "finished");
  CHECK(run_indexes(journal) == std::vector<std::size_t>{0, 1, 2, 3, 4, 5, 6});

  // JSON and CSV of the same journal, against a second measure's own (the numbers are
  // the journal's, so only layouts are compared here: a measure's JSON from its journal).
  const std::string j2 = s.file("m2.jsonl");
  const auto live_json = run_cli({"measure", "-r", "4", "--json", "--journal", j2, "--", workload("compute"), "50"});
  REQUIRE(live_json.code == 0);
  CHECK(run_cli({"report", j2, "--json"}).out == live_json.out);
  // A journal is never overwritten.
  const auto again = run_cli({"measure", "-r", "2", "--journal", j2, "--", workload("compute"), "50"});
  CHECK(again.code == 6);
}

TEST_CASE("measure journal: Ctrl-C leaves a valid journal that --resume completes, every run once", "[serial]") {
  TempDir s;
  const std::string journal = s.file("i.jsonl");
  const std::string out = s.file("out.txt");
  // compute 2000 runs for about 20 ms: 100 runs take seconds; SIGINT arrives part-way.
  // (The resume runs in this test's environment, as the measure did: stdout is a pipe,
  // so no colour either way.)
  const int status = interrupt_after({"measure", "-r", "100", "--journal", journal, "--", workload("compute"), "2000"},
                                     journal, 5, out);
  REQUIRE(WIFEXITED(status));
  CHECK(WEXITSTATUS(status) == 130);
  const auto before = run_indexes(journal);
  REQUIRE(before.size() >= 5);
  if (before.size() >= 101) {
    WARN("SKIPPED: the measure ended before SIGINT arrived; the interruption is not shown here");
    return;
  }
  CHECK(journal_lines(journal).back().at("kind") == "interrupted");
  const auto partial = run_cli({"report", journal});
  CHECK(partial.code == 0);
  CHECK_THAT(partial.out,
             Catch::Contains("interrupted: " + std::to_string(before.size() - 1) + " of 100 measured runs done"));

  const auto resumed = run_cli({"measure", "--resume", journal});
  INFO(resumed.err);
  REQUIRE(resumed.code == 0);
  CHECK_THAT(resumed.err, Catch::Contains("resuming"));
  const auto after = run_indexes(journal);
  REQUIRE(after.size() == 101);
  CHECK(std::set<std::size_t>(after.begin(), after.end()).size() == 101);
  CHECK(after.front() == 0);
  CHECK(after.back() == 100);
  // The completed journal's report is the resumed measure's.
  CHECK(run_cli({"report", journal}).out == resumed.out);
  // Complete: a second --resume runs nothing and prints the report.
  const auto done = run_cli({"--resume", journal});
  CHECK(done.code == 0);
  CHECK(done.out == resumed.out);
  CHECK(run_indexes(journal).size() == 101);
}

TEST_CASE("measure journal: a check's journal is not resumed as a measure's") {
  TempDir s;
  const std::string check = s.file("check.jsonl");
  REQUIRE(run_cli({"--counters", "task-clock", "--runs", "2", "--journal", check, "--fail-on", "none", "--",
                   workload("compute"), "50"}).code == 0);
  const auto r = run_cli({"measure", "--resume", check});
  CHECK(r.code == 2);
  CHECK_THAT(r.err, Catch::Contains("is a check's journal, not a measure's"));
}

TEST_CASE("measure journal: a simulated measure's report is printed again from its journal") {
  if (::access("/usr/bin/valgrind", X_OK) != 0) {
    WARN("SKIPPED: valgrind is not installed (tools/bootstrap installs it)");
    return;
  }
  TempDir s;
  const std::string journal = s.file("sim.jsonl");
  const auto live = run_cli({"measure", "--backend", "sim", "--journal", journal, "--", workload("compute"), "50"});
  INFO(live.err);
  REQUIRE(live.code == 0);
  CHECK_THAT(live.out, Catch::Contains("note: simulated PMU"));
  const auto report = run_cli({"report", journal});
  REQUIRE(report.code == 0);
  CHECK(report.out == live.out);
  CHECK(run_cli({"report", journal, "--json"}).code == 0);
}
