// The built obscheck's own hardware path on the test PMU: tests/support/pmu_harness
// runs the binary with its perf_event_open, read and ioctl answered by the model
// (tests/support/test_pmu.h) through seccomp user notification, so `measure -e
// cycles` and the check count cycles on a host without a hardware PMU, through the
// very code the installed binary runs. Every expected value is the model's: 4 ms of
// task time per run, cycles 2/ns, l1d 0.25/ns.
#include <sys/wait.h>

#include <catch2/catch.hpp>
#include <cstdio>
#include <fstream>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "../unit/temp_dir.h"

using nlohmann::json;
using obscheck::test::TempDir;

namespace {

struct Harnessed {
  int code = -1;
  std::string out;
};

std::string quoted(const std::string& s) {
  std::string out = "'";
  for (char c : s) out += c == '\'' ? std::string("'\\''") : std::string(1, c);
  return out + "'";
}

// Runs obscheck ARGS under the harness with `slots` counters, cycles at 2/ns and l1d
// (HW_CACHE 0x10000) at 0.25/ns, or cycles at `cycles_rate`, and the harness options
// `model` (--offset, --stops-at); stdout captured.
Harnessed harnessed(unsigned slots, const std::vector<std::string>& args, double cycles_rate = 2,
                    const std::vector<std::string>& model = {}) {
  std::string cmd = quoted(OBSCHECK_PMU_HARNESS) + " --slots " + std::to_string(slots) + " --rate 0:0=" +
                    std::to_string(cycles_rate) + " --rate 3:10000=0.25";
  for (const std::string& m : model) cmd += " " + quoted(m);
  cmd += " -- " + quoted(OBSCHECK_BIN);
  for (const std::string& a : args) cmd += " " + quoted(a);
  cmd += " 2>/dev/null </dev/null";
  Harnessed r;
  FILE* p = popen(cmd.c_str(), "r");
  REQUIRE(p);
  char buf[4096];
  for (std::size_t n; (n = fread(buf, 1, sizeof buf, p)) > 0;) r.out.append(buf, n);
  const int status = pclose(p);
  r.code = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  return r;
}

// The harness's seccomp filter models the x86-64 system call numbers only; elsewhere
// every call would reach the host's own perf_event, so the tests say they are skipped.
bool harness_models_here() {
#if defined(__x86_64__)
  return true;
#else
  WARN("SKIPPED: tests/support/pmu_harness models perf_event only for x86-64 system calls");
  return false;
#endif
}

const json& harness_metric(const json& report, const std::string& name) {
  for (const json& m : report.at("metrics"))
    if (m.at("name") == name) return m;
  FAIL("no metric " << name);
  throw;
}

// measure -e cycles -r 3 on a model whose cycles are faulty: no value in any run, a
// fault named in each; returns the faults.
json cycles_faults_of_measure(double cycles_rate, const std::vector<std::string>& model) {
  const Harnessed r = harnessed(4, {"measure", "-e", "cycles", "-r", "3", "--json", "/bin/true"}, cycles_rate, model);
  REQUIRE(r.code == 0);
  const json j = json::parse(r.out);
  const json& cycles = harness_metric(j, "cycles");
  CHECK(cycles.at("n") == 0);
  CHECK(cycles.at("median").is_null());
  REQUIRE(cycles.at("faults").size() == 3);
  return cycles.at("faults");
}

const json& harness_verdict(const json& report, const std::string& metric_name, const std::string& level) {
  for (const json& v : report.at("verdicts"))
    if (v.at("metric_name") == metric_name && v.at("level") == level) return v;
  FAIL("no verdict for " << metric_name << " at " << level);
  throw;
}

}  // namespace

TEST_CASE("test PMU harness: the built binary's measure -e cycles counts every run exactly") {
  if (!harness_models_here()) return;
  const Harnessed r = harnessed(4, {"measure", "-e", "cycles", "-r", "3", "--json", "/bin/true"});
  REQUIRE(r.code == 0);
  const json j = json::parse(r.out);
  const json& cycles = harness_metric(j, "cycles");
  CHECK(cycles.at("n") == 3);
  CHECK(cycles.at("median") == 8'000'000.0);
  CHECK(cycles.at("multiplexed_runs") == 0);
  CHECK(cycles.at("running_fraction") == json::array({1.0, 1.0, 1.0}));
  CHECK(cycles.at("faults").empty());
}

