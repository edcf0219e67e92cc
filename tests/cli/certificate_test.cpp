// obscheck report JOURNAL --certificate: a real `perf record` at two frequencies, its
// certificate's JSON checked against docs/certificate-schema.md by a small validator
// written here (every documented key, its type, per-dose intervals, the achieved rate
// or why it is not readable), and its text and HTML forms. Skipped where perf is not
// installed or perf_event_open refuses it.
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <catch2/catch.hpp>
#include <cstdlib>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>
#include <string>

#include "run_cli.h"

using nlohmann::json;
using obscheck::test::run_cli;
using obscheck::test::workload;

namespace {

std::string tmp_dir() {
  std::string templ = "/tmp/obscheck-certificate-test-XXXXXX";
  REQUIRE(mkdtemp(templ.data()) != nullptr);
  return templ;
}

// A range of the schema: null, or {min, max, mean, runs} with min <= mean <= max.
void check_range(const json& r, const std::string& what) {
  INFO(what << " = " << r.dump());
  if (r.is_null()) return;
  REQUIRE(r.is_object());
  for (const char* k : {"min", "max", "mean"}) REQUIRE(r.at(k).is_number());
  REQUIRE(r.at("runs").is_number_unsigned());
  CHECK(r.at("min").get<double>() <= r.at("mean").get<double>() + 1e-9);
  CHECK(r.at("mean").get<double>() <= r.at("max").get<double>() + 1e-9);
}

bool number_or_null(const json& v) { return v.is_number() || v.is_null(); }

void check_dose(const json& d) {
  INFO(d.dump());
  REQUIRE(d.at("level").is_string());
  REQUIRE(d.at("dose").is_number_integer());
  REQUIRE(d.at("profiler_runs").is_boolean());
  REQUIRE(number_or_null(d.at("requested_hz")));
  for (const char* k : {"samples_per_run", "achieved_hz", "profiler_wall_ms", "profiler_cpu_ms", "max_sample_rate"})
    check_range(d.at(k), k);
  if (d.at("profiler_runs").get<bool>() && d.at("achieved_hz").is_null())
    REQUIRE(d.at("achieved_hz_why_not").is_string());
  if (!d.at("profiler_runs").get<bool>()) {
    // No profiler at level 0: none of its cost is reported there.
    CHECK(d.at("profiler_wall_ms").is_null());
    CHECK(d.at("samples_per_run").is_null());
  }
}

void check_per_dose(const json& p) {
  INFO(p.dump());
  for (const char* k : {"level", "verdict", "text", "layout", "scale"}) REQUIRE(p.at(k).is_string());
  REQUIRE(p.at("dose").is_number_integer());
  REQUIRE(p.at("blocks").is_number_unsigned());
  REQUIRE(number_or_null(p.at("effect")));
  REQUIRE(p.at("ci").is_array());
  REQUIRE(p.at("ci").size() == 2);
  REQUIRE(number_or_null(p.at("ci")[0]));
  REQUIRE(number_or_null(p.at("ci")[1]));
  REQUIRE(p.at("ci_level").is_number());
  REQUIRE(number_or_null(p.at("bound")));
  REQUIRE(p.at("margin").is_number());
}

void check_throttling(const json& t) {
  INFO(t.dump());
  const json& rate = t.at("max_sample_rate");
  REQUIRE(rate.at("readable").is_boolean());
  if (rate.at("readable").get<bool>()) {
    REQUIRE(rate.at("highest").is_number());
    REQUIRE(rate.at("lowest").is_number());
    REQUIRE(rate.at("lowered_during_check").is_boolean());
  } else {
    REQUIRE(rate.at("why").is_string());
  }
  const json& log = t.at("kernel_log");
  REQUIRE(log.at("readable").is_boolean());
  REQUIRE(log.at("message") == "perf: interrupt took too long");
  REQUIRE(log.at("scope").is_string());
  if (log.at("readable").get<bool>())
    REQUIRE(log.at("matches").is_number_unsigned());
  else
    REQUIRE(log.at("why").is_string());
}

// docs/certificate-schema.md, key by key.
void validate_certificate(const json& c) {
  REQUIRE(c.at("schema") == "obscheck-certificate");
  REQUIRE(c.at("version") == 1);
  for (const char* k : {"profiler_command", "journal"}) REQUIRE(c.at(k).is_string());
  REQUIRE(c.at("target").is_array());
  for (const char* k : {"margin", "alpha"}) REQUIRE(c.at(k).is_number());
  REQUIRE(c.at("complete").is_boolean());
  REQUIRE(c.at("finished").is_boolean());
  REQUIRE(c.at("undecided").is_array());
  for (const json& u : c.at("undecided")) REQUIRE((u.at("metric").is_string() && u.at("level").is_string()));
  // complete: ran to its end and every verdict decided.
  CHECK(c.at("complete").get<bool>() == (c.at("finished").get<bool>() && c.at("undecided").empty()));
  REQUIRE(c.at("profiler_cost").is_array());
  for (const json& m : c.at("profiler_cost")) {
    CHECK(m.at("scope") == "target + profiler");
    for (const json& d : m.at("per_dose")) {
      REQUIRE(d.at("ci").size() == 2);
      REQUIRE(d.at("text").is_string());
      CHECK_FALSE(d.contains("verdict"));
    }
  }
  for (const char* k : {"measured_blocks", "runs"}) REQUIRE(c.at(k).is_number_unsigned());
  REQUIRE((c.at("overall").is_string() || c.at("overall").is_null()));
  REQUIRE(c.at("exit_code").is_number_integer());
  REQUIRE(c.at("lines").is_array());
  REQUIRE(c.at("warnings").is_array());
  for (const char* k : {"hostname", "kernel", "cpu", "hypervisor"}) REQUIRE(c.at("host").at(k).is_string());
  REQUIRE(c.at("doses").is_array());
  for (const json& d : c.at("doses")) check_dose(d);
  REQUIRE(c.at("metrics").is_array());
  for (const json& m : c.at("metrics")) {
    for (const char* k : {"name", "unit", "scope"}) REQUIRE(m.at(k).is_string());
    REQUIRE(m.at("scope") == "target");  // the profiler's cost is under profiler_cost, never judged
    REQUIRE(m.at("asked").is_boolean());
    for (const json& p : m.at("per_dose")) check_per_dose(p);
  }
  check_throttling(c.at("throttling"));
}

const json& dose(const json& c, const std::string& level) {
  for (const json& d : c.at("doses"))
    if (d.at("level") == level) return d;
  FAIL("no dose " << level);
  return c;
}

}  // namespace

