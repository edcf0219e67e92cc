// `obscheck bias` and `obscheck compare` run as a user runs them: environment-size
// sweeps of a workload that prints its stack address, link-order variants of a
// multi-object workload checked with nm, and comparisons of variants with a known
// answer (the same program; the same program with 10% more work).
#include <sys/stat.h>

#include <catch2/catch.hpp>
#include <cstdio>
#include <fstream>
#include <map>
#include <nlohmann/json.hpp>
#include <regex>
#include <set>

#include "run_cli.h"
#include "util/digest.h"

using nlohmann::json;
using obscheck::test::run_cli;
using obscheck::test::workload;

namespace {

std::string sh(const std::string& cmd) {
  std::string out;
  FILE* p = popen(cmd.c_str(), "r");
  if (!p) return out;
  char buf[4096];
  while (std::size_t n = fread(buf, 1, sizeof buf, p)) out.append(buf, n);
  pclose(p);
  return out;
}

// A fresh directory with the linkorder workload's objects, compiled as a user would.
std::string build_linkorder_objects() {
  const std::string dir = "/tmp/obscheck-cli-linkorder-" + std::to_string(getpid());
  mkdir(dir.c_str(), 0700);
  const std::string src = std::string(OBSCHECK_SOURCE_DIR) + "/experiments/workloads/linkorder/";
  for (const char* f : {"main", "a", "b", "c", "d"}) {
    const std::string cmd = "cc -O2 -c " + src + f + ".c -o " + dir + "/" + f + ".o 2>&1";
    INFO(cmd << ": " << sh(cmd));
    REQUIRE(access((dir + "/" + f + ".o").c_str(), R_OK) == 0);
  }
  return dir;
}

// "step_a" -> address, from nm.
std::map<std::string, std::string> step_symbols(const std::string& binary) {
  std::map<std::string, std::string> syms;
  std::istringstream in(sh("nm " + binary));
  for (std::string line; std::getline(in, line);) {
    std::istringstream words(line);
    std::string addr, type, name;
    if (!(words >> addr >> type >> name)) continue;  // undefined symbols have no address
    if (name.rfind("step_", 0) == 0 || name.rfind("helper_", 0) == 0) syms[name] = addr;
  }
  return syms;
}

const json& analysis(const json& report, const std::string& metric) {
  for (const auto& a : report.at("analyses"))
    if (a.at("metric") == metric) return a;
  FAIL("no analysis of " << metric);
  static json none;
  return none;
}

std::string outcome(const std::vector<std::string>& args) {
  auto r = run_cli(args);
  INFO(r.err);
  REQUIRE(r.code <= 1);
  return json::parse(r.out).at("comparison").at("outcome").get<std::string>();
}

}  // namespace

