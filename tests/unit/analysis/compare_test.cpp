// analysis/compare: the four outcomes of Rechistov, "Pitfalls of measuring software performance" on synthetic contexts whose
// answer is known, and the paper's "1.007 ± 0.003" form.
#include "analysis/compare.h"

#include <catch2/catch.hpp>
#include <cmath>

using obscheck::compare_variants;
using obscheck::ContextPair;
using obscheck::Outcome;
using obscheck::paper_form;
using obscheck::VariantRun;

namespace {

std::vector<VariantRun> runs(std::vector<double> values, const std::string& digest = "d0",
                             const std::string& status = "exited with code 0") {
  std::vector<VariantRun> out;
  for (double v : values) out.push_back({v, status == "exited with code 0", status, digest});
  return out;
}

// Six contexts with baseline runs around 100 + c (the context effect) and the
// contender's runs = baseline * factor[c].
std::vector<ContextPair> contexts(const std::vector<double>& factor) {
  std::vector<ContextPair> cs;
  for (std::size_t c = 0; c < factor.size(); ++c) {
    const double b = 100.0 + static_cast<double>(c);
    std::vector<double> base = {b - 1, b, b + 1}, cont;
    for (double x : base) cont.push_back(x * factor[c]);
    cs.push_back({c, "env+" + std::to_string(2 + 390 * c), runs(base), runs(cont), ""});
  }
  return cs;
}

}  // namespace

TEST_CASE("compare: a contender 10% slower in every context is worse") {
  const auto cs = contexts({1.1, 1.1, 1.1, 1.1, 1.1, 1.1});
  const auto r = compare_variants(cs);
  CHECK(r.outcome == Outcome::worse);
  CHECK(r.contexts == 6);
  CHECK(r.ratio == Approx(1.1));
  CHECK(r.speedup == Approx(1 / 1.1));
  // Every context ratio is exactly 1.1, so the t interval is the point itself.
  CHECK(r.ratio_ci.lo == Approx(1.1));
  CHECK(r.ratio_ci.hi == Approx(1.1));
  REQUIRE(r.bootstrap.has_value());
  CHECK(r.bootstrap->percentile.lo > 1);
  CHECK(r.per_context[3].ratio == Approx(1.1));
  CHECK(r.verdict == "worse: the contender takes 10.0% more");
}

TEST_CASE("compare: a contender 10% faster in every context is better") {
  const auto r = compare_variants(contexts({0.9, 0.9, 0.9, 0.9, 0.9, 0.9}));
  CHECK(r.outcome == Outcome::better);
  CHECK(r.speedup == Approx(1 / 0.9));
  CHECK(std::string(obscheck::outcome_name(r.outcome)) == "better");
}

TEST_CASE("compare: identical variants are no significant difference, shown equivalent") {
  const auto r = compare_variants(contexts({1, 1, 1, 1, 1, 1}));
  CHECK(r.outcome == Outcome::equivalent);
  CHECK(r.ratio == Approx(1));
  REQUIRE(r.tost.has_value());
  CHECK(r.tost->equivalent);
  CHECK(std::string(obscheck::outcome_name(r.outcome)) == "no significant difference");
}

TEST_CASE("compare: context-dependent noise of +-5% is no significant difference, not shown equivalent") {
  // d = ln(factor): mean of ln(1.05, 0.95, 1.05, 0.95, 1.05, 0.96) is ~0.0016, its
  // standard error ~0.022: the 95% CI holds 1 and is far wider than +-1%.
  const auto r = compare_variants(contexts({1.05, 0.95, 1.05, 0.95, 1.05, 0.96}));
  CHECK(r.outcome == Outcome::no_difference);
  CHECK(r.ratio_ci.contains(1));
  CHECK_THAT(r.verdict, Catch::StartsWith("no significant difference (not shown equivalent within ±1%"));
}

TEST_CASE("compare: differing exit statuses or outputs make the variants incomparable") {
  auto cs = contexts({1, 1, 1});
  cs[1].contender = runs({100, 100, 100}, "d0", "exited with code 1");
  cs[1].contender[0].ok = false;
  cs[1].contender[1].ok = false;
  cs[1].contender[2].ok = false;
  auto r = compare_variants(cs);
  CHECK(r.outcome == Outcome::incomparable);
  REQUIRE(r.reasons.size() == 1);
  CHECK(r.reasons[0] == "context env+392: the baseline exited with code 0 but the contender exited with code 1");

  auto ds = contexts({1, 1, 1});
  ds[2].contender = runs({102, 102, 102}, "ffffffffffffffff");
  r = compare_variants(ds);
  CHECK(r.outcome == Outcome::incomparable);
  CHECK_THAT(r.verdict, Catch::Contains("the output differs"));

  // A variant whose own output varies from run to run (an address, a time) is not
  // judged by its output; a note says so.
  auto vs = contexts({1, 1, 1});
  vs[0].baseline[1].digest = "other";
  r = compare_variants(vs);
  CHECK(r.outcome == Outcome::equivalent);
  CHECK_THAT(r.notes.at(0), Catch::Contains("output not compared in 1 context"));
}

