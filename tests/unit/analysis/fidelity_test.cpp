// analysis/fidelity: exact shares, intervals and verdicts on fixed counts. The expected
// numbers were computed apart from this code (the Wilson and Newcombe formulas and the
// normal quantile in Python's statistics.NormalDist, double precision).
#include "analysis/fidelity.h"

#include <catch2/catch.hpp>

#include "util/error.h"

using namespace obscheck;

namespace {

bool close(double a, double b) { return std::fabs(a - b) <= 1e-12 * std::max(1.0, std::fabs(b)); }

// A 70/30 program with a sliver of start-up, its reference pooled over 10 runs; three
// doses: too few samples to tell, right, and wrong (with a function the profile alone
// puts on its hot list).
const PooledProfile kReference{"reference", 10, {{"work_major", 700}, {"work_minor", 300}, {"main", 5}}};
const std::vector<PooledProfile> kProfiles = {
    {"99 Hz", 1, {{"work_major", 69}, {"work_minor", 31}, {"[k] clear_page", 1}}},
    {"999 Hz", 3, {{"work_major", 6960}, {"work_minor", 3040}}},
    {"20000 Hz", 1, {{"work_major", 5200}, {"work_minor", 4700}, {"main", 100}}},
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

TEST_CASE("fidelity: the share of the program's own samples without a name") {
  CHECK(unnamed_share({{"[unknown]", 90}, {"[k] clear_page", 50}, {"_start", 10}}) == 0.9);  // the kernel's aside
  CHECK(unnamed_share({{"work", 10}}) == 0.0);
  CHECK(unnamed_share({{"[k] clear_page", 5}}) == 0.0);
  CHECK(unnamed_share({}) == 0.0);
}

TEST_CASE("fidelity: shares, intervals and verdicts per dose against a sampled reference, exact on fixed counts") {
  const FidelityResult r = assess_fidelity(kReference, kProfiles, FidelityOptions{});
  CHECK(r.reference_total == 1005);
  CHECK(r.reference_runs == 10);
  CHECK(r.reference_hot == std::vector<std::string>{"work_major", "work_minor"});  // main: 0.5% < 1%
  // Bonferroni over 2 + 2 + 3 intervals at 95%, look 1 spending 6/π² of 5%.
  CHECK(close(r.z, 2.852159073179536));
  REQUIRE(r.doses.size() == 3);

  const DoseFidelity& low = r.doses[0];
  CHECK(low.runs == 1);
  CHECK(low.samples == 101);
  CHECK(low.outside == 1);  // the kernel's sample: never in the reference, below 1%: not compared
  CHECK(low.hot_list == HotListMatch::same_order);
  REQUIRE(low.functions.size() == 2);
  const ShareCheck& major = low.functions[0];
  CHECK(major.function == "work_major");
  CHECK(close(major.reference, 700.0 / 1005));
  CHECK(close(major.ref_lo, 0.6537115968305632));
  CHECK(close(major.ref_hi, 0.7361674158770012));
  CHECK(close(major.share, 69.0 / 101));
  CHECK(close(major.lo, 0.5417639789791202));
  CHECK(close(major.hi, 0.797266249163231));
  CHECK(close(major.diff_lo, -0.16020722320866917));
  CHECK(close(major.diff_hi, 0.10851425382048174));
  CHECK(major.agreement == Agreement::undecided);  // 101 samples cannot show ±5 points
  CHECK(low.agreement == Agreement::undecided);

  const DoseFidelity& mid = r.doses[1];
  REQUIRE(mid.functions.size() == 2);
  CHECK(close(mid.functions[0].diff_lo, -0.042330472855358944));
  CHECK(close(mid.functions[0].diff_hi, 0.044206065793718226));
  CHECK(close(mid.functions[1].diff_lo, -0.039085698200876234));
  CHECK(close(mid.functions[1].diff_hi, 0.04708598010767095));
  CHECK(mid.agreement == Agreement::agrees);

  const DoseFidelity& high = r.doses[2];
  CHECK(high.hot == std::vector<std::string>{"work_major", "work_minor", "main"});
  CHECK(high.hot_list == HotListMatch::differs);
  REQUIRE(high.functions.size() == 3);
  CHECK(high.functions[0].agreement == Agreement::differs);
  CHECK(close(high.functions[0].diff_hi, -0.13140915233078768));
  CHECK(high.functions[2].function == "main");
  CHECK(close(high.functions[2].diff_lo, -0.0066659143144369715));
  CHECK(close(high.functions[2].diff_hi, 0.009793954114199173));
  CHECK(high.functions[2].agreement == Agreement::agrees);
  CHECK(high.agreement == Agreement::differs);

  CHECK(r.agreement == Agreement::differs);
  CHECK(close(r.spread, 0.696 - 0.52));  // work_major: 69.6% at 999 Hz, 52% at 20000 Hz
  CHECK(r.spread_function == "work_major");
  CHECK_FALSE(r.stable);
}

TEST_CASE("fidelity: a later look spends less of the level, so its intervals are wider") {
  const FidelityResult first = assess_fidelity(kReference, kProfiles, FidelityOptions{}, 1);
  const FidelityResult third = assess_fidelity(kReference, kProfiles, FidelityOptions{}, 3);
  CHECK(third.look == 3);
  CHECK(close(third.z, 3.4902982114725134));  // 5% · 6/(9π²) over 7 intervals
  CHECK(third.doses[1].functions[0].diff_hi > first.doses[1].functions[0].diff_hi);
  CHECK(third.doses[1].agreement == Agreement::undecided);  // ±5 points no longer shown at this level
}

TEST_CASE("fidelity: a function the reference never sampled is compared with a share of 0") {
  const FidelityResult r =
      assess_fidelity(kReference, {{"4000 Hz", 1, {{"work_major", 500}, {"work_minor", 200}, {"spin", 300}}}}, {});
  REQUIRE(r.doses.at(0).functions.size() == 3);
  const ShareCheck& spin = r.doses[0].functions[2];
  CHECK(spin.function == "spin");
  CHECK(spin.reference == 0);
  CHECK(spin.agreement == Agreement::differs);
  CHECK(r.doses[0].outside == 300);
}

TEST_CASE("fidelity: bad options, look 0 and an empty reference are usage errors") {
  FidelityOptions o;
  o.tolerance = 0;
  CHECK_THROWS_AS(assess_fidelity(kReference, kProfiles, o), Error);
  o = FidelityOptions{};
  o.top = 0;
  CHECK_THROWS_AS(assess_fidelity(kReference, kProfiles, o), Error);
  CHECK_THROWS_AS(assess_fidelity(kReference, kProfiles, FidelityOptions{}, 0), Error);
  CHECK_THROWS_AS(assess_fidelity({"reference", 1, {{"f", 0}}}, kProfiles, FidelityOptions{}), Error);
}

TEST_CASE("fidelity: a dose settled at an earlier look keeps that look's verdict in the table") {
  FidelityResult later = assess_fidelity(kReference, kProfiles, FidelityOptions{}, 3);
  REQUIRE(later.doses[1].agreement == Agreement::undecided);  // wider at look 3
  const FidelityResult first = assess_fidelity(kReference, kProfiles, FidelityOptions{}, 1);
  keep_settled(later, {std::nullopt, first.doses[1], std::nullopt});
  CHECK(later.doses[1].agreement == Agreement::agrees);
  CHECK(close(later.doses[1].functions[0].diff_hi, 0.044206065793718226));  // look 1's interval
  CHECK(later.agreement == Agreement::differs);  // 20000 Hz still differs
  CHECK(later.spread_function == "work_major");
  CHECK_THROWS_AS(keep_settled(later, {std::nullopt}), Error);
}
