// Many hosts: a check planned once (obscheck plan), run shard by shard (obscheck run
// --plan FILE --shard I/N) and merged with the host as a factor (obscheck report
// SHARD.jsonl...). The shards run here, on one host; the multi-host journals are those
// real journals with their host fields rewritten (and, on one host, an injected
// effect), their integrity checks recomputed as the writer computes them.
#include <fcntl.h>
#include <signal.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <catch2/catch.hpp>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <map>
#include <nlohmann/json.hpp>
#include <optional>
#include <set>
#include <string>
#include <thread>
#include <vector>

#include "../unit/temp_dir.h"
#include "run_cli.h"
#include "util/crc32c.h"

using nlohmann::json;
using obscheck::test::journal_lines;
using obscheck::test::run_cli;
using obscheck::test::TempDir;
using obscheck::test::workload;

namespace fs = std::filesystem;

namespace {

// A journal line as the writer ends it: the CRC-32C of the object without its closing
// brace, as eight hex digits in a last "crc32c" member.
std::string checked_line(json j) {
  j.erase("crc32c");
  const std::string text = j.dump();
  const std::string body = text.substr(0, text.size() - 1);
  char crc[9];
  std::snprintf(crc, sizeof crc, "%08x", obscheck::crc32c(body));
  return body + ",\"crc32c\":\"" + crc + "\"}";
}

// Copies journal `from` to `to` as if another host had run it: its manifest names
// `host` with `cpu_model`, and wall time is replaced by a controlled series, so that
// the hosts' verdicts do not depend on how busy this machine was while it recorded:
// every run takes its block's baseline run's wall time times 1 ± 0.4% (a fixed
// pattern over configurations and blocks), and the runs at level `level` (not the A/A
// copy) `factor` times that.
void rewrite_as_host(const std::string& from, const std::string& to, const std::string& host,
                     const std::string& cpu_model, double factor = 1, std::size_t level = 1) {
  std::vector<json> lines = journal_lines(from);
  REQUIRE(!lines.empty());
  json& manifest = lines.front();
  manifest["host"]["hostname"] = host;
  manifest["host"]["cpu_model"] = cpu_model;
  const json& plan = manifest.at("plan");
  const std::size_t baseline = plan.at("baselines").at(0).get<std::size_t>();
  std::set<std::size_t> scaled;
  for (const json& c : plan.at("configs"))
    if (c.at("level").get<std::size_t>() == level && !c.at("aa").get<bool>()) scaled.insert(c.at("index").get<std::size_t>());
  std::map<std::size_t, double> base_wall;  // block -> its baseline run's wall time
  for (const json& line : lines)
    if (line.value("type", "") == "run" && line.at("config").get<std::size_t>() == baseline)
      base_wall[line.at("block").get<std::size_t>()] = line.at("exit").at("wall_ns").get<double>();
  std::ofstream out(to);
  for (json& line : lines) {
    if (line.value("type", "") == "run") {
      const std::size_t config = line.at("config").get<std::size_t>(), block = line.at("block").get<std::size_t>();
      REQUIRE(base_wall.count(block) == 1);
      const double jitter = config == baseline ? 1 : 1 + 0.004 * (static_cast<double>((block * 7 + config * 3) % 9) - 4) / 4;
      const double wall = base_wall[block] * jitter * (scaled.count(config) ? factor : 1);
      line["exit"]["wall_ns"] = static_cast<std::uint64_t>(std::llround(wall));
    }
    out << checked_line(line) << "\n";
  }
}

// Rewrites journal `path` so that every reading of counter `metric` is the journal's
// first reading of it: a count that is truly constant, where the page faults this
// machine records are equal in every run when it is calm but not always under load.
void hold_count(const std::string& path, const std::string& metric) {
  std::vector<json> lines = journal_lines(path);
  std::optional<json> held;
  for (json& line : lines) {
    if (line.value("type", "") != "run") continue;
    for (json& r : line.at("readings")) {
      if (r.at("name") != metric) continue;
      if (!held) held = r;
      r["raw"] = held->at("raw");
      r["value"] = held->at("value");
    }
  }
  REQUIRE(held);
  std::ofstream out(path);
  for (const json& line : lines) out << checked_line(line) << "\n";
}

// A plan of `blocks` blocks of the bundled compute workload, counting task-clock.
std::string write_plan(const TempDir& dir, int blocks, const std::string& counters = "task-clock") {
  const std::string plan = dir.file("plan.json");
  const auto r = run_cli({"plan", "--counters", counters, "--runs", std::to_string(blocks), "-o", plan, "--",
                          workload("compute"), "200"});
  INFO(r.out << r.err);
  REQUIRE(r.code == 0);
  return plan;
}

std::string run_shard(const TempDir& dir, const std::string& plan, int i, int n) {
  const std::string journal = dir.file("shard-" + std::to_string(i) + ".jsonl");
  const auto r = run_cli({"run", "--plan", plan, "--shard", std::to_string(i) + "/" + std::to_string(n), "--journal",
                          journal, "--fail-on", "none"});
  INFO(r.out << r.err);
  REQUIRE(r.code == 0);
  return journal;
}

const json* pooled_entry(const json& report, const std::string& metric, const std::string& level_prefix) {
  for (const json& p : report.at("pooled"))
    if (p.at("metric") == metric && p.at("level").get<std::string>().rfind(level_prefix, 0) == 0) return &p;
  return nullptr;
}

}  // namespace

