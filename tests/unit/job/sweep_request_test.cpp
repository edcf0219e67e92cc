// job/: a sweep's typed request as its journal records it, and the words of a command
// line read once into their types (--fail-on's outcomes, --shard, the context sizes).
#include <catch2/catch.hpp>

#include "job/common/request_bounds.h"
#include "job/sweep/sweep_request.h"
#include "util/error.h"

using namespace obscheck;

namespace {

// A request with every field away from its default.
SweepRequest full_request() {
  SweepRequest r;
  r.check.counters = CounterList({"task-clock", "{page-faults,ctx-switches}"});
  r.check.runs = 7;
  r.check.warmup = 2;
  r.check.warmup_given = true;
  r.check.seed = 18446744073709551615ull;
  r.check.seed_given = true;
  r.check.backend = BackendKind::sim;
  r.check.sim_cache = "D1=32768,8,64";
  r.check.margin = 0.02;
  r.check.allow_multiplex = true;
  r.check.launch.argv = {"/bin/true", "a", ":::", "/bin/false"};
  r.check.launch.aslr = true;
  r.check.launch.cpu = 0;
  r.check.launch.timeout_s = 2.5;
  r.check.launch.show_output = true;
  r.metric = "task-clock";
  r.confidence = 0.9;
  r.env_sizes = {0, 400, 800};
  r.argv0_pads = {16};
  r.link_command = "cc {objects} -o {out}";
  r.link_objects = {"a.o", "b.o"};
  r.link_orders = 3;
  r.contexts = 2;
  r.aa = true;
  r.allow_output_diff = true;
  r.fail_on = {FindingKind::worse, FindingKind::aa};
  return r;
}

}  // namespace

TEST_CASE("sweep request: the journal's JSON reads back the request it was written from") {
  const SweepRequest r = full_request();
  const nlohmann::json j = sweep_request_json(r);
  CHECK(j.at("env_sizes") == nlohmann::json({0, 400, 800}));
  CHECK(j.at("fail_on") == nlohmann::json({"worse", "aa"}));
  CHECK(j.at("backend") == "sim");
  CHECK(sweep_request_from_json(j, JobKind::compare) == r);
  // Through its text, as a journal line holds it.
  CHECK(sweep_request_from_json(nlohmann::json::parse(j.dump()), JobKind::compare) == r);
  const SweepRequest plain;
  CHECK(sweep_request_from_json(sweep_request_json(plain), JobKind::bias) == plain);
}

TEST_CASE("sweep request: a field missing, of the wrong type or beyond a command line's bounds is refused") {
  const nlohmann::json j = sweep_request_json(SweepRequest{});
  const auto refused = [&](const std::function<void(nlohmann::json&)>& edit, ErrorKind kind, const std::string& what) {
    nlohmann::json e = j;
    edit(e);
    try {
      sweep_request_from_json(e, JobKind::bias);
      FAIL("accepted: " << e.dump());
    } catch (const Error& err) {
      CHECK(err.kind() == kind);
      CHECK_THAT(std::string(err.what()), Catch::Contains(what));
    }
  };
  refused([](nlohmann::json& e) { e.erase("metric"); }, ErrorKind::io, "field metric is missing or has the wrong type");
  refused([](nlohmann::json& e) { e["runs"] = "7"; }, ErrorKind::io, "field runs");
  refused([](nlohmann::json& e) { e["runs"] = -1; }, ErrorKind::usage, "--runs must be at least 1, not -1");
  refused([](nlohmann::json& e) { e["confidence"] = 1.5; }, ErrorKind::usage, "--confidence");
  refused([](nlohmann::json& e) { e["link_orders"] = 10001; }, ErrorKind::usage, "--link-orders is at most 10000");
  refused([](nlohmann::json& e) { e["contexts"] = -2; }, ErrorKind::usage, "--contexts cannot be negative");
  refused([](nlohmann::json& e) { e["argv0_pads"] = {200000}; }, ErrorKind::usage, "--argv0-pads: 200000 bytes is above");
  refused([](nlohmann::json& e) { e["fail_on"] = {"worse"}; }, ErrorKind::usage, "'worse' is not an outcome");
  refused([](nlohmann::json& e) { e["backend"] = "gpu"; }, ErrorKind::usage, "--backend must be native or sim, not 'gpu'");
  refused([](nlohmann::json& e) { e = nlohmann::json::array(); }, ErrorKind::io, "is not an object");
}

TEST_CASE("fail-on: a command's outcomes read once into a set, its words in a fixed order") {
  const FailOn f = fail_on_outcomes(FailOnOf::check, "inconclusive,,perturbed,perturbed");
  CHECK(f.has(FindingKind::perturbed));
  CHECK(f.has(FindingKind::inconclusive));
  CHECK_FALSE(f.has(FindingKind::layout));
  CHECK(f.words() == std::vector<std::string>{"perturbed", "inconclusive"});
  CHECK(fail_on_outcomes(FailOnOf::check, f.words()) == f);
  CHECK(default_fail_on(FailOnOf::check).words() == std::vector<std::string>{"perturbed", "layout", "incomparable"});
  CHECK(default_fail_on(FailOnOf::bias).words() == std::vector<std::string>{"incomparable", "bias", "failed"});
  CHECK(default_fail_on(FailOnOf::compare).words() == std::vector<std::string>{"incomparable", "aa"});
  CHECK(ci_fail_on(false).words() ==
        std::vector<std::string>{"perturbed", "layout", "incomparable", "inconclusive"});
  CHECK(outcome_named("none") == FindingKind::none);
  CHECK_FALSE(outcome_named("not perturbed"));
  CHECK_THROWS_WITH(fail_on_outcomes(FailOnOf::bias, "worse"), Catch::Contains("'worse' is not an outcome of this command"));
  CHECK_THROWS_WITH(fail_on_outcomes(FailOnOf::compare, ",,"), "--fail-on is empty");
  CHECK_THROWS_WITH(ci_fail_on(true), "--ci and --fail-on: choose one");
}

TEST_CASE("shard: I/N read once, N alone taking I from the Slurm task") {
  CHECK(parse_shard("2/4", "") == std::pair<std::size_t, std::size_t>{2, 4});
  CHECK(parse_shard("4", "3") == std::pair<std::size_t, std::size_t>{3, 4});
  CHECK(parse_shard("1/4", "3") == std::pair<std::size_t, std::size_t>{1, 4});  // I given wins
  CHECK_THROWS_WITH(parse_shard("4", ""), Catch::Contains("which shard?"));
  CHECK_THROWS_WITH(parse_shard("4/4", ""), "--shard 4/4 is out of range");
  CHECK_THROWS_WITH(parse_shard("-1/4", ""), Catch::Contains("is not a whole number"));
}

TEST_CASE("context sizes: FROM:TO:STEP and a,b,c read once, bounded") {
  CHECK(parse_env_sizes("0:1000:400") == std::vector<std::size_t>{0, 400, 800});
  CHECK(parse_env_sizes("5,,7") == std::vector<std::size_t>{5, 7});
  CHECK(parse_argv0_pads("16") == std::vector<std::size_t>{16});
  CHECK_THROWS_WITH(parse_env_sizes("1:2"), Catch::Contains("is not FROM:TO:STEP"));
  CHECK_THROWS_WITH(parse_env_sizes("-4"), Catch::Contains("is not a byte count"));
  CHECK_THROWS_WITH(parse_env_sizes("0:100000:1"), Catch::Contains("a sweep takes at most 10000"));
}