TEST_CASE("test PMU harness: two counters on one slot are multiplexed, scaled and labelled") {
  if (!harness_models_here()) return;
  const Harnessed r = harnessed(1, {"measure", "-e", "cycles,l1d", "-r", "3", "--json", "/bin/true"});
  REQUIRE(r.code == 0);
  const json j = json::parse(r.out);
  // Each ran 2 of 4 ticks: raw 4,000,000 and 500,000, scaled by 2.
  for (const auto& [name, median] : {std::pair{"cycles", 8'000'000.0}, {"l1d", 1'000'000.0}}) {
    INFO(name);
    const json& m = harness_metric(j, name);
    CHECK(m.at("median") == median);
    CHECK(m.at("multiplexed_runs") == 3);
    CHECK(m.at("max_scale") == 2.0);
    CHECK(m.at("running_fraction") == json::array({0.5, 0.5, 0.5}));
  }
}

TEST_CASE("test PMU harness: a counter that reads zero is a fault in every run, not a value") {
  if (!harness_models_here()) return;
  const json faults = cycles_faults_of_measure(0, {});
  CHECK(faults.at(0) == "cycles reads 0 although it ran 4000000 ns: the PMU did not count it (run 1)");
}

TEST_CASE("test PMU harness: the check calls multiplexed counters incomparable unless --allow-multiplex") {
  if (!harness_models_here()) return;
  TempDir dir;
  const std::vector<std::string> check = {"--counters", "cycles,l1d", "--runs", "6", "--fail-on", "incomparable",
                                          "--json"};
  std::vector<std::string> strict = check, allowed = check;
  // Allowed, the counts are equal in every block: "not perturbed" needs 11 blocks, the
  // runs that an effect on 1 run in 4 would have touched (analysis/check.h).
  allowed[3] = "11";
  strict.insert(strict.end(), {"--journal", (dir.path / "strict.jsonl").string(), "/bin/true"});
  allowed.insert(allowed.end(), {"--allow-multiplex", "--journal", (dir.path / "allowed.jsonl").string(), "/bin/true"});

  const Harnessed a = harnessed(1, strict);
  CHECK(a.code == 1);
  const json ja = json::parse(a.out);
  for (const char* name : {"cycles", "l1d"}) {
    const json& v = harness_verdict(ja, name, "2[cycles,l1d]");
    CHECK(v.at("verdict") == "incomparable");
    CHECK(v.at("scaled") == false);
    CHECK(v.at("reason").get<std::string>().starts_with(std::string("held: ") + name +
                                                        " multiplexed in 6 runs (scaled up to x2.00)"));
  }
  // Per counter and configuration: cycles ran half of every run beside l1d, all of it alone.
  const json& counters = ja.at("counters");
  REQUIRE(counters.size() == 2);
  CHECK(counters.at(0).at("metric_name") == "cycles");
  CHECK(counters.at(0).at("determinism") == "deterministic");
  CHECK(counters.at(0).at("determinism_text") == "the same count (8000000) in all 6 runs of counters=1[cycles]/held");
  for (const json& c : counters.at(0).at("configs")) {
    INFO(c.dump());
    const bool beside = c.at("config_id") == "counters=2[cycles,l1d]/held";
    CHECK(c.at("runs") == 6);
    CHECK(c.at("running_min") == (beside ? 0.5 : 1.0));
    CHECK(c.at("running_median") == (beside ? 0.5 : 1.0));
    CHECK(c.at("scaled_runs") == (beside ? 6 : 0));
  }

  const Harnessed b = harnessed(1, allowed);
  CHECK(b.code == 0);
  const json jb = json::parse(b.out);
  for (const char* name : {"cycles", "l1d"}) {
    const json& v = harness_verdict(jb, name, "2[cycles,l1d]");
    CHECK(v.at("verdict") == "not-perturbed");
    CHECK(v.at("scaled") == true);
  }
  // The journal records the choice, so its report judges the same way.
  const Harnessed again = harnessed(1, {"report", "--json", "--fail-on", "incomparable",
                                        (dir.path / "allowed.jsonl").string()});
  CHECK(again.code == 0);
  const json jr = json::parse(again.out);
  CHECK(harness_verdict(jr, "cycles", "2[cycles,l1d]").at("scaled") == true);
  // The Markdown and CSV reports carry the counters' validity as the JSON does.
  const Harnessed md = harnessed(1, {"report", "--markdown", (dir.path / "allowed.jsonl").string()});
  CHECK(md.out.find("- `cycles`: the same count (8000000) in all 11 runs of counters=1[cycles]/held (deterministic)\n") !=
        std::string::npos);
  CHECK(md.out.find("| cycles | `counters=1[cycles]/held` | 11 | 100% | 100% | exact, the same count in every run |\n"
                    "| cycles | `counters=2[cycles,l1d]/held` | 11 | 50% | 50% | scaled in 11 (up to x2.00), the same "
                    "count in every run |\n") != std::string::npos);
  const Harnessed csv = harnessed(1, {"report", "--csv", (dir.path / "allowed.jsonl").string()});
  std::size_t rows = 0;
  for (std::size_t at = 0; (at = csv.out.find("\ncycles,count,\"counters=2[cycles,l1d]/held\"", at)) != std::string::npos;
       ++at) {
    ++rows;
    const std::string row = csv.out.substr(at + 1, csv.out.find('\n', at + 1) - at - 1);
    CHECK(row.ends_with(",0.5,0.5,11,0,0,1,1,0,0,0,deterministic"));
  }
  CHECK(rows == 1);
}