TEST_CASE("bias: an environment-size sweep records each context and moves the stack by the bytes added") {
  auto r = run_cli({"bias", "--json", "--env-sizes", "0,400,800,1200", "-r", "3", "--seed", "5", "--",
                    workload("stackaddr")});
  INFO(r.err);
  REQUIRE((r.code == 0 || r.code == 1));
  const json j = json::parse(r.out);
  REQUIRE(j.at("contexts").size() == 4);
  REQUIRE(j.at("runs").size() == 12);
  CHECK(j.at("pad_variable") == "OBSCHECK_PAD");
  std::map<std::size_t, std::set<std::string>> addresses;
  std::map<std::size_t, std::size_t> env_bytes;
  for (const auto& run : j.at("runs")) {
    CHECK(run.at("ok") == true);
    CHECK(run.at("binary_sha256") == obscheck::sha256_file(workload("stackaddr")));
    CHECK(run.at("argv").at(0) == workload("stackaddr"));
    CHECK(std::regex_match(run.at("first_line").get<std::string>(), std::regex("stack=0x[0-9a-f]+ environ=.*")));
    const std::size_t c = run.at("context");
    addresses[c].insert(run.at("stack_address").get<std::string>());
    env_bytes[c] = run.at("env_bytes");
  }
  // Identical context, identical address (ASLR off); each size its own address.
  std::set<std::string> distinct;
  for (const auto& [c, a] : addresses) {
    CHECK(a.size() == 1);
    distinct.insert(*a.begin());
  }
  CHECK(distinct.size() == 4);
  // The pad's value grows by 400 bytes per context, so the block does exactly that,
  // and the stack below it moves down by those 400 bytes up to 16-byte alignment.
  auto addr = [&](std::size_t c) { return std::stoull(*addresses[c].begin(), nullptr, 16); };
  for (std::size_t c = 1; c < 4; ++c) {
    CHECK(env_bytes[c] - env_bytes[0] == 400 * c);
    const long long moved = static_cast<long long>(addr(0) - addr(c));
    CHECK(std::llabs(moved - static_cast<long long>(400 * c)) < 16);
  }
  CHECK(j.at("contexts").at(3).at("env_pad") == 1200);
  CHECK(j.at("contexts").at(3).at("label") == "env+1200");
  const json& a = analysis(j, "task-clock");
  CHECK(a.at("contexts").size() == 4);
  CHECK(a.contains("spread"));
  CHECK(a.at("spread").at("df_between") == 3);
  // Three rounds visit the four contexts: the rounds are blocks (df 2), and the error
  // term keeps (4 - 1) (3 - 1) = 6 degrees of freedom.
  CHECK(a.at("spread").at("blocked") == true);
  CHECK(a.at("spread").at("df_blocks") == 2);
  CHECK(a.at("spread").at("df_within") == 6);
}

TEST_CASE("bias: the default contexts are the paper's 22 environment sizes and CSV has one row per run") {
  auto r = run_cli({"bias", "--csv", "-r", "1", "-w", "0", "--seed", "3", "--", workload("stackaddr")});
  INFO(r.err);
  REQUIRE((r.code == 0 || r.code == 1));
  std::istringstream in(r.out);
  std::string line;
  std::getline(in, line);
  CHECK(line.rfind("seq,round,context,label,variant,env_pad,env_bytes", 0) == 0);
  std::set<std::string> pads;
  int rows = 0;
  while (std::getline(in, line)) {
    ++rows;
    std::vector<std::string> cells;
    std::stringstream ss(line);
    for (std::string c; std::getline(ss, c, ',');) cells.push_back(c);
    pads.insert(cells.at(5));
  }
  // 2, 392, ..., 8192: (8192 - 2) / 390 + 1 = 22 sizes, one run each.
  CHECK(rows == 22);
  CHECK(pads.size() == 22);
  CHECK(pads.count("2") == 1);
  CHECK(pads.count("8192") == 1);
}

TEST_CASE("bias: link-order variants differ in symbol addresses and are reported per order") {
  const std::string dir = build_linkorder_objects();
  const std::string objs = dir + "/main.o," + dir + "/a.o," + dir + "/b.o," + dir + "/c.o," + dir + "/d.o";
  auto r = run_cli({"bias", "--json", "--link", "cc {objects} -o {out}", "--objects", objs, "--link-orders", "4",
                    "-r", "2", "--seed", "11", "--", "{out}", "20000"});
  INFO(r.err);
  REQUIRE((r.code == 0 || r.code == 1));
  const json j = json::parse(r.out);
  REQUIRE(j.at("contexts").size() == 4);
  std::set<std::map<std::string, std::string>> layouts;
  std::set<std::vector<std::string>> text_orders;
  for (const auto& c : j.at("contexts")) {
    CHECK_FALSE(c.contains("failure"));
    CHECK(c.at("link_order") == c.at("id"));
    std::vector<std::string> objects = c.at("objects");
    REQUIRE(objects.size() == 5);
    if (c.at("id") == 0) CHECK(objects.front() == dir + "/main.o");  // the given order first
    std::vector<std::string> text_order;
    for (const auto& o : objects)
      if (o != dir + "/main.o") text_order.push_back(o);
    text_orders.insert(text_order);
    // Relink the recorded order: the same bytes as the binary that was measured.
    const std::string bin = dir + "/relinked-" + std::to_string(c.at("id").get<int>());
    std::string cmd = "cc";
    for (const auto& o : objects) cmd += " " + o;
    sh(cmd + " -o " + bin);
    CHECK(obscheck::sha256_file(bin) == c.at("binary_sha256"));
    const auto syms = step_symbols(bin);
    CHECK(syms.size() == 7);  // step_a..d, helper_b..d
    layouts.insert(syms);
  }
  // main() goes to .text.startup, which the linker places apart, so moving main.o
  // alone moves nothing; every other change of order moves the step_/helper_ functions.
  CHECK(text_orders.size() >= 3);
  CHECK(layouts.size() == text_orders.size());
  const json& a = analysis(j, "task-clock");
  REQUIRE(a.at("contexts").size() == 4);
  for (const auto& c : a.at("contexts")) CHECK(c.at("n") == 2);
  std::set<std::string> first_lines;
  for (const auto& run : j.at("runs")) first_lines.insert(run.at("first_line").get<std::string>());
  CHECK(first_lines.size() == 1);  // same program, same output, whatever the order
  sh("rm -rf " + dir);
}

