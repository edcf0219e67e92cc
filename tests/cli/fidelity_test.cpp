// obscheck fidelity run as a user runs it. On the bundled `timesplit` workload, whose two
// functions take 70% and 30% of its CPU time by its own thread clock while running at
// very different instructions per cycle, the reference finds the time split and perf
// record's profile at a low rate agrees with it, in numbers. A stripped program is
// refused ("cannot compare: no symbols", exit 3) before anything runs; a rate is checked
// as the check checks it (exit 4 above kernel.perf_event_max_sample_rate). Needs perf
// record with a software clock event; skipped where it is missing or refused.
#include <sys/stat.h>
#include <unistd.h>

#include <catch2/catch.hpp>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>

#include "run_cli.h"

using nlohmann::json;
using obscheck::test::run_cli;
using obscheck::test::contains;
using obscheck::test::workload;

namespace fs = std::filesystem;

namespace {


const json* function_of(const json& dose, const std::string& name) {
  for (const json& f : dose.at("functions"))
    if (f.at("function") == name) return &f;
  return nullptr;
}

}  // namespace

TEST_CASE("fidelity: a known 70/30 split of CPU time is the reference's, and a 199 Hz profile agrees, in numbers") {
  // A second of CPU a run: about 500 reference samples (at ~500 Hz) and 200 at 199 Hz a
  // round; ±10 share points are shown in two or three rounds.
  auto r = run_cli({"fidelity", "--sample-freq", "199", "--tolerance", "0.1", "--time-budget", "120", "--json", "--",
                    workload("timesplit"), "1000", "70"});
  if (r.code == 7) {
    WARN("SKIPPED: perf record cannot run here: " << r.err);
    return;
  }
  INFO(r.out << r.err);
  REQUIRE(r.code == 0);
  const json j = json::parse(r.out);
  CHECK(j.at("schema") == "obscheck-fidelity");
  CHECK(j.at("version") == 2);
  CHECK(j.at("event") == "cpu-clock");
  CHECK(j.at("reference").at("hot").at(0) == "time_slow");
  CHECK(j.at("reference").at("hot").at(1) == "time_fast");
  CHECK(j.at("complete") == true);
  REQUIRE(j.at("doses").size() == 1);
  const json& dose = j.at("doses").at(0);
  CHECK(dose.at("hz") == 199);
  CHECK(dose.at("runs") == j.at("rounds"));
  const json* slow = function_of(dose, "time_slow");
  const json* fast = function_of(dose, "time_fast");
  REQUIRE(slow != nullptr);
  REQUIRE(fast != nullptr);
  // The reference measures time: of its samples in the two functions, time_slow's
  // share has the program's own split, 70% by its thread clock, inside its Wilson
  // interval at z = 3 (the rest of its samples are the kernel's, in the clock reads and
  // the program's start). An instruction count would give time_slow far less.
  const double total = j.at("reference").at("samples").get<double>();
  const double k = slow->at("reference").get<double>() * total;
  const double n = k + fast->at("reference").get<double>() * total;
  const double p = k / n, z = 3, z2 = z * z;
  const double centre = (p + z2 / (2 * n)) / (1 + z2 / n);
  const double half = z / (1 + z2 / n) * std::sqrt(p * (1 - p) / n + z2 / (4 * n * n));
  INFO("time_slow: " << k << " of " << n << " samples in the two functions");
  CHECK(centre - half <= 0.70);
  CHECK(centre + half >= 0.70);
  CHECK(slow->at("agreement") == "agrees");
  CHECK(dose.at("agreement") == "agrees");
  CHECK(j.at("agreement") == "agrees");
  CHECK(contains(j.at("answer").get<std::string>(),
                 "the profile agrees with the reference within ±10 share points at every dose"));
}

TEST_CASE("fidelity: a stripped program is refused, cannot compare: no symbols, before anything runs") {
  const fs::path dir = fs::temp_directory_path() / ("obscheck-fidelity-strip-" + std::to_string(::getpid()));
  fs::create_directories(dir);
  const fs::path prog = dir / "split";
  fs::copy_file(workload("split"), prog, fs::copy_options::overwrite_existing);
  REQUIRE(std::system(("strip " + prog.string()).c_str()) == 0);
  const auto r = run_cli({"fidelity", "--", prog.string(), "1"});
  fs::remove_all(dir);
  INFO(r.out << r.err);
  CHECK(r.code == 3);
  CHECK(contains(r.err, "cannot compare: no symbols"));
  CHECK_FALSE(contains(r.out, "agrees"));
}

TEST_CASE("fidelity: a rate is checked as the check checks it") {
  for (const std::string rate : {"200000", "18446744073709551615"}) {
    const auto fid = run_cli({"fidelity", "--sample-freq", rate, "--", workload("split"), "1"});
    const auto check = run_cli({"check", "--sample-freq", rate, "--", workload("split"), "1"});
    INFO(rate << ": " << fid.err << " / " << check.err);
    CHECK(fid.code == 4);  // above kernel.perf_event_max_sample_rate (perf caps it at 100000)
    CHECK(fid.code == check.code);
    CHECK(contains(fid.err, "above kernel.perf_event_max_sample_rate"));
    CHECK_FALSE(contains(fid.out, "agrees"));
  }
  const auto beyond = run_cli({"fidelity", "--sample-freq", "18446744073709551616", "--", workload("split"), "1"});
  CHECK(beyond.code == 2);
}

TEST_CASE("fidelity: bad input is a usage error before anything runs") {
  CHECK(run_cli({"fidelity"}).code == 2);  // no program
  CHECK(run_cli({"fidelity", "--sample-freq", "0", "--", workload("split"), "1"}).code == 2);
  CHECK(run_cli({"fidelity", "--tolerance", "2", "--", workload("split"), "1"}).code == 2);
  CHECK(run_cli({"fidelity", "--top", "0", "--", workload("split"), "1"}).code == 2);
  CHECK(run_cli({"fidelity", "--time-budget", "auto", "--", workload("split"), "1"}).code == 2);
  CHECK(run_cli({"fidelity", "--time-budget", "-1", "--", workload("split"), "1"}).code == 2);
  const auto missing = run_cli({"fidelity", "--", "/nonexistent/prog"});
  CHECK(missing.code == 3);
}
