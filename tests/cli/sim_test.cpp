// --backend sim run as a user runs it: the simulated PMU (valgrind cachegrind) gives
// a full, exact verdict table on this PMU-less host; the launcher's layout control
// reaches the simulated program; events, measure and every bad input say what they
// should. Simulated runs take 0.3-1 s each, so the sweeps here are small.
#include <sys/stat.h>

#include <catch2/catch.hpp>
#include <algorithm>
#include <fstream>
#include <map>
#include <nlohmann/json.hpp>
#include <set>

#include "run_cli.h"

using obscheck::test::journal_lines;
using obscheck::test::run_cli;
using obscheck::test::contains;
using obscheck::test::workload;
using nlohmann::json;

namespace {

std::string sim_tmp(const std::string& name) {
  return "/tmp/obscheck-sim-test-" + std::to_string(getpid()) + "-" + name;
}


}  // namespace

TEST_CASE("sim check: --backend sim --counters cycles,l1d gives a full exact verdict table, and report repeats it") {
  const std::string journal = sim_tmp("check.jsonl");
  auto r = run_cli({"--verbose", "--backend", "sim", "--counters", "cycles,l1d", "--seed", "3", "--journal", journal,
                    "--", workload("compute"), "200"});
  INFO(r.out << r.err);
  REQUIRE(r.code == 0);
  // Levels: 1[cycles], 2[cycles,l1d], l1d alone; held only (counted from outside);
  // two blocks of 3 configurations + the A/A copy.
  CHECK(contains(r.out, "2 measured blocks × 4 configurations = 8 runs"));
  CHECK(contains(r.out, "simulated PMU: valgrind --tool=cachegrind"));
  CHECK(contains(r.out, "(host sysfs)"));
  CHECK(contains(r.out, "cycles is estimated, not measured: estimated cycles = Ir + 10*(I1mr + D1mr + D1mw)"));
  CHECK(contains(r.out, "cycles (count): not perturbed (within ±ε)"));
  CHECK(contains(r.out, "l1d (count): not perturbed (within ±ε)"));
  CHECK(contains(r.out, "within ±1% under held +0.00%, exact"));
  CHECK(contains(r.out, "determinism confirmed"));
  CHECK(contains(r.out, "intervals and p-values: none; the counts are deterministic"));
  CHECK_FALSE(contains(r.out, "wall-time"));

  // Every run of a configuration counted exactly the same.
  std::map<std::string, std::set<double>> counts;
  std::size_t runs = 0;
  for (const json& line : journal_lines(journal)) {
    if (line.at("type") == "manifest") {
      CHECK(line.at("options").at("backend") == "sim");
      CHECK(line.at("options").at("sim_geometry").at("source") == "host sysfs");
    }
    if (line.at("type") != "run") continue;
    ++runs;
    CHECK_FALSE(line.at("warmup").get<bool>());
    for (const json& rd : line.at("readings"))
      counts[line.at("config_id").get<std::string>() + " " + rd.at("name").get<std::string>()].insert(
          rd.at("value").get<double>());
  }
  CHECK(runs == 8);
  for (const auto& [what, values] : counts) {
    INFO(what);
    CHECK(values.size() == 1);
  }

  auto rep = run_cli({"report", "--verbose", journal});
  CHECK(rep.code == 0);
  CHECK(rep.out == r.out);
  auto js = run_cli({"report", "--json", journal});
  REQUIRE(js.code == 0);
  const json j = json::parse(js.out);
  CHECK(j.at("context").at("backend") == "sim");
  CHECK(j.at("context").at("deterministic") == true);
  for (const json& c : j.at("comparisons")) {
    CHECK(c.at("ci").at("lo").is_null());
    CHECK(c.at("p").is_null());
    CHECK(c.at("effect").get<double>() == 0.0);
  }
  unlink(journal.c_str());
}

TEST_CASE("sim check: the environment reaches the simulated program — natural moves its stack, held does not") {
  const std::string journal = sim_tmp("stack.jsonl");
  // In-process mode announces the counter list in the environment; the three names'
  // prefixes are 12, 26 and 36 bytes and the solos 13 and 9, so natural's blocks span
  // more than one 16-byte stack alignment step.
  auto r = run_cli({"--backend", "sim", "--mode", "inprocess", "--counters", "instructions,branch-misses,l1d-reads",
                    "--runs", "1", "--seed", "4", "--keep-output-head", "--journal", journal, "--",
                    workload("stackaddr")});
  INFO(r.out << r.err);
  REQUIRE((r.code == 0 || r.code == 1));
  std::map<std::string, std::set<std::string>> stacks;
  for (const json& line : journal_lines(journal)) {
    if (line.at("type") != "run") continue;
    const std::string head = line.at("extra").at("output_head");
    stacks[line.at("config_id")].insert(head.substr(0, head.find(' ')));
  }
  unlink(journal.c_str());
  std::set<std::string> natural, held;
  for (const auto& [id, addrs] : stacks) {
    if (id.find("#aa") != std::string::npos) continue;
    if (id.size() > 8 && id.substr(id.size() - 8) == "/natural") natural.insert(*addrs.begin());
    if (id.size() > 5 && id.substr(id.size() - 5) == "/held") held.insert(*addrs.begin());
  }
  CHECK(natural.size() >= 2);
  CHECK(held.size() == 1);
}