TEST_CASE("test PMU harness: the in-process library counts on the model too, per configuration") {
  if (!harness_models_here()) return;
  // The preloaded library opens its counters in the target itself (pid 0), enables
  // them with ioctl and reads them at exit: the harness answers those calls as well.
  TempDir dir;
  const Harnessed r = harnessed(1, {"--mode", "inprocess", "--counters", "cycles,l1d", "--runs", "6", "--fail-on",
                                    "incomparable", "--json", "--journal", (dir.path / "j.jsonl").string(), "/bin/true"});
  CHECK(r.code == 1);
  const json j = json::parse(r.out);
  CHECK(harness_verdict(j, "cycles", "2[cycles,l1d]").at("verdict") == "incomparable");
  const json& cycles = j.at("counters").at(0);
  CHECK(cycles.at("determinism_text") == "the same count (8000000) in all 6 runs of counters=1[cycles]/held");
  // Beside l1d, cycles ran half of every run under natural and held layouts; sham
  // programs only the first counter of a level, so there it ran alone.
  std::size_t seen = 0;
  for (const json& c : cycles.at("configs")) {
    const std::string id = c.at("config_id");
    if (id.find("counters=2[cycles,l1d]") != 0) continue;
    ++seen;
    INFO(id);
    CHECK(c.at("running_median") == (id.ends_with("/sham") ? 1.0 : 0.5));
  }
  CHECK(seen == 3);
}

namespace {

const json& harness_analysis(const json& report, const std::string& metric_name) {
  for (const json& a : report.at("analyses"))
    if (a.at("metric") == metric_name) return a;
  FAIL("no analysis of " << metric_name);
  throw;
}

}  // namespace