TEST_CASE("hosts: a plan's shards run on one host merge with every run taken once", "[hosts]") {
  TempDir dir;
  const std::string plan = write_plan(dir, 12);
  const json plan_json = json::parse(std::ifstream(plan));
  CHECK(plan_json.at("plan").at("fixed_blocks") == 12);
  CHECK(plan_json.at("target").at("sha256").get<std::string>().size() == 64);

  std::vector<std::string> journals;
  std::set<std::size_t> blocks_seen;
  std::size_t planned_runs = 0;
  for (int i = 0; i < 3; ++i) {
    journals.push_back(run_shard(dir, plan, i, 3));
    const auto lines = journal_lines(journals.back());
    CHECK(lines.front().at("plan").at("shard") == json({{"index", i}, {"count", 3}}));
    CHECK(lines.front().at("plan_digest") == plan_json.at("digest"));
    for (const json& l : lines)
      if (l.value("type", "") == "run" && !l.at("warmup").get<bool>()) {
        // Each measured block belongs to exactly one shard.
        CHECK(blocks_seen.count(l.at("block").get<std::size_t>()) == 0);
        ++planned_runs;
      }
    for (const json& l : lines)
      if (l.value("type", "") == "run" && !l.at("warmup").get<bool>()) blocks_seen.insert(l.at("block").get<std::size_t>());
  }
  CHECK(blocks_seen.size() == 12);

  const auto r = run_cli({"report", journals[0], journals[1], journals[2], "--json", "--fail-on", "none"});
  INFO(r.out << r.err);
  REQUIRE(r.code == 0);
  const json report = json::parse(r.out);
  CHECK(report.at("schema") == "obscheck-hosts-report");
  REQUIRE(report.at("hosts").size() == 1);
  REQUIRE(report.at("journals").size() == 3);
  // Every shard ran the warm-up block; one host's merge takes it once.
  std::size_t taken = 0, warmup_runs = 0;
  for (const json& j : report.at("journals")) taken += j.at("runs_taken").get<std::size_t>();
  for (const json& l : journal_lines(journals[0]))
    if (l.value("type", "") == "run" && l.at("warmup").get<bool>()) ++warmup_runs;
  CHECK(report.at("runs") == taken);
  CHECK(taken == planned_runs + warmup_runs);
  CHECK(report.at("hosts").at(0).at("runs") == taken);
  const json* wall = pooled_entry(report, "wall-time", "1");
  REQUIRE(wall != nullptr);
  CHECK(wall->at("hosts").size() == 1);
  CHECK(!wall->at("verdict").get<std::string>().empty());

  const auto text = run_cli({"report", journals[0], journals[1], journals[2], "--fail-on", "none"});
  CHECK(text.code == 0);
  CHECK_THAT(text.out, Catch::Contains(std::to_string(taken) + " runs merged, each once"));
  CHECK_THAT(text.out, Catch::Contains("hosts by CPU model:"));
}

