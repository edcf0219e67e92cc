// `obscheck report` reproduces a check's report from its journal alone: a journal
// recorded once by the real driver (tests/golden/check/journal.jsonl: in-process
// mode, task-clock and page-faults, 10 blocks, seed 2026, compute 50) must give
// exactly the checked-in text and JSON. The analysis is seeded by the plan's seed,
// the host and doctor findings come from the manifest, so nothing depends on the
// machine the test runs on. OBSCHECK_UPDATE_GOLDEN=1 rewrites the golden files.
#include <unistd.h>

#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>
#include <cstdlib>
#include <fstream>
#include <sstream>

#include "run_cli.h"

using obscheck::test::compare_golden;
using obscheck::test::run_cli;

namespace {

const std::string kCheckGolden = std::string(OBSCHECK_GOLDEN_DIR) + "/check";

// The journal's path is printed as given; the golden files say "journal.jsonl".
std::string normalised(std::string out) {
  const std::string abs = kCheckGolden + "/journal.jsonl";
  for (std::size_t p; (p = out.find(abs)) != std::string::npos;) out.replace(p, abs.size(), "journal.jsonl");
  return out;
}

}  // namespace

TEST_CASE("report: the text report of a recorded journal matches its golden file") {
  auto r = run_cli({"report", "--verbose", kCheckGolden + "/journal.jsonl"}, {"NO_COLOR=1"});
  REQUIRE(r.code == 0);
  compare_golden(normalised(r.out), kCheckGolden + "/report.txt");
  // The answer on one screen, as the check printed it by default.
  auto brief = run_cli({"report", kCheckGolden + "/journal.jsonl"}, {"NO_COLOR=1"});
  REQUIRE(brief.code == 0);
  compare_golden(normalised(brief.out), kCheckGolden + "/brief.txt");
}

TEST_CASE("report: the JSON report of a recorded journal matches its golden file") {
  auto r = run_cli({"report", "--json", kCheckGolden + "/journal.jsonl"});
  REQUIRE(r.code == 0);
  compare_golden(normalised(r.out), kCheckGolden + "/report.json");
}

TEST_CASE("report: a journal that is not one is refused with exit code 6") {
  auto r = run_cli({"report", std::string(OBSCHECK_SOURCE_DIR) + "/README.md"});
  CHECK(r.code == 6);
  auto missing = run_cli({"report", "/nonexistent/journal.jsonl"});
  CHECK(missing.code == 6);
}

TEST_CASE("report: the streaming path and the RunRecord path give the same findings") {
  // Without figures, report reads the journal into columns in one pass; with --html it
  // loads every run line as a RunRecord (the figures draw them). Same journals, same
  // findings, comparison by comparison.
  const std::string dir = std::string(OBSCHECK_SOURCE_DIR) + "/tests/golden";
  for (const std::string& journal : {dir + "/check/journal.jsonl", dir + "/report/fixture-check.jsonl"}) {
    INFO(journal);
    const std::string page = "/tmp/obscheck-report-paths-" + std::to_string(::getpid()) + ".html";
    auto fast = run_cli({"report", "--json", journal});
    auto exact = run_cli({"report", "--json", "--html", page, journal});
    ::unlink(page.c_str());
    REQUIRE(fast.code == 0);
    REQUIRE(exact.code == 0);
    const auto a = nlohmann::json::parse(fast.out), b = nlohmann::json::parse(exact.out);
    CHECK(a.at("comparisons") == b.at("comparisons"));
    CHECK(a.at("verdicts") == b.at("verdicts"));
    CHECK(a.at("aa") == b.at("aa"));
    CHECK(a.at("notes") == b.at("notes"));
    CHECK(a.at("context").at("observations") == b.at("context").at("observations"));
    CHECK(a.at("context").at("warnings") == b.at("context").at("warnings"));
  }
}
