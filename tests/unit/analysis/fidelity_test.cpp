// analysis/fidelity: exact shares, intervals and verdicts on fixed counts. The expected
// numbers were computed apart from this code (the Wilson formula and the normal
// quantile in Python's statistics.NormalDist, double precision).
#include "analysis/fidelity.h"

#include <catch2/catch.hpp>

#include "util/error.h"

using namespace obscheck;

namespace {

bool close(double a, double b) { return std::fabs(a - b) <= 1e-12 * std::max(1.0, std::fabs(b)); }

// A 70/30 program with a sliver of start-up; three doses: too few samples to tell,
// right, and wrong (with a function the profile alone puts on its hot list).
const FunctionCounts kReference = {{"work_major", 700}, {"work_minor", 300}, {"main", 5}};
const std::vector<std::pair<std::string, FunctionCounts>> kProfiles = {
    {"99 Hz", {{"work_major", 69}, {"work_minor", 31}, {"[k] clear_page", 4}}},
    {"999 Hz", {{"work_major", 6960}, {"work_minor", 3040}}},
    {"20000 Hz", {{"work_major", 5200}, {"work_minor", 4700}, {"main", 100}}},
};

}  // namespace

TEST_CASE("fidelity: Wilson interval of fixed counts") {
  const auto [lo, hi] = wilson_interval(69, 100, 2.690109527158866);
  CHECK(close(lo, 0.5563514955172835));
  CHECK(close(hi, 0.7980048377428117));
  const auto none = wilson_interval(0, 0, 1.96);
  CHECK(none.first == 0.0);
  CHECK(none.second == 1.0);
}

TEST_CASE("fidelity: hot list, largest first, ties by name, below the smallest share left out") {
  const FunctionCounts c = {{"b", 10}, {"a", 10}, {"c", 50}, {"tiny", 0.5}};
  CHECK(hot_list(c, 70.5, 5, 0.01) == std::vector<std::string>{"c", "a", "b"});
  CHECK(hot_list(c, 70.5, 2, 0.01) == std::vector<std::string>{"c", "a"});
  CHECK(hot_list(c, 70.5, 5, 0.001) == std::vector<std::string>{"c", "a", "b", "tiny"});
}

TEST_CASE("fidelity: shares, intervals and verdicts per dose, exact on fixed counts") {
  const FidelityResult r = assess_fidelity(kReference, kProfiles, FidelityOptions{});
  CHECK(r.reference_total == 1005);
  CHECK(r.reference_hot == std::vector<std::string>{"work_major", "work_minor"});  // main: 0.5% < 1%
  // Bonferroni over 2 + 2 + 3 intervals at 95%.
  CHECK(close(r.z, 2.690109527158866));
  REQUIRE(r.doses.size() == 3);

  const DoseFidelity& low = r.doses[0];
  CHECK(low.samples == 104);
  CHECK(low.outside == 4);  // the kernel's sample: not in the reference
  CHECK(low.hot_list == HotListMatch::same_order);
  REQUIRE(low.functions.size() == 2);
  CHECK(low.functions[0].function == "work_major");
  CHECK(close(low.functions[0].reference, 700.0 / 1005));
  CHECK(close(low.functions[0].share, 0.69));
  CHECK(close(low.functions[0].lo, 0.5563514955172835));
  CHECK(close(low.functions[0].hi, 0.7980048377428117));
  CHECK(low.functions[0].agreement == Agreement::undecided);  // 100 samples cannot show ±5 points
  CHECK(low.agreement == Agreement::undecided);

  const DoseFidelity& mid = r.doses[1];
  REQUIRE(mid.functions.size() == 2);
  CHECK(close(mid.functions[1].lo, 0.2917713634754339));
  CHECK(close(mid.functions[1].hi, 0.31651210960321735));
  CHECK(mid.agreement == Agreement::agrees);

  const DoseFidelity& high = r.doses[2];
  CHECK(high.hot == std::vector<std::string>{"work_major", "work_minor", "main"});
  CHECK(high.hot_list == HotListMatch::differs);
  REQUIRE(high.functions.size() == 3);
  CHECK(high.functions[0].agreement == Agreement::differs);
  CHECK(close(high.functions[0].hi, 0.533420467423833));
  CHECK(high.functions[2].function == "main");
  CHECK(close(high.functions[2].lo, 0.007655323134539203));
  CHECK(high.functions[2].agreement == Agreement::agrees);
  CHECK(high.agreement == Agreement::differs);

  CHECK(r.agreement == Agreement::differs);
  CHECK(close(r.spread, 0.696 - 0.52));  // work_major: 69.6% at 999 Hz, 52% at 20000 Hz
  CHECK(r.spread_function == "work_major");
  CHECK_FALSE(r.stable);
}

TEST_CASE("fidelity: the right profile at every dose is stable and agrees") {
  const FidelityResult r = assess_fidelity(kReference, {kProfiles[1], {"4000 Hz", {{"work_major", 7020}, {"work_minor", 2970}, {"main", 10}}}},
                                           FidelityOptions{});
  CHECK(r.agreement == Agreement::agrees);
  CHECK(r.stable);
  CHECK(close(r.spread, 0.304 - 0.297));
  CHECK(r.spread_function == "work_minor");
}

TEST_CASE("fidelity: bad options and an empty reference are usage errors") {
  FidelityOptions o;
  o.tolerance = 0;
  CHECK_THROWS_AS(assess_fidelity(kReference, kProfiles, o), Error);
  o = FidelityOptions{};
  o.top = 0;
  CHECK_THROWS_AS(assess_fidelity(kReference, kProfiles, o), Error);
  CHECK_THROWS_AS(assess_fidelity({{"f", 0}}, kProfiles, FidelityOptions{}), Error);
}