TEST_CASE("compare: contexts failing alike are left out, fewer than two left is incomparable") {
  auto cs = contexts({1.1, 1.1, 1.1});
  for (auto* side : {&cs[0].baseline, &cs[0].contender})
    for (auto& run : *side) {
      run.ok = false;
      run.status = "was killed by signal 11 (Segmentation fault)";
    }
  auto r = compare_variants(cs);
  CHECK(r.contexts == 2);
  CHECK(r.outcome == Outcome::worse);
  CHECK_THAT(r.notes.at(0), Catch::Contains("left out: both variants was killed by signal 11"));

  cs[1].failure = "the link command exited with code 1";
  r = compare_variants(cs);
  CHECK(r.outcome == Outcome::incomparable);
  CHECK_THAT(r.verdict, Catch::Contains("only 1 context(s)"));
}

TEST_CASE("compare: the paper's form") {
  CHECK(paper_form(1.007, 0.003) == "1.007 ± 0.003");
  CHECK(paper_form(0.98765, 0.0124) == "0.988 ± 0.012");
  CHECK(paper_form(1.0, 0.00004) == "1.00000 ± 0.00004");
}

TEST_CASE("compare: variants whose outputs differ are named, and compared with allow_output_diff") {
  // gzip -1 against gzip -9: every context prints a different output, legitimately.
  auto cs = contexts({1.1, 1.1, 1.1, 1.1, 1.1, 1.1});
  for (auto& c : cs)
    for (auto& r : c.contender) r.digest = "ffffffffffffffff";
  auto r = compare_variants(cs);
  CHECK(r.outcome == Outcome::incomparable);
  CHECK_THAT(r.verdict, Catch::Contains("the variants' outputs differ in 6 of 6 context(s)"));
  CHECK_THAT(r.verdict, Catch::Contains("--allow-output-diff"));

  obscheck::CompareOptions o;
  o.allow_output_diff = true;
  r = compare_variants(cs, o);
  CHECK(r.outcome == Outcome::worse);
  CHECK(r.contexts == 6);
  bool noted = false;
  for (const auto& n : r.notes) noted = noted || n.find("outputs differ in 6 of 6 context(s): compared anyway") != std::string::npos;
  CHECK(noted);
}

TEST_CASE("compare: a multiplexed counter makes the comparison incomparable, named, unless allowed") {
  // The 10%-slower contender of the first case, with the counter counted for half of
  // two runs and 0.8 of one (running fractions of the six contexts' 36 runs).
  auto cs = contexts({1.1, 1.1, 1.1, 1.1, 1.1, 1.1});
  cs[1].baseline[0].running = 0.5;
  cs[4].contender[2].running = 0.5;
  cs[5].contender[0].running = 0.8;
  obscheck::CompareOptions o;
  o.metric = "cycles";
  const auto strict = compare_variants(cs, o);
  CHECK(strict.outcome == Outcome::incomparable);
  CHECK(strict.scaled.runs == 36);
  CHECK(strict.scaled.scaled_runs == 3);
  CHECK(strict.scaled.running_min == 0.5);
  CHECK(strict.scaled.running_median == 1.0);
  CHECK(strict.verdict ==
        "incomparable: cycles multiplexed in 3 of 36 runs (running fraction min 0.50, median 1.00); its values are "
        "estimates scaled up from part of each run, not counts (fewer counters, or --allow-multiplex to compare the "
        "estimates)");
  CHECK_FALSE(strict.t.has_value());

  o.allow_multiplex = true;
  const auto allowed = compare_variants(cs, o);
  CHECK(allowed.outcome == Outcome::worse);
  CHECK(allowed.ratio == Approx(1.1));
  CHECK(allowed.verdict ==
        "worse: the contender takes 10.0% more; scaled: cycles multiplexed in 3 of 36 runs (running fraction min "
        "0.50, median 1.00); its values are estimates, compared as asked (--allow-multiplex)");

  // Exact counts everywhere: nothing said.
  const auto exact = compare_variants(contexts({1.1, 1.1, 1.1, 1.1, 1.1, 1.1}), o);
  CHECK(exact.verdict == "worse: the contender takes 10.0% more");
  CHECK_FALSE(exact.scaled.scaled());
}

TEST_CASE("compare: a multiplexed run in a context left out does not count") {
  auto cs = contexts({1.1, 1.1, 1.1, 1.1, 1.1, 1.1});
  cs[0].failure = "could not be linked";
  cs[0].baseline[0].running = 0.5;
  const auto r = compare_variants(cs);
  CHECK(r.outcome == Outcome::worse);
  CHECK(r.scaled.runs == 30);
  CHECK(r.scaled.scaled_runs == 0);
}