TEST_CASE("certificate: perf record at two frequencies, checked against its schema") {
  if (access("/usr/bin/perf", X_OK) != 0) {
    WARN("SKIPPED: perf is not installed (tools/bootstrap installs linux-perf)");
    return;
  }
  const std::string dir = tmp_dir();
  const std::string journal = dir + "/perf.jsonl";
  if (std::system(("perf record -q -F 99 -o " + dir + "/probe.data -- /bin/true >/dev/null 2>&1").c_str()) != 0) {
    WARN("SKIPPED: perf record cannot sample here (perf_event_open refused: see perf_event_paranoid)");
    std::system(("rm -rf " + dir).c_str());
    return;
  }
  // perf writes a data file (not /dev/null) so that it says how many samples it took.
  auto r = run_cli({"--observer-cmd", "perf record -F {level} -o " + dir + "/p-{level}.data --", "--levels",
                    "0,99,999", "--runs", "4", "--margin", "0.25", "--journal", journal, "--", workload("compute"),
                    "3000"});
  INFO(r.err);
  REQUIRE((r.code == 0 || r.code == 1));

  auto j = run_cli({"report", journal, "--certificate", "--json"});
  INFO(j.err);
  REQUIRE((j.code == 0 || j.code == 1));
  const json c = json::parse(j.out);
  validate_certificate(c);
  CHECK(c.at("profiler_command") == "perf record -F {level} -o " + dir + "/p-{level}.data --");
  REQUIRE(c.at("doses").size() == 3);
  CHECK(dose(c, "0[bare]").at("profiler_runs") == false);
  for (const auto& [level, hz] : {std::pair{"99", 99.0}, {"999", 999.0}}) {
    const json& d = dose(c, level);
    INFO(d.dump());
    CHECK(d.at("requested_hz").get<double>() == hz);
    CHECK(d.at("profiler_wall_ms").is_object());
    // perf record says how many samples it took when it writes a file: the achieved
    // rate is read. Its value depends on the host (a VM's cpu-clock, throttling):
    // only that it is a rate is asserted, not how close it comes.
    REQUIRE(d.at("achieved_hz").is_object());
    CHECK(d.at("achieved_hz").at("mean").get<double>() > 0);
  }
  // Every metric on the target has its answer at both frequencies, as numbers.
  bool task_clock = false;
  for (const json& m : c.at("metrics"))
    if (m.at("name") == "task-clock") {
      task_clock = true;
      CHECK(m.at("scope") == "target");
      REQUIRE(m.at("per_dose").size() == 2);
      for (const json& p : m.at("per_dose")) CHECK(p.at("effect").is_number());
    }
  CHECK(task_clock);

  auto text = run_cli({"report", journal, "--certificate"});
  CHECK_THAT(text.out, Catch::Contains("profiler setup certificate"));
  CHECK_THAT(text.out, Catch::Contains("99: requested 99 Hz, achieved "));
  CHECK_THAT(text.out, Catch::Contains("kernel throttling:"));
  auto page = run_cli({"report", journal, "--certificate", "--html", dir + "/cert.html"});
  REQUIRE((page.code == 0 || page.code == 1));
  std::ifstream in(dir + "/cert.html");
  std::stringstream html;
  html << in.rdbuf();
  CHECK_THAT(html.str(), Catch::Contains("<svg"));
  CHECK_THAT(html.str(), Catch::Contains("Profiler setup certificate"));
  std::system(("rm -rf " + dir).c_str());
}

