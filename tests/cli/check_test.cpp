// The main job run as a user runs it, on the events this host has: the A/A check
// never cries "perturbed", the in-process set-up really moves the stack under
// natural and not under held, an interrupted check resumes with no run lost or
// repeated, and `obscheck report` reproduces the report from the journal alone.
#include <signal.h>
#include <sys/wait.h>

#include <catch2/catch.hpp>
#include <filesystem>
#include <fstream>
#include <map>
#include <nlohmann/json.hpp>
#include <set>
#include <sstream>
#include <thread>

#include "run_cli.h"

using obscheck::test::journal_lines;
using obscheck::test::run_cli;
using obscheck::test::workload;
using nlohmann::json;

namespace {

std::string check_tmp(const std::string& name) {
  return "/tmp/obscheck-check-test-" + std::to_string(getpid()) + "-" + name;
}

}  // namespace

// [serial]: a timing check, run alone so that the suite's valgrind sweeps on the other
// core do not load one configuration of a block and not the next.
TEST_CASE("check: A/A — software counters on a compute workload are never 'perturbed' (20 seeds)", "[serial]") {
  // Counting more software events from outside adds nothing the target executes, so a
  // sound pipeline must not call it perturbed, except where its own A/A control
  // failed (then every verdict of that metric is inconclusive by construction).
  int perturbed = 0, aa_failed = 0;
  for (int seed = 1; seed <= 20; ++seed) {
    const std::string journal = check_tmp("aa-" + std::to_string(seed) + ".jsonl");
    auto r = run_cli({"--json", "--counters", "task-clock,page-faults,ctx-switches,tsc", "--max-runs", "20",
                      "--seed", std::to_string(seed), "--journal", journal, "--", workload("compute"), "50"});
    unlink(journal.c_str());
    REQUIRE((r.code == 0 || r.code == 1));
    const json j = json::parse(r.out);
    if (!j.at("aa").at("ok").get<bool>()) ++aa_failed;
    for (const auto& v : j.at("verdicts")) {
      if (v.at("verdict") != "perturbed") continue;
      ++perturbed;
      UNSCOPED_INFO("seed " << seed << ": " << v.at("metric_name") << " " << v.at("level") << " " << v.at("reason"));
    }
  }
  WARN("A/A controls that failed: " << aa_failed << " of 20");
  CHECK(perturbed == 0);
}

TEST_CASE("check: in-process mode moves the stack with the dose under natural, not under held") {
  const std::string journal = check_tmp("stack.jsonl");
  auto r = run_cli({"--json", "--mode", "inprocess", "--counters", "task-clock,page-faults,ctx-switches",
                    "--runs", "3", "--seed", "11", "--keep-output-head", "--journal", journal, "--",
                    workload("stackaddr")});
  REQUIRE((r.code == 0 || r.code == 1));
  // config id -> the distinct stack addresses its runs printed
  std::map<std::string, std::set<std::string>> stacks;
  for (const json& line : journal_lines(journal)) {
    if (line.at("type") != "run") continue;
    const std::string head = line.at("extra").at("output_head");
    stacks[line.at("config_id")].insert(head.substr(0, head.find(' ')));
  }
  unlink(journal.c_str());
  std::set<std::string> natural, held;
  for (const auto& [id, addrs] : stacks) {
    INFO(id);
    CHECK(addrs.size() == 1);  // ASLR off: every run of a configuration, one address
    if (id.find("#aa") != std::string::npos) continue;
    if (id.size() > 8 && id.substr(id.size() - 8) == "/natural") natural.insert(*addrs.begin());
    if (id.size() > 5 && id.substr(id.size() - 5) == "/held") held.insert(*addrs.begin());
  }
  // Five levels (prefixes 1..3, counters 2 and 3 alone): the announced list differs
  // in length between the prefixes, so natural sees at least three addresses...
  CHECK(natural.size() >= 3);
  // ...and held, padded to one environment size, exactly one.
  CHECK(held.size() == 1);
}

TEST_CASE("check: Ctrl-C keeps the journal valid and --resume finishes with every planned run exactly once") {
  const std::string journal = check_tmp("resume.jsonl");
  const std::string bin = OBSCHECK_BIN, prog = workload("compute");
  pid_t pid = fork();
  if (pid == 0) {
    int devnull = open("/dev/null", O_WRONLY);
    dup2(devnull, 1);
    dup2(devnull, 2);
    execl(bin.c_str(), bin.c_str(), "--counters", "task-clock,page-faults", "--runs", "15", "--seed", "9",
          "--journal", journal.c_str(), "--", prog.c_str(), "2000", static_cast<char*>(nullptr));
    _exit(127);
  }
  // Interrupt once some runs are in the journal.
  for (int i = 0; i < 200; ++i) {
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
    std::ifstream in(journal);
    std::string l;
    int n = 0;
    while (std::getline(in, l)) ++n;
    if (n > 10) break;
  }
  kill(pid, SIGINT);
  int st = 0;
  waitpid(pid, &st, 0);
  REQUIRE(WIFEXITED(st));
  CHECK(WEXITSTATUS(st) == 130);
  std::size_t before = 0;
  for (const json& line : journal_lines(journal)) before += line.at("type") == "run";
  CHECK(before > 0);
  // 16 blocks x 5 configurations planned: no counter (level 0), the two prefixes,
  // page-faults alone, and the A/A copy.
  CHECK(before < 80);

  auto r = run_cli({"--resume", journal});
  CHECK(r.code != 130);
  std::multiset<std::size_t> indexes;
  for (const json& line : journal_lines(journal))
    if (line.at("type") == "run") indexes.insert(line.at("index").get<std::size_t>());
  CHECK(indexes.size() == 80);
  CHECK(std::set<std::size_t>(indexes.begin(), indexes.end()).size() == 80);
  CHECK(*indexes.rbegin() == 79);

  // The report from the file alone equals what the resumed check printed.
  auto rep = run_cli({"report", journal});
  CHECK(rep.code == 0);
  CHECK(rep.out == r.out);
  unlink(journal.c_str());
}