TEST_CASE("sim events: the simulated events are listed on any host, all available") {
  auto r = run_cli({"events", "--backend", "sim"});
  REQUIRE(r.code == 0);
  for (const char* name : {"instructions", "cycles", "l1d", "l1d-reads", "l1i", "llc", "branches", "branch-misses"})
    CHECK(contains(r.out, std::string("  ") + name + " "));
  CHECK(contains(r.out, "estimated cycles = Ir + 10*(I1mr + D1mr + D1mw) + 100*(ILmr + DLmr + DLmw)"));
  CHECK(contains(r.out, "geometry a check would simulate here:"));
  auto js = run_cli({"events", "--backend", "sim", "--json"});
  REQUIRE(js.code == 0);
  const json j = json::parse(js.out);
  REQUIRE(j.at("events").size() == 8);
  for (const json& e : j.at("events")) {
    CHECK(e.at("available") == true);
    CHECK(e.at("source") == "sim");
  }
}

TEST_CASE("sim measure: two runs by default, with identical counts") {
  auto r = run_cli({"measure", "--backend", "sim", "--json", "-e", "instructions,l1d,branches", "--",
                    workload("compute"), "100"});
  INFO(r.err);
  REQUIRE(r.code == 0);
  const json j = json::parse(r.out);
  REQUIRE(j.at("metrics").size() == 3);  // the simulator's own wall time is not reported
  for (const json& m : j.at("metrics")) {
    INFO(m.at("name"));
    CHECK(m.at("n") == 2);
    CHECK(m.at("min") == m.at("max"));
    CHECK(m.at("min").get<double>() > 0);
  }
}

TEST_CASE("sim: bad input gets a clear error and its exit code") {
  const std::string prog = workload("compute");
  auto unknown = run_cli({"--backend", "sim", "--counters", "cycles,l1dd", "--", prog});
  CHECK(unknown.code == 4);
  CHECK(contains(unknown.err, "l1dd"));
  CHECK(contains(unknown.err, "l1d"));

  auto uprobes = run_cli({"--backend", "sim", "--probes", "main", "--", prog});
  CHECK(uprobes.code == 2);
  CHECK(contains(uprobes.err, "uprobes do not apply under simulation"));
  auto sampling = run_cli({"--backend", "sim", "--sample-freq", "0,100", "--", prog});
  CHECK(sampling.code == 2);
  CHECK(contains(sampling.err, "sampling does not apply under simulation"));
  auto probe_event = run_cli({"--backend", "sim", "--counters", "uprobe:" + prog + ":main", "--", prog});
  CHECK(probe_event.code == 2);

  auto geometry = run_cli({"--backend", "sim", "--sim-cache", "D1=3000,1,64", "--", prog});
  CHECK(geometry.code == 2);
  CHECK(contains(geometry.err, "--sim-cache"));
  auto without = run_cli({"--sim-cache", "D1=4096,1,64", "--", prog});
  CHECK(without.code == 2);
  CHECK(contains(without.err, "--sim-cache goes with --backend sim"));
  auto backend = run_cli({"--backend", "simulated", "--", prog});
  CHECK(backend.code == 2);
  CHECK(contains(backend.err, "--backend must be native or sim"));

  // valgrind missing: the error says how to install it, before any journal is written.
  auto missing = run_cli({"--backend", "sim", "--counters", "cycles", "--", prog}, {"PATH=/nonexistent"});
  CHECK(missing.code == 7);
  CHECK(contains(missing.err, "apt-get install valgrind"));

  // A file valgrind would hand to /bin/sh is refused as the native launcher refuses it.
  const std::string script = sim_tmp("not-elf");
  {
    std::ofstream out(script);
    out << "echo hello\n";
  }
  chmod(script.c_str(), 0755);
  auto not_elf = run_cli({"measure", "--backend", "sim", "--", script});
  CHECK(not_elf.code == 3);
  unlink(script.c_str());
}

