// report/fidelity_report: the answer line, the text and the JSON of fixed fidelity
// results (analysis/fidelity.h on fixed counts).
#include "report/fidelity_report.h"

#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>

using namespace obscheck;

namespace {

const PooledProfile kReference{"reference", 10, {{"work_major", 700}, {"work_minor", 300}, {"main", 5}}};
const PooledProfile kLow{"99 Hz", 1, {{"work_major", 69}, {"work_minor", 31}}};
const PooledProfile kRight{"999 Hz", 3, {{"work_major", 6960}, {"work_minor", 3040}}};
const PooledProfile kWrong{"20000 Hz", 1, {{"work_major", 5200}, {"work_minor", 4800}}};

FidelityRun run_of(std::vector<std::uint64_t> hz) {
  FidelityRun run;
  run.target = {"/bin/split", "1000"};
  run.event = "cpu-clock";
  run.hz = std::move(hz);
  run.rounds = 3;
  run.time_budget = 60;
  return run;
}

}  // namespace

TEST_CASE("fidelity report: the answer says which way, at which dose, with numbers") {
  CHECK(fidelity_answer(assess_fidelity(kReference, {kRight}, {})) ==
        "the profile agrees with the reference within ±5 share points at every dose (10000 samples at the fewest)");
  CHECK(fidelity_answer(assess_fidelity(kReference, {kLow, kRight}, {})) ==
        "undecided: too few samples at 99 Hz to tell within ±5 share points; agrees at 999 Hz");
  CHECK(fidelity_answer(assess_fidelity(kReference, {kRight, kWrong}, {})) ==
        "the profile differs from the reference beyond ±5 share points at 20000 Hz (work_minor 48.0% against 29.9%)");  // the furthest: 18.1 points
}

TEST_CASE("fidelity report: text rows and JSON fields of a fixed result") {
  const FidelityResult r = assess_fidelity(kReference, {kLow, kRight}, {});
  const std::string text = fidelity_text(run_of({99, 999}), r);
  CHECK(text.rfind("obscheck fidelity: /bin/split 1000\n", 0) == 0);
  CHECK(text.find("hot list: work_major 69.7%, work_minor 29.9%") != std::string::npos);
  CHECK(text.find("reference: CPU time per function: perf record -e cpu-clock at a prime rate of 461-523 Hz, a "
                  "different one each round, pooled; 10 runs, 1005 samples; hot list: work_major 69.7%, work_minor 29.9%") !=
        std::string::npos);
  CHECK(text.find("  999 Hz: 3 runs, 10000 samples (0 in functions the reference never sampled); hot list same order; "
                  "agrees\n") != std::string::npos);
  CHECK(text.find("difference -0.1 [-4.0, +4.1]   within ±5 points") != std::string::npos);
  CHECK(text.find("  stopped: the time budget (60 s) stopped them after 3 rounds, with a dose undecided") !=
        std::string::npos);
  CHECK(text.find("  answer: undecided: too few samples at 99 Hz") != std::string::npos);
  const nlohmann::json j = nlohmann::json::parse(fidelity_json(run_of({99, 999}), r));
  CHECK(j.at("schema") == "obscheck-fidelity");
  CHECK(j.at("version") == kFidelityJsonVersion);
  REQUIRE(j.at("doses").size() == 2);
  CHECK(j.at("doses").at(1).at("hz") == 999);
  CHECK(j.at("doses").at(1).at("functions").at(0).at("share") == 0.696);
  CHECK(j.at("doses").at(1).at("agreement") == "agrees");
  CHECK(j.at("agreement") == "undecided");
  CHECK(j.at("reference").at("hot") == nlohmann::json::array({"work_major", "work_minor"}));
  CHECK(j.at("reference").at("runs") == 10);
  CHECK(j.at("doses").at(1).at("runs") == 3);
  CHECK(j.at("rounds") == 3);
  CHECK(j.at("complete") == false);
  CHECK(j.at("interrupted") == false);
  CHECK(j.at("doses").at(1).at("functions").at(0).at("difference_ci").at("lo").get<double>() < 0);
}
