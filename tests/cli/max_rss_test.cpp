// max-rss is the target's own only where it exceeds obscheck's peak before the exec:
// the kernel carries the peak of the memory an execve leaves into the new program's
// (fs/exec.c), and the corked child leaves obscheck's. Each run line keeps that floor
// (rusage.pre_exec_maxrss_kb); a check whose runs stay under it says so and gives
// max-rss no verdict (docs/statistics.md, "max-rss").
#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>
#include <string>

#include "../unit/temp_dir.h"
#include "run_cli.h"

using nlohmann::json;
using obscheck::test::journal_lines;
using obscheck::test::run_cli;
using obscheck::test::TempDir;
using obscheck::test::workload;

namespace {

// The measured run lines' {max-rss, pre-exec peak}; every line must carry the floor.
struct Peaks {
  std::size_t runs = 0, above = 0;  // measured runs; those whose peak exceeds the floor
};

Peaks peaks_of(const std::string& journal) {
  Peaks p;
  for (const json& l : journal_lines(journal)) {
    if (l.value("type", "") != "run" || l.at("warmup").get<bool>()) continue;
    const json& u = l.at("rusage");
    REQUIRE(u.contains("pre_exec_maxrss_kb"));
    CHECK(u.at("pre_exec_maxrss_kb").get<std::uint64_t>() > 0);
    ++p.runs;
    p.above += u.at("maxrss_kb").get<std::uint64_t>() > u.at("pre_exec_maxrss_kb").get<std::uint64_t>();
  }
  return p;
}

const json& metric(const json& report, const std::string& name) {
  for (const json& m : report.at("metrics"))
    if (m.at("name") == name) return m;
  FAIL("no metric " << name);
  return report;
}

bool has_verdict(const json& report, const std::string& name) {
  for (const json& v : report.at("verdicts"))
    if (v.at("metric_name") == name) return true;
  return false;
}

}  // namespace

TEST_CASE("max-rss: a target bigger than obscheck is judged, a small one is hidden by obscheck's own peak") {
  TempDir dir;
  // pagetouch 16384 touches 64 MiB of fresh pages: far above obscheck's own peak (a
  // few MiB), so every run's max-rss is the target's and is compared.
  const std::string big = dir.file("big.jsonl");
  const auto b = run_cli({"--json", "--counters", "task-clock", "--runs", "11", "--seed", "3", "--fail-on", "none",
                          "--journal", big, "--", workload("pagetouch"), "16384"});
  INFO(b.err);
  REQUIRE(b.code == 0);
  const Peaks bp = peaks_of(big);
  CHECK(bp.runs == 33);  // 11 blocks of level 0, level 1 and the A/A copy
  CHECK(bp.above == bp.runs);
  const json bj = json::parse(b.out);
  CHECK_FALSE(metric(bj, "max-rss").contains("hidden"));
  CHECK(has_verdict(bj, "max-rss"));
  CHECK(bj.at("answer").at("hidden").empty());

  // compute 50 stays far below it: every run's max-rss is obscheck's peak, carried
  // over the exec. No verdict, and the report says why and how far it is known.
  const std::string small = dir.file("small.jsonl");
  const auto s = run_cli({"--json", "--counters", "task-clock", "--runs", "11", "--seed", "3", "--fail-on", "none",
                          "--journal", small, "--", workload("compute"), "50"});
  INFO(s.err);
  REQUIRE(s.code == 0);
  const Peaks sp = peaks_of(small);
  CHECK(sp.runs == 33);
  CHECK(sp.above < sp.runs);
  const json sj = json::parse(s.out);
  CHECK_THAT(metric(sj, "max-rss").value("hidden", ""),
             Catch::StartsWith("hidden by obscheck's own peak before exec (≤ ") && Catch::Contains(" KiB)"));
  CHECK(metric(sj, "max-rss").at("verdict").is_null());
  CHECK_FALSE(has_verdict(sj, "max-rss"));
  REQUIRE(sj.at("answer").at("hidden").size() == 1);
  CHECK(sj.at("answer").at("hidden")[0].at("metric") == "max-rss");
  for (const json& a : sj.at("answer").at("metrics")) CHECK(a.at("metric") != "max-rss");
  const auto text = run_cli({"report", small, "--fail-on", "none"}, {"NO_COLOR=1"});
  CHECK_THAT(text.out, Catch::Contains("max-rss: hidden by obscheck's own peak before exec (≤ "));
}