TEST_CASE("test PMU harness: bias calls multiplexed counters incomparable unless --allow-multiplex") {
  if (!harness_models_here()) return;
  // One slot, two counters: each counts half of every run, its value scaled by 2.
  TempDir dir;
  const std::string strict_journal = (dir.path / "strict.jsonl").string();
  const std::vector<std::string> bias = {"bias", "-e", "cycles,l1d", "--env-sizes", "0,400", "-r", "3", "--seed", "7"};
  std::vector<std::string> strict = bias, allowed = bias;
  strict.insert(strict.end(), {"--json", "--journal", strict_journal, "/bin/true"});
  allowed.insert(allowed.end(), {"--allow-multiplex", "--json", "/bin/true"});

  const Harnessed a = harnessed(1, strict);
  CHECK(a.code == 1);
  const json ja = json::parse(a.out);
  CHECK(ja.at("allow_multiplex") == false);
  for (const char* name : {"cycles", "l1d"}) {
    INFO(name);
    const json& an = harness_analysis(ja, name);
    CHECK(an.at("incomparable") == true);
    CHECK(an.at("exceeds_noise") == false);
    CHECK(an.at("scaled").at("runs") == 6);
    CHECK(an.at("scaled").at("scaled_runs") == 6);
    CHECK(an.at("scaled").at("running_min") == 0.5);
    CHECK(an.at("scaled").at("running_median") == 0.5);
    CHECK(an.at("scaled").at("text") ==
          std::string("incomparable: ") + name +
              " multiplexed in 6 of 6 runs (running fraction min 0.50, median 0.50); its values are estimates scaled "
              "up from part of each run, not counts (fewer counters, or --allow-multiplex to compare the estimates)");
  }
  CHECK(harness_analysis(ja, "cycles").at("median_of_means") == 8'000'000.0);
  CHECK(harness_analysis(ja, "l1d").at("median_of_means") == 1'000'000.0);
  // Wall time is the driver's clock, never scaled.
  CHECK(harness_analysis(ja, "wall-time").at("incomparable") == false);
  CHECK(ja.at("runs").at(0).at("running_fraction") == json{{"cycles", 0.5}, {"l1d", 0.5}});

  // The text says it where the verdict goes; the journal's report says it again.
  const Harnessed text = harnessed(1, {"report", "--verbose", strict_journal});
  CHECK(text.code == 1);
  CHECK(text.out.find("\n  incomparable: cycles multiplexed in 6 of 6 runs (running fraction min 0.50, median 0.50)") !=
        std::string::npos);
  // report FILE --allow-multiplex re-judges the journal on the scaled values.
  const Harnessed rejudged = harnessed(1, {"report", "--allow-multiplex", "--json", strict_journal});
  CHECK(rejudged.code == 0);
  CHECK(harness_analysis(json::parse(rejudged.out), "cycles").at("incomparable") == false);
  // The CSV has each run's running fraction per counter.
  const Harnessed csv = harnessed(1, {"report", "--csv", strict_journal});
  const std::string header = csv.out.substr(0, csv.out.find('\n'));
  CHECK(header.ends_with(",cycles,l1d,wall-time,user-time,cycles:running,l1d:running,stack_address,first_line"));
  const std::string first = csv.out.substr(header.size() + 1, csv.out.find('\n', header.size() + 1) - header.size() - 1);
  CHECK(first.find(",8000000,1000000,") != std::string::npos);
  CHECK(first.ends_with(",0.5,0.5,,"));
  // A resume cannot change it.
  const Harnessed resumed = harnessed(1, {"bias", "--resume", strict_journal, "--allow-multiplex"});
  CHECK(resumed.code == 2);

  const Harnessed b = harnessed(1, allowed);
  CHECK(b.code == 0);
  const json jb = json::parse(b.out);
  CHECK(jb.at("allow_multiplex") == true);
  CHECK(jb.at("runs").size() == 6);
  const json& cycles = harness_analysis(jb, "cycles");
  CHECK(cycles.at("incomparable") == false);
  CHECK(cycles.at("exact") == true);
  CHECK(cycles.at("exceeds_noise") == false);
  CHECK(cycles.at("swing") == 0.0);
  CHECK(cycles.at("scaled").at("allowed") == true);
  CHECK(cycles.at("scaled").at("text").get<std::string>().starts_with(
      "scaled: cycles multiplexed in 6 of 6 runs (running fraction min 0.50, median 0.50)"));
}