TEST_CASE("check: a counter this host lacks is refused with its reason, or dropped with --allow-missing") {
  if (access("/sys/bus/event_source/devices/cpu", F_OK) == 0) {
    WARN("SKIPPED: this host has a cpu PMU: nothing is missing");
    return;
  }
  auto r = run_cli({"--counters", "cycles,task-clock", "--runs", "2", "--", "/bin/true"});
  CHECK(r.code == 4);
  CHECK_THAT(r.err, Catch::Contains("cycles: no hardware PMU"));
  CHECK_THAT(r.err, Catch::Contains("--allow-missing"));
  const std::string journal = check_tmp("missing.jsonl");
  auto ok = run_cli({"--json", "--allow-missing", "--counters", "cycles,task-clock", "--runs", "5", "--journal",
                     journal, "--", workload("compute"), "20"});
  CHECK((ok.code == 0 || ok.code == 1));
  CHECK_THAT(ok.out, Catch::Contains("dropped (--allow-missing): cycles"));
  unlink(journal.c_str());
}

TEST_CASE("check: every run line records the host's load around the run") {
  const std::string journal = check_tmp("host.jsonl");
  auto r = run_cli({"--counters", "task-clock", "--runs", "3", "--seed", "5", "--journal", journal, "--",
                    workload("compute"), "50"});
  REQUIRE((r.code == 0 || r.code == 1));
  std::size_t runs = 0;
  for (const json& line : journal_lines(journal)) {
    if (line.at("type") != "run") continue;
    ++runs;
    const json& host = line.at("extra").at("host");
    // Whole ticks less the target's exact CPU time: any integer, a tick's worth below 0 at most.
    CHECK(host.at("other_cpu_ns").is_number_integer());
    CHECK(host.at("procs_running").get<long>() >= 1);  // the driver itself, reading it
  }
  unlink(journal.c_str());
  CHECK(runs == 3 * 4);  // level 0, the counter and level 0's A/A copy, in a warm-up block and three measured
}

TEST_CASE("check: a single counter is compared with no counter at all (level 0) on the driver's metrics") {
  const std::string journal = "/tmp/obscheck-check-test-" + std::to_string(getpid()) + "-one.jsonl";
  unlink(journal.c_str());
  const auto r = run_cli({"--json", "--counters", "task-clock", "--runs", "12", "--seed", "2", "--journal", journal,
                          "--", workload("compute"), "100"});
  unlink(journal.c_str());
  INFO(r.err);
  REQUIRE((r.code == 0 || r.code == 1));
  const json j = json::parse(r.out);
  std::vector<std::string> levels;
  for (const json& c : j.at("plan").at("configs")) levels.push_back(c.at("level").get<std::string>());
  CHECK(std::find(levels.begin(), levels.end(), "0[none]") != levels.end());
  // wall-time, user-time, ... each have a verdict at 1[task-clock] against 0[none].
  std::set<std::string> judged;
  for (const json& v : j.at("verdicts"))
    if (v.at("level") == "1[task-clock]")
      judged.insert(j.at("metrics").at(v.at("metric").get<std::size_t>()).at("name").get<std::string>());
  CHECK(judged.count("wall-time") == 1);
  CHECK(judged.count("user-time") == 1);
  CHECK(judged.count("task-clock") == 0);  // level 0 cannot count it
  bool said = false;
  for (const json& l : j.at("answer").at("lines"))
    said = said || l.get<std::string>().find("level 0 (no counter) cannot measure it") != std::string::npos;
  CHECK(said);
}

