// obscheck fidelity run as a user runs it, on the bundled `split` workload, whose two
// functions do 70% and 30% of the same work: perf record's profile at a low rate
// agrees with cachegrind's instruction shares, and the report says so with numbers.
// Needs perf record with a software clock event and valgrind; skipped where either is
// missing or refused.
#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>

#include "run_cli.h"

using nlohmann::json;
using obscheck::test::run_cli;
using obscheck::test::workload;

namespace {

bool contains(const std::string& s, const std::string& part) { return s.find(part) != std::string::npos; }

}  // namespace

TEST_CASE("fidelity: perf record's profile of a 70/30 split agrees with cachegrind's at 999 Hz, in numbers") {
  // 1.5 billion steps: about 1.5 s of CPU here, so about 1,500 samples at 999 Hz, whose
  // intervals (±3 points) fit inside ±10 points with room for the sampling error.
  auto r = run_cli({"fidelity", "--sample-freq", "999", "--tolerance", "0.1", "--json", "--", workload("split"),
                    "1500"});
  if (r.code == 7) {
    WARN("SKIPPED: perf record or valgrind cannot run here: " << r.err);
    return;
  }
  INFO(r.out << r.err);
  REQUIRE(r.code == 0);
  const json j = json::parse(r.out);
  CHECK(j.at("schema") == "obscheck-fidelity");
  CHECK(j.at("event") == "cpu-clock");
  CHECK(j.at("reference").at("hot") == json::array({"work_major", "work_minor"}));
  REQUIRE(j.at("doses").size() == 1);
  const json& dose = j.at("doses").at(0);
  CHECK(dose.at("hz") == 999);
  CHECK(dose.at("hot_list") == "same order");
  CHECK(dose.at("samples").get<double>() > 500);
  const json& major = dose.at("functions").at(0);
  CHECK(major.at("function") == "work_major");
  CHECK(major.at("reference").get<double>() == Approx(0.7).margin(0.005));  // the split, counted exactly
  CHECK(major.at("share").get<double>() == Approx(0.7).margin(0.1));
  CHECK(major.at("ci").at("lo").get<double>() <= major.at("share").get<double>());
  CHECK(major.at("agreement") == "agrees");
  CHECK(j.at("agreement") == "agrees");
  CHECK(contains(j.at("answer").get<std::string>(),
                 "the profile agrees with the reference within ±10 share points at every dose"));
}

TEST_CASE("fidelity: bad input is a usage error before anything runs") {
  CHECK(run_cli({"fidelity"}).code == 2);  // no program
  CHECK(run_cli({"fidelity", "--sample-freq", "0", "--", workload("split"), "1"}).code == 2);
  CHECK(run_cli({"fidelity", "--tolerance", "2", "--", workload("split"), "1"}).code == 2);
  CHECK(run_cli({"fidelity", "--top", "0", "--", workload("split"), "1"}).code == 2);
  const auto missing = run_cli({"fidelity", "--", "/nonexistent/prog"});
  CHECK(missing.code != 0);
  CHECK(missing.code != 1);
}