TEST_CASE("test PMU harness: bias on counters that fit the PMU is exact, not scaled") {
  if (!harness_models_here()) return;
  const Harnessed r = harnessed(4, {"bias", "-e", "cycles,l1d", "--env-sizes", "0,400", "-r", "3", "--seed", "7",
                                    "--json", "/bin/true"});
  CHECK(r.code == 0);
  const json j = json::parse(r.out);
  const json& cycles = harness_analysis(j, "cycles");
  CHECK(cycles.at("incomparable") == false);
  CHECK(cycles.at("scaled").at("scaled_runs") == 0);
  CHECK(cycles.at("scaled").at("running_min") == 1.0);
  CHECK(cycles.at("median_of_means") == 8'000'000.0);
}

TEST_CASE("test PMU harness: compare calls a multiplexed metric incomparable unless --allow-multiplex") {
  if (!harness_models_here()) return;
  TempDir dir;
  const std::string journal = (dir.path / "compare.jsonl").string();
  const std::vector<std::string> compare = {"compare", "-e", "cycles,l1d", "--env-sizes", "0,400", "-r", "2",
                                            "--seed", "7", "--json"};
  std::vector<std::string> strict = compare, allowed = compare;
  strict.insert(strict.end(), {"--journal", journal, "--", "/bin/true", ":::", "/bin/true", "x"});
  allowed.insert(allowed.end(), {"--allow-multiplex", "--", "/bin/true", ":::", "/bin/true", "x"});

  const Harnessed a = harnessed(1, strict);
  CHECK(a.code == 1);
  const json c = json::parse(a.out).at("comparison");
  CHECK(c.at("outcome") == "incomparable");
  CHECK(c.at("verdict") ==
        "incomparable: cycles multiplexed in 8 of 8 runs (running fraction min 0.50, median 0.50); its values are "
        "estimates scaled up from part of each run, not counts (fewer counters, or --allow-multiplex to compare the "
        "estimates)");
  CHECK(c.at("scaled").at("scaled_runs") == 8);

  const Harnessed b = harnessed(1, allowed);
  CHECK(b.code == 0);
  const json cb = json::parse(b.out).at("comparison");
  CHECK(cb.at("outcome") != "incomparable");
  CHECK(cb.at("per_context").at(0).at("ratio") == 1.0);
  CHECK(cb.at("verdict").get<std::string>().ends_with(
      "; scaled: cycles multiplexed in 8 of 8 runs (running fraction min 0.50, median 0.50); its values are "
      "estimates, compared as asked (--allow-multiplex)"));
  // The journal's report judges as the sweep did.
  const Harnessed again = harnessed(1, {"report", "--json", journal});
  CHECK(again.code == 1);
  CHECK(json::parse(again.out).at("comparison").at("outcome") == "incomparable");

  // With --aa the A/A pair is incomparable for the same reason, said as such: the
  // baseline did not differ from itself.
  const Harnessed aa = harnessed(1, {"compare", "--verbose", "-e", "cycles,l1d", "--env-sizes", "0,400", "-r", "2",
                                     "--seed", "7", "--aa", "--", "/bin/true", ":::", "/bin/true", "x"});
  CHECK(aa.code == 1);
  CHECK(aa.out.find("A/A control: the baseline against itself in the same contexts\n  verdict: incomparable: cycles "
                    "multiplexed in 8 of 8 runs") != std::string::npos);
  CHECK(aa.out.find("the baseline differs from itself") == std::string::npos);
}

TEST_CASE("test PMU harness: a wrapped counter reads negative and is a fault in every run, not a value") {
  if (!harness_models_here()) return;
  // 8,000,000 cycles minus 10,000,000: -2,000,000 as a signed 64-bit count.
  const json faults = cycles_faults_of_measure(2, {"--offset", "0:0=-10000000"});
  CHECK(faults.at(2) ==
        "cycles reads negative (-2000000 as a signed 64-bit count): a wrapped or broken counter (run 3)");
}

