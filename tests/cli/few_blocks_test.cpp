// Verdicts when runs are few: a giant effect is decided in ten blocks of a fixed design,
// and a count identical in every run is "not perturbed" in six (docs/statistics.md,
// "Magnitudes", "Fixed designs", "Exact values").
#include <unistd.h>

#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>
#include <string>

#include "run_cli.h"

using nlohmann::json;
using obscheck::test::run_cli;
using obscheck::test::verdict;
using obscheck::test::workload;

namespace {

std::string few_blocks_tmp(const std::string& name) {
  return "/tmp/obscheck-few-blocks-test-" + std::to_string(getpid()) + "-" + name;
}


}  // namespace

TEST_CASE("few blocks: a uprobe on the hot function is 'perturbed' at --runs 10") {
  // hot N calls hot_step() N times; every hit of a uprobe is a trap of tens of µs (a
  // breakpoint without root): a many-fold slowdown, decided by its size in ten blocks.
  const std::string journal = few_blocks_tmp("hot.jsonl");
  auto r = run_cli({"--json", "--probes", "hot_step", "--counters", "task-clock", "--runs", "10", "--seed", "5",
                    "--journal", journal, "--", workload("hot"), "5000"});
  unlink(journal.c_str());
  INFO(r.out << r.err);
  REQUIRE(r.code == 1);  // a finding
  const json j = json::parse(r.out);
  const json* v = verdict(j, "task-clock", "1[hot_step]");
  REQUIRE(v != nullptr);
  INFO(v->at("reason"));
  CHECK(v->at("verdict") == "perturbed");
}

TEST_CASE("few blocks: page-faults identical in every run are 'not perturbed' at --runs 11, not at --runs 6") {
  // Equal in every block is bounded from 5 blocks of a fixed design, but 6 runs of a dose
  // miss an effect on 1 run in 4 in (3/4)^6 = 18% of checks: "not perturbed" waits for
  // the 11 that would have shown it with 95% probability (analysis/check.h).
  for (const int runs : {6, 11}) {
    INFO("--runs " << runs);
    const std::string journal = few_blocks_tmp("pf.jsonl");
    auto r = run_cli({"--json", "--counters", "task-clock,page-faults", "--runs", std::to_string(runs), "--seed", "3",
                      "--journal", journal, "--fail-on", "none", "--", workload("compute"), "300"});
    INFO(r.out << r.err);
    REQUIRE(r.code == 0);
    const json j = json::parse(r.out);
    bool any = false;
    const std::string want = runs == 11 ? "not-perturbed" : "inconclusive";
    for (const auto& v : j.at("verdicts")) {
      if (v.at("metric_name") != "page-faults") continue;
      any = true;
      INFO(v.at("level") << ": " << v.at("reason"));
      CHECK(v.at("verdict") == want);
      CHECK_THAT(v.at("reason").get<std::string>(), Catch::Contains("equal in all " + std::to_string(runs) + " blocks"));
      if (runs == 11)
        CHECK_THAT(v.at("reason").get<std::string>(), Catch::Contains("an effect on at least 1 run in 4 would have shown"));
      else
        CHECK_THAT(v.at("reason").get<std::string>(), Catch::Contains("would not yet have shown"));
    }
    CHECK(any);
    // The report of the journal says the same: the journal records the fixed design.
    auto again = run_cli({"report", journal, "--json", "--fail-on", "none"});
    unlink(journal.c_str());
    REQUIRE(again.code == 0);
    for (const auto& v : json::parse(again.out).at("verdicts"))
      if (v.at("metric_name") == "page-faults") CHECK(v.at("verdict") == want);
  }
}