TEST_CASE("check: a list of counters is compared with no counter at all on the driver's metrics, each counter with itself alone") {
  const std::string journal = "/tmp/obscheck-check-test-" + std::to_string(getpid()) + "-two.jsonl";
  unlink(journal.c_str());
  const auto r = run_cli({"--json", "--counters", "task-clock,page-faults", "--runs", "12", "--seed", "2",
                          "--journal", journal, "--", workload("compute"), "100"});
  unlink(journal.c_str());
  INFO(r.err);
  REQUIRE((r.code == 0 || r.code == 1));
  const json j = json::parse(r.out);
  std::vector<std::string> levels;  // the configurations' levels; the A/A copy of level 0 last
  for (const json& c : j.at("plan").at("configs")) levels.push_back(c.at("level").get<std::string>());
  CHECK(levels == std::vector<std::string>{"0[none]", "1[task-clock]", "2[task-clock,page-faults]", "1[page-faults]",
                                           "0[none]"});
  // Wall time is judged at every dose against level 0; page-faults, at dose 2, against
  // itself counted alone.
  std::map<std::string, std::set<std::string>> judged;  // metric -> levels
  for (const json& v : j.at("verdicts"))
    judged[j.at("metrics").at(v.at("metric").get<std::size_t>()).at("name")].insert(v.at("level").get<std::string>());
  CHECK(judged["wall-time"] == std::set<std::string>{"1[task-clock]", "2[task-clock,page-faults]", "1[page-faults]"});
  CHECK(judged["page-faults"] == std::set<std::string>{"2[task-clock,page-faults]"});
}

TEST_CASE("check: the demo ends with a decisive finding, and no verdict contradicts its interval") {
  const std::string dir = "/tmp/obscheck-check-test-" + std::to_string(getpid()) + "-demo";
  std::filesystem::create_directories(dir);
  const auto r = run_cli({"demo", "--json", "--journal", dir + "/demo.jsonl", "--html", dir + "/demo.html"});
  std::filesystem::remove_all(dir);
  INFO(r.err);
  // A demo that ran exits 0 whatever it found: --fail-on belongs to a check of one's own program.
  REQUIRE(r.code == 0);
  const json j = json::parse(r.out);
  CHECK(j.at("answer").at("exit_code").is_null());  // the demo's code is its own, not the check's
  std::size_t decisive = 0;
  for (const json& v : j.at("verdicts")) {
    const std::string verdict = v.at("verdict");
    decisive += verdict != "inconclusive";
    bool any_moved = false, held_within = false, all_within = true;
    for (std::size_t i : v.at("comparisons").get<std::vector<std::size_t>>()) {
      const json& c = j.at("comparisons").at(i);
      if (c.at("n").get<std::size_t>() == 0) continue;  // no paired block: no interval to contradict
      INFO(v.at("metric_name") << " " << v.at("level") << " " << verdict << ": " << c.at("layout") << " "
                               << c.at("ci").dump());
      const bool moved = c.at("significant").get<bool>() || c.at("outside_margin").get<bool>();
      any_moved = any_moved || moved;
      all_within = all_within && c.at("equivalent").get<bool>();
      if (c.at("layout") == "held") held_within = c.at("equivalent").get<bool>();
      if (verdict == "not-perturbed") CHECK(c.at("equivalent").get<bool>());
    }
    if (verdict == "perturbed") CHECK(any_moved);
    if (verdict == "layout") CHECK((any_moved && held_within));
    if (verdict == "not-perturbed") CHECK(all_within);
  }
  CHECK(decisive >= 1);
}

TEST_CASE("check: the demo's second part shows the layout effect on the simulated PMU, answer only") {
  if (std::system("valgrind --version > /dev/null 2>&1") != 0) {
    WARN("SKIPPED: needs valgrind for the simulated PMU");
    return;
  }
  const std::string dir = "/tmp/obscheck-check-test-" + std::to_string(getpid()) + "-demo2";
  std::filesystem::create_directories(dir);
  const std::string here = std::filesystem::current_path();
  std::filesystem::create_directories(dir + "/cwd");
  std::filesystem::current_path(dir + "/cwd");  // the demo leaves nothing here
  const auto r = run_cli({"demo", "--time-budget", "2"}, {"XDG_STATE_HOME=" + dir + "/state"});
  std::filesystem::current_path(here);
  // Its pages and journals are in a directory of its own, in the state directory.
  bool page = false;
  for (const auto& e : std::filesystem::recursive_directory_iterator(dir + "/state/obscheck"))
    page = page || e.path().filename() == "obscheck-demo-layout.html";
  const bool cwd_empty = std::filesystem::is_empty(dir + "/cwd");
  std::filesystem::remove_all(dir);
  CHECK(cwd_empty);
  INFO(r.err << r.out);
  // It showed what it was built to show: exit 0, said on its last line.
  CHECK(r.code == 0);
  CHECK(r.err.find("the layout effect appeared, as built to show; exit 0") != std::string::npos);
  CHECK(r.out.find("; exit 1") == std::string::npos);  // no part names a code the demo does not give
  CHECK(r.err.find("part 2: the paper's layout effect") != std::string::npos);
  const auto part2 = r.out.rfind("layout 2000 1024");
  REQUIRE(part2 != std::string::npos);
  const std::string answer = r.out.substr(part2);
  CHECK(answer.find("l1d            explained by layout") != std::string::npos);
  CHECK(answer.find("instructions   not perturbed") != std::string::npos);
  CHECK(answer.find("detail: obscheck report ") != std::string::npos);
  CHECK(answer.find("verdicts:") == std::string::npos);  // the answer alone: the detail is in the journal
  CHECK(page);
}