TEST_CASE("test PMU harness: a counter that stops counting mid-run is scaled, and bias calls it incomparable") {
  if (!harness_models_here()) return;
  // l1d stops after 1 of the run's 4 ms: time running stops growing, as if multiplexed.
  const std::vector<std::string> stops = {"--stops-at", "3:10000=1000000"};
  const Harnessed m = harnessed(4, {"measure", "-e", "cycles,l1d", "-r", "3", "--json", "/bin/true"}, 2, stops);
  REQUIRE(m.code == 0);
  const json jm = json::parse(m.out);
  CHECK(harness_metric(jm, "cycles").at("running_fraction") == json::array({1.0, 1.0, 1.0}));
  const json& l1d = harness_metric(jm, "l1d");
  CHECK(l1d.at("running_fraction") == json::array({0.25, 0.25, 0.25}));
  CHECK(l1d.at("multiplexed_runs") == 3);
  CHECK(l1d.at("median") == 1'000'000.0);  // 250,000 counted, scaled by 4

  const Harnessed b = harnessed(4, {"bias", "-e", "cycles,l1d", "--env-sizes", "0,400", "-r", "2", "--seed", "7",
                                    "--json", "/bin/true"},
                                2, stops);
  CHECK(b.code == 1);
  const json jb = json::parse(b.out);
  CHECK(harness_analysis(jb, "cycles").at("incomparable") == false);
  CHECK(harness_analysis(jb, "l1d").at("incomparable") == true);
  CHECK(harness_analysis(jb, "l1d").at("scaled").at("text").get<std::string>().starts_with(
      "incomparable: l1d multiplexed in 4 of 4 runs (running fraction min 0.25, median 0.25)"));
}

TEST_CASE("test PMU harness: a resumed bias keeps the journal's --allow-multiplex") {
  if (!harness_models_here()) return;
  TempDir dir;
  const std::string full = (dir.path / "full.jsonl").string(), cut = (dir.path / "cut.jsonl").string();
  const Harnessed first = harnessed(1, {"bias", "-e", "cycles,l1d", "--env-sizes", "0,400", "-r", "3", "--seed", "7",
                                        "--allow-multiplex", "--journal", full, "/bin/true"});
  REQUIRE(first.code == 0);
  // The journal as an interruption after its fifth run leaves it: the last run and the
  // end note gone (every line carries its own checksum, so whole lines may go).
  std::vector<std::string> lines;
  {
    std::ifstream in(full);
    for (std::string line; std::getline(in, line);) lines.push_back(line);
  }
  REQUIRE(lines.size() == 8);  // the manifest, six runs, the end note
  {
    std::ofstream out(cut);
    for (std::size_t i = 0; i + 2 < lines.size(); ++i) out << lines[i] << "\n";
  }
  const Harnessed resumed = harnessed(1, {"bias", "--resume", cut, "--json"});
  CHECK(resumed.code == 0);
  const json j = json::parse(resumed.out);
  CHECK(j.at("allow_multiplex") == true);
  CHECK(j.at("runs").size() == 6);
  CHECK(harness_analysis(j, "cycles").at("incomparable") == false);
  CHECK(harness_analysis(j, "cycles").at("scaled").at("scaled_runs") == 6);
  CHECK(harness_analysis(j, "cycles").at("scaled").at("allowed") == true);
}

TEST_CASE("test PMU harness: a group is read in one PERF_FORMAT_GROUP read, or member by member where refused") {
  if (!harness_models_here()) return;
  // Both read formats give the same exact counts. measure opens the group with
  // inherit (as perf stat does), so where the group read is refused the open of
  // read_format 0xf fails with EINVAL and only the member-by-member fallback can count.
  for (const bool refused : {false, true}) {
    INFO((refused ? "group read refused" : "group read"));
    const std::vector<std::string> model =
        refused ? std::vector<std::string>{"--refuse-group-with-inherit"} : std::vector<std::string>{};
    const Harnessed r = harnessed(4, {"measure", "-e", "{cycles,l1d}", "-r", "2", "--json", "/bin/true"}, 2, model);
    REQUIRE(r.code == 0);
    const json j = json::parse(r.out);
    CHECK(harness_metric(j, "cycles").at("median") == 8'000'000.0);
    CHECK(harness_metric(j, "l1d").at("median") == 1'000'000.0);
    CHECK(harness_metric(j, "l1d").at("running_fraction") == json::array({1.0, 1.0}));
  }
}