TEST_CASE("certificate: a journal of another observer is refused with the way to make one") {
  const std::string dir = tmp_dir();
  const std::string journal = dir + "/counters.jsonl";
  auto r = run_cli({"--counters", "task-clock", "--runs", "3", "--journal", journal, "--", workload("compute"), "10"});
  REQUIRE((r.code == 0 || r.code == 1));
  auto c = run_cli({"report", journal, "--certificate"});
  CHECK(c.code == 2);
  CHECK_THAT(c.err, Catch::Contains("--observer-cmd"));
  std::system(("rm -rf " + dir).c_str());
}

TEST_CASE("certificate: a check stopped by its cap undecided is not complete, keeps every warning, and --ci fails it") {
  const std::string dir = tmp_dir();
  const std::string journal = dir + "/capped.jsonl";
  // A wrapper that observes nothing, a margin no 3 blocks can show: verdicts stay undecided.
  auto r = run_cli({"--json", "--ci", "--observer-cmd", workload("wrapper") + " 1 --", "--levels", "0,1", "--margin",
                    "0.0001", "--max-runs", "3", "--seed", "7", "--journal", journal, "--", workload("compute"), "10"});
  INFO(r.err);
  // --ci fails closed: an undecided verdict exits 1, as perturbed would.
  REQUIRE(r.code == 1);
  const json live = json::parse(r.out);
  std::vector<std::string> live_warnings = live.at("context").at("warnings").get<std::vector<std::string>>();
  bool capped = false;
  for (const std::string& w : live_warnings) capped = capped || w.find("stopped at the cap of 3") != std::string::npos;
  CHECK(capped);

  // The certificate made later from the journal: not complete, the undecided named,
  // and every warning the live check printed.
  auto j = run_cli({"report", journal, "--certificate", "--json"});
  INFO(j.err);
  REQUIRE((j.code == 0 || j.code == 1));
  const json c = json::parse(j.out);
  validate_certificate(c);
  CHECK(c.at("finished") == true);
  CHECK(c.at("complete") == false);
  CHECK_FALSE(c.at("undecided").empty());
  const auto cert_warnings = c.at("warnings").get<std::vector<std::string>>();
  for (const std::string& w : live_warnings) {
    INFO(w);
    CHECK(std::find(cert_warnings.begin(), cert_warnings.end(), w) != cert_warnings.end());
  }
  auto text = run_cli({"report", journal, "--certificate"});
  CHECK_THAT(text.out, Catch::Contains("NOT COMPLETE"));

  // obscheck report carries them too, and --ci fails it as the live check did.
  auto rep = run_cli({"report", journal, "--json", "--ci"});
  CHECK(rep.code == 1);
  const auto report_warnings = json::parse(rep.out).at("context").at("warnings").get<std::vector<std::string>>();
  for (const std::string& w : live_warnings) {
    INFO(w);
    CHECK(std::find(report_warnings.begin(), report_warnings.end(), w) != report_warnings.end());
  }
  CHECK(run_cli({"report", journal, "--ci", "--fail-on", "perturbed"}).code == 2);
  std::system(("rm -rf " + dir).c_str());
}