TEST_CASE("sim bias: an environment sweep under natural layout shows the cache-set conflict as a spike") {
  // A direct-mapped 4 KiB L1d of 64 sets: the conflict workload's stack line meets its
  // global line's set at exactly one environment size in 64 steps of 64 bytes.
  auto r = run_cli({"bias", "--backend", "sim", "--sim-cache", "D1=4096,1,64", "--counters", "l1d", "--env-sizes",
                    "0:4032:64", "--runs", "1", "--seed", "1", "--json", "--", workload("conflict"), "50000"});
  INFO(r.err);
  REQUIRE((r.code == 0 || r.code == 1));
  const json j = json::parse(r.out);
  const json& a = j.at("analyses").at(0);
  CHECK(a.at("metric") == "l1d");
  std::vector<double> means;
  for (const json& c : a.at("contexts")) means.push_back(c.at("mean").get<double>());
  REQUIRE(means.size() == 64);
  std::vector<double> sorted = means;
  std::sort(sorted.begin(), sorted.end());
  const double median = (sorted[31] + sorted[32]) / 2;
  // Two misses per iteration at the conflicting size (100,000), some 6,000 elsewhere.
  CHECK(sorted.back() >= 10 * median);
  CHECK(sorted[sorted.size() - 2] < 2 * median);  // one spike, not a rise
}

TEST_CASE("sim compare: 10% more work is worse by exactly the instructions it adds, in every context") {
  auto r = run_cli({"compare", "--verbose", "--backend", "sim", "--counters", "instructions", "--env-sizes",
                    "0,512,1024", "--seed", "2", "--", workload("extrawork"), "2000", ":::", workload("extrawork"), "2000", "10"});
  INFO(r.out << r.err);
  REQUIRE((r.code == 0 || r.code == 1));
  CHECK(contains(r.out, "verdict: worse"));
  CHECK(contains(r.out, "over 3 contexts"));
  CHECK(contains(r.out, "simulated PMU: valgrind --tool=cachegrind"));
}

TEST_CASE("sim check: compile-time probes apply under simulation and add exactly their instructions") {
  const std::string src = std::string(OBSCHECK_SOURCE_DIR) + "/experiments/workloads/probed.c";
  const std::string inc = std::string(OBSCHECK_SOURCE_DIR) + "/probes";
  const std::string journal = sim_tmp("build.jsonl");
  auto r = run_cli({"--backend", "sim", "--json", "--build", "cc -O2 -I" + inc + " -DOBS_PROBES={mask} " + src + " -o {out}",
                    "--probe-sites", "2", "--counters", "instructions", "--journal", journal, "--", "{out}", "20000"});
  INFO(r.err);
  REQUIRE(r.code == 1);  // the probes perturb the instruction count: a finding
  const json j = json::parse(r.out);
  CHECK(j.at("context").at("deterministic") == true);
  std::size_t perturbed = 0;
  for (const json& v : j.at("verdicts")) perturbed += v.at("verdict") == "perturbed";
  CHECK(perturbed == 2);  // mask 1 and mask 3, each beyond ±1% under held
  // Each configuration's instruction count is the same in both blocks.
  std::map<std::string, std::set<double>> counts;
  for (const json& line : journal_lines(journal))
    if (line.at("type") == "run")
      counts[line.at("config_id")].insert(line.at("readings").at(0).at("value").get<double>());
  for (const auto& [id, values] : counts) CHECK(values.size() == 1);
  unlink(journal.c_str());
}

TEST_CASE("sim bias: every counter asked for is reported, as exact values with no F or p") {
  const auto r = run_cli({"bias", "--json", "--backend", "sim", "--counters", "instructions,l1d", "--env-sizes",
                          "2,400", "--", workload("compute"), "20"});
  INFO(r.err);
  REQUIRE(r.code == 0);
  const json j = json::parse(r.out);
  std::vector<std::string> metrics;
  for (const json& a : j.at("analyses")) {
    metrics.push_back(a.at("metric").get<std::string>());
    CHECK(a.at("exact") == true);
    CHECK_FALSE(a.contains("spread"));
    CHECK(a.at("exceeds_noise") == false);  // compute's counts move by far less than 1%
  }
  CHECK(metrics == std::vector<std::string>{"instructions", "l1d"});
}

TEST_CASE("sim bias: the same sweep twice prints the same report, and its journal prints it again") {
  const std::string journal = "/tmp/obscheck-sim-bias-" + std::to_string(::getpid()) + ".jsonl";
  ::unlink(journal.c_str());
  const std::vector<std::string> args = {"bias", "--backend", "sim", "--counters", "instructions,l1d", "--env-sizes",
                                         "2,400", "--seed", "3", "--", workload("compute"), "20"};
  const auto first = run_cli(args, {"NO_COLOR=1"});
  INFO(first.err);
  REQUIRE(first.code == 0);
  std::vector<std::string> journalled = args;
  journalled.insert(journalled.begin() + 1, {"--journal", journal});
  const auto second = run_cli(journalled, {"NO_COLOR=1"});
  REQUIRE(second.code == 0);
  // Exact counts and a fixed seed: nothing in the report depends on the moment.
  CHECK(second.out == first.out);
  CHECK(run_cli({"report", journal}, {"NO_COLOR=1"}).out == first.out);
  ::unlink(journal.c_str());
}