TEST_CASE("bias: a link order that fails is reported with the linker's words and the others run") {
  // With a static archive the order matters to the linker itself: libd.a must come
  // after every object that needs it (main.o and c.o), else the link fails.
  const std::string dir = build_linkorder_objects();
  sh("ar rcs " + dir + "/libd.a " + dir + "/d.o");
  const std::string objs = dir + "/main.o," + dir + "/a.o," + dir + "/b.o," + dir + "/c.o," + dir + "/libd.a";
  auto r = run_cli({"bias", "--json", "--link", "cc {objects} -o {out}", "--objects", objs, "--link-orders", "6",
                    "-r", "2", "--seed", "2", "--", "{out}", "20000"});
  INFO(r.err);
  REQUIRE(r.code == 1);  // a failed context is a finding
  const json j = json::parse(r.out);
  int failed = 0, linked = 0;
  for (const auto& c : j.at("contexts")) {
    std::vector<std::string> o = c.at("objects");
    auto pos = [&](const std::string& name) { return std::find(o.begin(), o.end(), dir + "/" + name) - o.begin(); };
    // The archive's one member defines both step_d and helper_d, so it is pulled in
    // when the archive comes after either object that needs it.
    const bool should_link = pos("libd.a") > pos("main.o") || pos("libd.a") > pos("c.o");
    INFO(c.dump());
    CHECK(c.contains("failure") != should_link);
    if (c.contains("failure")) {
      ++failed;
      const std::string f = c.at("failure");
      CHECK_THAT(f, Catch::Contains("the link command exited with code 1"));
      CHECK_THAT(f, Catch::Contains("undefined reference to"));
      CHECK_THAT(f, Catch::Contains("command: cc "));
    } else {
      ++linked;
    }
  }
  CHECK(failed > 0);
  CHECK(linked > 0);
  const json& a = analysis(j, "task-clock");
  CHECK(a.at("contexts").size() == static_cast<std::size_t>(linked));
  CHECK(a.at("failed").size() == static_cast<std::size_t>(failed));
  for (const auto& run : j.at("runs")) CHECK(run.at("ok") == true);
  sh("rm -rf " + dir);
}

TEST_CASE("bias: contexts that make the program fail are reported as failed, the rest analysed") {
  // The program fails once the pad variable is 100 bytes or longer.
  auto r = run_cli({"bias", "--json", "--env-sizes", "0,50,200,400", "-r", "2", "--seed", "4", "--", "/bin/sh",
                    "-c", "[ ${#OBSCHECK_PAD} -lt 100 ]"});
  INFO(r.err);
  REQUIRE(r.code == 1);
  const json j = json::parse(r.out);
  const json& a = analysis(j, "task-clock");
  REQUIRE(a.at("contexts").size() == 2);
  CHECK(a.at("contexts").at(0).at("label") == "env+0");
  CHECK(a.at("contexts").at(1).at("label") == "env+50");
  REQUIRE(a.at("failed").size() == 2);
  CHECK(a.at("failed").at(0).at("label") == "env+200");
  CHECK_THAT(a.at("failed").at(0).at("failure").get<std::string>(), Catch::Contains("exited with code 1"));

  // Failing everywhere is the target's failure, exit code 5, said once.
  r = run_cli({"bias", "--env-sizes", "0,50", "-r", "2", "--", workload("crash")});
  CHECK(r.code == 5);
  CHECK_THAT(r.err, Catch::Contains("failed in every context"));
}