TEST_CASE("hosts: hosts that disagree get their own verdicts, a wider pooled interval and a heterogeneity line",
          "[hosts]") {
  TempDir dir;
  const std::string plan = write_plan(dir, 48);
  std::vector<std::string> recorded;
  for (int i = 0; i < 4; ++i) recorded.push_back(run_shard(dir, plan, i, 4));
  // Shards 0 and 1 from node-a, where counting task-clock costs no wall time; shards 2
  // and 3 from node-b, another CPU model, where it costs 30%.
  std::vector<std::string> merged;
  for (int i = 0; i < 4; ++i) {
    merged.push_back(dir.file("host-shard-" + std::to_string(i) + ".jsonl"));
    if (i < 2) rewrite_as_host(recorded[i], merged.back(), "node-a", "Model A");
    else rewrite_as_host(recorded[i], merged.back(), "node-b", "Model B", 1.30);
  }
  const auto r = run_cli({"report", merged[0], merged[1], merged[2], merged[3], "--json", "--fail-on", "none"});
  INFO(r.out << r.err);
  REQUIRE(r.code == 0);
  const json report = json::parse(r.out);
  REQUIRE(report.at("hosts").size() == 2);
  CHECK(report.at("cpu_models").at("Model A") == json::array({"node-a"}));
  CHECK(report.at("cpu_models").at("Model B") == json::array({"node-b"}));
  const json* wall = pooled_entry(report, "wall-time", "1");
  REQUIRE(wall != nullptr);
  REQUIRE(wall->at("hosts").size() == 2);
  const json& a = wall->at("hosts").at(0);
  const json& b = wall->at("hosts").at(1);
  CHECK(a.at("host") == "node-a");
  CHECK(b.at("host") == "node-b");
  CHECK(a.at("verdict") == "not-perturbed");
  CHECK(b.at("verdict") == "perturbed");
  CHECK(b.at("effect").get<double>() == Approx(0.30).margin(0.01));
  CHECK(std::abs(a.at("effect").get<double>()) < 0.005);
  CHECK(wall->at("perturbed_hosts") == 1);
  REQUIRE(wall->at("pooled_hosts") == 2);
  const double pooled_width = wall->at("ci_hi").get<double>() - wall->at("ci_lo").get<double>();
  CHECK(pooled_width > a.at("ci_hi").get<double>() - a.at("ci_lo").get<double>());
  CHECK(pooled_width > b.at("ci_hi").get<double>() - b.at("ci_lo").get<double>());
  CHECK(wall->at("p_heterogeneity").get<double>() < 0.05);
  CHECK(wall->at("tau").get<double>() > 0);

  const auto text = run_cli({"report", merged[0], merged[1], merged[2], merged[3], "--fail-on", "none"});
  CHECK(text.code == 0);
  CHECK_THAT(text.out, Catch::Contains("from 2 hosts"));
  CHECK_THAT(text.out, Catch::Contains("hosts as a random factor"));
  CHECK_THAT(text.out, Catch::Contains("the effect differs between hosts (Cochran's Q"));
  CHECK_THAT(text.out, Catch::Contains("node-b: +"));
  CHECK_THAT(text.out, Catch::Contains("Model B: node-b"));
  // The page: a row per host and the pooled row, and the forest plot beside them.
  const std::string page = dir.file("hosts.html");
  REQUIRE(run_cli({"report", merged[0], merged[1], merged[2], merged[3], "--html", page, "--fail-on", "none"}).code == 0);
  std::ifstream in(page);
  const std::string html((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  CHECK_THAT(html, Catch::Contains("<tr class=\"host-row verdict-perturbed\" data-host=\"node-b\">"));
  CHECK_THAT(html, Catch::Contains("data-host=\"node-a\""));
  CHECK_THAT(html, Catch::Contains("<tr class=\"pooled-row verdict-"));
  CHECK_THAT(html, Catch::Contains("class=\"plot hosts-forest\" data-metric=\"wall-time\""));
  CHECK_THAT(html, Catch::Contains("data-series=\"pooled\""));
  CHECK_THAT(html, Catch::EndsWith("</html>\n"));
  // The default --fail-on fails on the perturbed host.
  CHECK(run_cli({"report", merged[0], merged[1], merged[2], merged[3]}).code == 1);
}

TEST_CASE("hosts: bad input is refused with its exit code, and nothing is written half", "[hosts]") {
  TempDir dir;
  const std::string plan = write_plan(dir, 6);

  SECTION("a shard index out of range") {
    const auto r = run_cli({"run", "--plan", plan, "--shard", "3/3"});
    CHECK(r.code == 2);
    CHECK_THAT(r.err, Catch::Contains("--shard 3/3 is out of range"));
    CHECK(run_cli({"run", "--plan", plan, "--shard", "0/0"}).code == 2);
    // N alone needs Slurm's array task id.
    const auto n = run_cli({"run", "--plan", plan, "--shard", "3"}, {"SLURM_ARRAY_TASK_ID="});
    CHECK(n.code == 2);
    CHECK_THAT(n.err, Catch::Contains("which shard?"));
  }
  SECTION("more shards than blocks") {
    const auto r = run_cli({"run", "--plan", plan, "--shard", "0/7"});
    CHECK(r.code == 2);
    CHECK(!fs::exists(dir.file("plan.shard-0-of-7.jsonl")));
  }
  SECTION("the shard index from Slurm's array task id") {
    const auto r = run_cli({"run", "--plan", plan, "--shard", "2", "--fail-on", "none"}, {"SLURM_ARRAY_TASK_ID=1"});
    INFO(r.err);
    CHECK(r.code == 0);
    CHECK(fs::exists(dir.file("plan.shard-1-of-2.jsonl")));
  }
  SECTION("an existing plan is not overwritten") {
    const auto r = run_cli({"plan", "--counters", "task-clock", "-o", plan, "--", workload("compute"), "200"});
    CHECK(r.code == 6);
    CHECK_THAT(r.err, Catch::Contains("a plan is not overwritten"));
  }
  SECTION("a plan changed after it was written") {
    json p = json::parse(std::ifstream(plan));
    p["plan"]["seed"] = p["plan"]["seed"].get<std::uint64_t>() + 1;
    std::ofstream(plan) << p.dump(2);
    const auto r = run_cli({"run", "--plan", plan, "--shard", "0/2"});
    CHECK(r.code == 6);
    CHECK_THAT(r.err, Catch::Contains("changed after it was written"));
    CHECK(!fs::exists(dir.file("plan.shard-0-of-2.jsonl")));
  }
  SECTION("a target that is not the plan's") {
    // The plan of a copy of the workload, whose copy then changes.
    const std::string copy = dir.file("compute-copy");
    fs::copy_file(workload("compute"), copy);
    const std::string other = dir.file("other.json");
    REQUIRE(run_cli({"plan", "--counters", "task-clock", "--runs", "4", "-o", other, "--", copy, "200"}).code == 0);
    std::ofstream(copy, std::ios::app) << "changed";
    const auto r = run_cli({"run", "--plan", other, "--shard", "0/2"});
    CHECK(r.code == 3);
    CHECK_THAT(r.err, Catch::Contains("is not the plan's target"));
    CHECK(!fs::exists(dir.file("other.shard-0-of-2.jsonl")));
  }
  SECTION("a counter this host cannot count") {
    const std::string other = dir.file("cycles.json");
    const auto planned = run_cli({"plan", "--counters", "task-clock,cycles", "--runs", "4", "-o", other, "--",
                                  workload("compute"), "200"});
    REQUIRE(planned.code == 0);
    if (planned.err.find("cycles") == std::string::npos) {
      WARN("SKIPPED: this host counts cycles; the refusal of a host that cannot is not shown here");
      return;
    }
    CHECK_THAT(planned.err, Catch::Contains("every host that runs the plan must count it"));
    const auto r = run_cli({"run", "--plan", other, "--shard", "0/2"});
    CHECK(r.code == 4);
    CHECK_THAT(r.err, Catch::Contains("cycles"));
    CHECK(!fs::exists(dir.file("cycles.shard-0-of-2.jsonl")));
  }
  SECTION("journals of different plans, a shard twice, a journal that is no shard") {
    const std::string j0 = run_shard(dir, plan, 0, 2);
    const std::string other = dir.file("other.json");
    REQUIRE(run_cli({"plan", "--counters", "task-clock", "--runs", "6", "--seed", "7", "-o", other, "--",
                     workload("compute"), "200"}).code == 0);
    const std::string o1 = dir.file("other-1.jsonl");
    REQUIRE(run_cli({"run", "--plan", other, "--shard", "1/2", "--journal", o1, "--fail-on", "none"}).code == 0);
    const auto diff = run_cli({"report", j0, o1});
    CHECK(diff.code == 2);
    CHECK_THAT(diff.err, Catch::Contains("are not shards of one plan"));
    CHECK_THAT(diff.err, Catch::Contains("seed"));

    const std::string copy = dir.file("copy.jsonl");
    fs::copy_file(j0, copy);
    const auto twice = run_cli({"report", j0, copy});
    CHECK(twice.code == 2);
    CHECK_THAT(twice.err, Catch::Contains("shard 0/2 is given twice"));

    const std::string single = dir.file("single.jsonl");
    REQUIRE(run_cli({"--counters", "task-clock", "--runs", "4", "--journal", single, "--fail-on", "none", "--",
                     workload("compute"), "200"}).code == 0);
    const auto lone = run_cli({"report", j0, single});
    CHECK(lone.code == 2);
    CHECK_THAT(lone.err, Catch::Contains("is not a shard of a plan"));
  }
  SECTION("sbatch absent: --submit writes nothing") {
    const std::string job = dir.file("job");
    const auto r = run_cli({"slurm", "--submit", "--shards", "2", "--dir", job, "--", "--counters", "task-clock",
                            "--runs", "4", workload("compute"), "200"},
                           {"PATH=/nonexistent"});
    CHECK(r.code == 7);
    CHECK_THAT(r.err, Catch::Contains("sbatch is not on this host's PATH"));
    CHECK(!fs::exists(job));
  }
  SECTION("more shards than blocks: slurm writes nothing") {
    const std::string job = dir.file("job");
    const auto r = run_cli({"slurm", "--shards", "5", "--dir", job, "--", "--counters", "task-clock", "--runs", "4",
                            workload("compute"), "200"});
    CHECK(r.code == 2);
    CHECK(!fs::exists(job));
  }
  SECTION("the scripts, without --submit") {
    const std::string job = dir.file("job");
    const auto r = run_cli({"slurm", "--shards", "3", "--partition", "debug", "--time", "10:00",
                            "--array-parallelism", "2", "--dir", job, "--", "--counters", "task-clock", "--runs", "6",
                            workload("compute"), "200"});
    INFO(r.out << r.err);
    REQUIRE(r.code == 0);
    std::ifstream in(job + "/shard.sbatch");
    const std::string shard((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    CHECK_THAT(shard, Catch::Contains("#SBATCH --array=0-2%2"));
    CHECK_THAT(shard, Catch::Contains("#SBATCH --exclusive"));
    CHECK_THAT(shard, Catch::Contains("#SBATCH --partition=debug"));
    CHECK_THAT(shard, Catch::Contains("#SBATCH --time=10:00"));
    CHECK_THAT(shard, Catch::Contains("--shard \"${SLURM_ARRAY_TASK_ID}/3\""));
    std::ifstream sub(job + "/submit.sh");
    const std::string submit((std::istreambuf_iterator<char>(sub)), std::istreambuf_iterator<char>());
    CHECK_THAT(submit, Catch::Contains("--dependency=afterok:\"$array\" merge.sbatch"));
    CHECK(fs::exists(job + "/plan.json"));
    CHECK(fs::exists(job + "/merge.sbatch"));
  }
}

TEST_CASE("hosts: a shard stopped by Ctrl-C continues its journal when run again, every run once", "[hosts][serial]") {
  TempDir dir;
  const std::string plan = dir.file("plan.json");
  REQUIRE(run_cli({"plan", "--counters", "task-clock", "--runs", "40", "-o", plan, "--", workload("compute"), "2000"})
              .code == 0);
  const std::string journal = dir.file("plan.shard-0-of-2.jsonl");
  const auto run_lines = [&] {
    std::size_t n = 0;
    if (fs::exists(journal))
      for (const json& l : journal_lines(journal)) n += l.value("type", "") == "run";
    return n;
  };
  const pid_t pid = ::fork();
  REQUIRE(pid >= 0);
  if (pid == 0) {
    const int fd = ::open("/dev/null", O_WRONLY);
    ::dup2(fd, 1);
    ::dup2(fd, 2);
    ::execl(OBSCHECK_BIN, OBSCHECK_BIN, "run", "--plan", plan.c_str(), "--shard", "0/2", static_cast<char*>(nullptr));
    ::_exit(127);
  }
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(20);
  while (std::chrono::steady_clock::now() < deadline && run_lines() < 6)
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  ::kill(pid, SIGINT);
  int status = 0;
  ::waitpid(pid, &status, 0);
  REQUIRE(WIFEXITED(status));
  // 20 measured blocks and the warm-up, 3 configurations each.
  const std::size_t planned = 21 * 3, before = run_lines();
  if (before >= planned) {
    WARN("SKIPPED: the shard ended before SIGINT arrived; the interruption is not shown here");
    return;
  }
  CHECK(WEXITSTATUS(status) == 130);
  const auto again = run_cli({"run", "--plan", plan, "--shard", "0/2", "--fail-on", "none"});
  INFO(again.err);
  REQUIRE(again.code == 0);
  CHECK_THAT(again.err, Catch::Contains("resuming shard 0/2"));
  std::set<std::size_t> indexes;
  std::size_t runs = 0;
  for (const json& l : journal_lines(journal))
    if (l.value("type", "") == "run") {
      ++runs;
      indexes.insert(l.at("index").get<std::size_t>());
    }
  CHECK(runs == planned);
  CHECK(indexes.size() == planned);
  // Another shard's journal name is not taken for this one.
  const auto other = run_cli({"run", "--plan", plan, "--shard", "1/2", "--journal", journal});
  CHECK(other.code == 6);
  CHECK_THAT(other.err, Catch::Contains("is not shard 1/2"));
}

TEST_CASE("hosts: a count equal in every block of every host is decided on the pooled blocks", "[hosts]") {
  // Two shards of six blocks each, from two hosts: no host alone has blocks enough
  // (6 runs of the dose miss an effect on 1 run in 4 in (3/4)^6 = 18% of checks: 11
  // are needed, analysis/check.h intermittent_cover_blocks), their twelve blocks
  // together do (3.2%; the range's 2^(1-12) too). The recorded page faults are held at
  // one count per host (hold_count): what is tested is the pooling of an exact count,
  // which this machine's load would otherwise move.
  TempDir dir;
  const std::string plan = write_plan(dir, 12, "task-clock,page-faults");
  std::vector<std::string> merged;
  for (int i = 0; i < 2; ++i) {
    const std::string recorded = run_shard(dir, plan, i, 2);
    merged.push_back(dir.file("host-shard-" + std::to_string(i) + ".jsonl"));
    rewrite_as_host(recorded, merged.back(), i == 0 ? "node-a" : "node-b", "Model A");
    hold_count(merged.back(), "page-faults");
  }
  const auto r = run_cli({"report", merged[0], merged[1], "--json", "--fail-on", "none"});
  INFO(r.out << r.err);
  REQUIRE(r.code == 0);
  const json report = json::parse(r.out);
  REQUIRE(report.at("hosts").size() == 2);
  bool any = false;
  for (const json& p : report.at("pooled")) {
    if (p.at("metric") != "page-faults") continue;
    any = true;
    INFO(p.dump());
    CHECK(p.at("verdict") == "not-perturbed");
    CHECK(p.at("blocks_within") == 12);
    CHECK(p.at("equal") == true);
  }
  CHECK(any);
  const auto text = run_cli({"report", merged[0], merged[1], "--fail-on", "none"});
  CHECK_THAT(text.out, Catch::Contains("equal in all 12 blocks of the 2 hosts (an effect on at least 1 run in 4 would "
                                       "have shown)"));
}