TEST_CASE("bias: a counter this host cannot count is refused once before any run") {
  auto r = run_cli({"bias", "-e", "cycles", "--env-sizes", "0,50", "--", workload("stackaddr")});
  CHECK(r.code == 4);
  CHECK_THAT(r.err, Catch::Contains("cannot count cycles"));
}

TEST_CASE("compare: a workload against itself is no significant difference in at least 19 of 20 seeded runs") {
  // At the 99% level the expected number of false "different" verdicts in 20 runs is
  // 0.2 (at 95% it would be 1, and 2 or more would happen in a quarter of the runs).
  int same = 0;
  for (int seed = 1; seed <= 20; ++seed) {
    const auto o = outcome({"compare", "--json", "--confidence", "0.99", "--env-sizes", "0:2000:400", "-r", "3",
                            "--seed", std::to_string(seed), "--", workload("extrawork"), "5000", ":::",
                            workload("extrawork"), "5000"});
    same += o == "no significant difference";
  }
  CHECK(same >= 19);
}

// [serial]: a timing check, run alone (see check_test.cpp's A/A test).
TEST_CASE("compare: 10% more work is worse, exactly, and --fail-on worse makes it exit 1") {
  // The simulated PMU counts instructions exactly, so the answer does not depend on this
  // host's noise (the power on real timings is a benchmark: bench_verdicts_live compare).
  const std::vector<std::string> args = {"compare", "--json", "--backend", "sim", "--metric", "instructions",
                                         "--counters", "instructions", "--env-sizes", "0,400", "--",
                                         workload("extrawork"), "500", ":::", workload("extrawork"), "500", "10"};
  CHECK(outcome(args) == "worse");
  CHECK(run_cli(args).code == 0);  // worse is a finding only when asked for
  std::vector<std::string> strict = args;
  strict.insert(strict.begin() + 1, {"--fail-on", "worse"});
  CHECK(run_cli(strict).code == 1);
  strict[2] = "none";
  CHECK(run_cli(strict).code == 0);
}

TEST_CASE("compare: --aa reports the A/A control first, the speedup in the paper's form") {
  auto r = run_cli({"compare", "--verbose", "--aa", "--env-sizes", "0:800:400", "-r", "3", "--seed", "9", "--",
                    workload("extrawork"), "5000", ":::", workload("extrawork"), "5000", "10"});
  INFO(r.err);
  REQUIRE((r.code == 0 || r.code == 1));
  const auto aa = r.out.find("A/A control"), main = r.out.find("baseline against contender");
  REQUIRE(aa != std::string::npos);
  REQUIRE(main != std::string::npos);
  CHECK(aa < main);
  CHECK(std::regex_search(r.out, std::regex("speedup \\(baseline / contender, task-clock\\): [01]\\.\\d{3,} ± 0\\.\\d{3,}")));
  auto j = json::parse(run_cli({"compare", "--json", "--aa", "--env-sizes", "0:800:400", "-r", "2", "--seed", "9",
                                "--", workload("extrawork"), "5000", ":::", workload("extrawork"), "5000", "10"})
                           .out);
  CHECK(j.at("variants").size() == 3);
  CHECK(j.at("variants").at(2).at("name") == "baseline (A/A)");
  CHECK(j.at("aa").at("contexts") == 3);
  CHECK(j.at("runs").size() == 3 * 3 * 2);
}

TEST_CASE("compare: unequal exit statuses or outputs are incomparable, and say which") {
  auto r = run_cli({"compare", "--verbose", "--env-sizes", "0,100", "-r", "2", "--", "/bin/true", ":::", "/bin/false"});
  CHECK(r.code == 1);
  CHECK_THAT(r.out, Catch::Contains("incomparable: context env+0: the baseline exited with code 0 but the "
                                    "contender exited with code 1"));
  r = run_cli({"compare", "--verbose", "--env-sizes", "0,100", "-r", "2", "--", workload("extrawork"), "5000", ":::",
               workload("extrawork"), "5001"});
  CHECK(r.code == 1);
  CHECK_THAT(r.out, Catch::Contains("the output differs"));
  CHECK_THAT(r.out, Catch::Contains("the variants' outputs differ in 2 of 2 context(s)"));
  CHECK_THAT(r.out, Catch::Contains("--allow-output-diff"));
  // Outputs that legitimately differ are compared when asked: no longer incomparable.
  r = run_cli({"compare", "--verbose", "--allow-output-diff", "--env-sizes", "0,100,200", "-r", "2", "--fail-on", "none", "--",
               workload("extrawork"), "5000", ":::", workload("extrawork"), "5001"});
  CHECK(r.code == 0);
  CHECK_THAT(r.out, Catch::Contains("compared anyway (--allow-output-diff)"));
  CHECK(r.out.find("incomparable:") == std::string::npos);
}

TEST_CASE("compare: usage errors") {
  auto r = run_cli({"compare", "--", workload("extrawork"), "5000"});
  CHECK(r.code == 2);
  CHECK_THAT(r.err, Catch::Contains("two variants separated by :::"));
  r = run_cli({"compare", "--env-sizes", "9:1:1", "--", "/bin/true", ":::", "/bin/true"});
  CHECK(r.code == 2);
  CHECK_THAT(r.err, Catch::Contains("--env-sizes"));
  r = run_cli({"bias", "--link", "cc -o {out}", "--objects", "a.o", "--", "{out}"});
  CHECK(r.code == 2);
  CHECK_THAT(r.err, Catch::Contains("{objects}"));
}

namespace {

// Every interval in a report, as [lo, hi]: a 2-array under a key ending in "ci", or an
// object with "lo" and "hi"; `path` names where.
void intervals_of(const json& j, const std::string& path, std::vector<std::pair<std::string, json>>& out) {
  if (j.is_object()) {
    if (j.contains("lo") && j.contains("hi")) out.emplace_back(path, json::array({j.at("lo"), j.at("hi")}));
    for (const auto& [k, v] : j.items()) {
      if (v.is_array() && v.size() == 2 && k.size() >= 2 && k.compare(k.size() - 2, 2, "ci") == 0 &&
          v[0].is_number())
        out.emplace_back(path + "." + k, v);
      intervals_of(v, path + "." + k, out);
    }
  } else if (j.is_array()) {
    for (const json& v : j) intervals_of(v, path + "[]", out);
  }
}

}  // namespace

TEST_CASE("bias and compare: no interval of a positive quantity goes below zero, even with two runs") {
  // Two runs per context: an arithmetic t interval of two runs has 12.7 standard
  // errors each side and went negative for times and ratios.
  std::vector<std::pair<std::string, json>> all;
  const auto bias = run_cli({"bias", "--json", "-r", "2", "--env-sizes", "2,400,800,1200", "--seed", "3", "--",
                             workload("compute"), "100"});
  REQUIRE((bias.code == 0 || bias.code == 1));
  intervals_of(json::parse(bias.out), "bias", all);
  const auto cmp = run_cli({"compare", "--json", "-r", "2", "--aa", "--env-sizes", "2,400,800", "--seed", "3", "--",
                            workload("extrawork"), "500", ":::", workload("extrawork"), "500", "10"});
  REQUIRE((cmp.code == 0 || cmp.code == 1));
  intervals_of(json::parse(cmp.out), "compare", all);
  REQUIRE(all.size() >= 8);
  // Every quantity these reports give an interval for is a time, a count or a ratio.
  for (const auto& [where, ci] : all) {
    INFO(where << " = " << ci.dump());
    if (ci[0].is_number()) CHECK(ci[0].get<double>() >= 0);
    if (ci[1].is_number()) CHECK(ci[1].get<double>() >= 0);
  }
}
