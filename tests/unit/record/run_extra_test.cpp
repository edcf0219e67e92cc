// The typed parts of a run line's "extra" (record/run_record.h): a profiler command's
// costs written among the extra's keys, read back typed, checked on read; and the
// manifest's parts record/ reads for job/ (record/journal.h).
#include <catch2/catch.hpp>

#include <nlohmann/json.hpp>

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "record/journal.h"
#include "record/run_record.h"
#include "util/error.h"

using namespace obscheck;

namespace {

RunRecord run_with(std::optional<ProfilerCost> cost, nlohmann::json extra) {
  RunRecord r;
  r.config_id = "command=1/held";
  r.profiler = std::move(cost);
  r.extra = std::move(extra);
  return r;
}

}  // namespace

TEST_CASE("run extra: a profiler command's costs are written among extra's keys and read back typed") {
  ProfilerCost c;
  c.target_wall_from = "kernel";
  c.command_wall_ns = 61'000'000;
  c.profiler_ns = 50'000'000;
  c.profiler_cpu_ns = 1.5e6;
  c.profiler_samples = 240;
  c.profiler_rate_hz = 3999.5;
  c.max_sample_rate = 100'000;
  const RunRecord r = run_with(c, {{"probe_hits", {{"f", 3}}}});
  const std::string line = run_line(r);
  // The same bytes as before the costs were typed: one sorted "extra" object.
  CHECK(line == nlohmann::json(r).dump(-1, ' ', false, nlohmann::json::error_handler_t::replace));
  CHECK(line.find(R"("extra":{"command_wall_ns":61000000,"max_sample_rate":100000,"probe_hits":{"f":3},)"
                  R"("profiler_cpu_ns":1500000.0,"profiler_ns":50000000,"profiler_rate_hz":3999.5,)"
                  R"("profiler_samples":240,"target_wall_from":"kernel"})") != std::string::npos);
  const RunRecord back = run_record_from_line(line);
  REQUIRE(back.profiler);
  CHECK(*back.profiler == c);
  CHECK(back.probe_hits == std::map<std::string, std::uint64_t>{{"f", 3}});
  CHECK(back.extra == nlohmann::json::object());

  ProfilerCost unwatched;
  unwatched.wall_of_command = true;
  const RunRecord u = run_record_from_line(run_line(run_with(unwatched, nlohmann::json::object())));
  REQUIRE(u.profiler);
  CHECK(u.profiler->wall_of_command);
  CHECK(run_line(run_with(unwatched, nlohmann::json::object())).find(R"("extra":{"wall_of":"command"})") !=
        std::string::npos);
  CHECK_FALSE(run_record_from_line(run_line(run_with(std::nullopt, nlohmann::json::object()))).profiler);
}

TEST_CASE("run extra: a profiler cost of the wrong type or out of range is an io error naming the field") {
  const auto read = [](nlohmann::json extra) {
    RunRecord r;
    read_run_extra(r, extra.dump());
    return r;
  };
  const auto refused = [&](nlohmann::json extra, const std::string& field) {
    try {
      read(std::move(extra));
      FAIL("accepted");
    } catch (const Error& e) {
      CHECK(e.kind() == ErrorKind::io);
      CHECK(std::string(e.what()).rfind("field extra." + field + " ", 0) == 0);
    }
  };
  refused({{"profiler_ns", "fast"}}, "profiler_ns");
  refused({{"profiler_ns", -5}}, "profiler_ns");
  refused({{"profiler_samples", 2.5}}, "profiler_samples");
  refused({{"profiler_rate_hz", -1.0}}, "profiler_rate_hz");
  refused({{"max_sample_rate", nlohmann::json::array()}}, "max_sample_rate");
  refused({{"wall_of", 1}}, "wall_of");
  // A whole number written as a float reads as one; a later version's word is kept.
  CHECK(read({{"command_wall_ns", 7.0}}).profiler->command_wall_ns == 7u);
  const RunRecord later = read({{"wall_of", "shim"}});
  CHECK_FALSE(later.profiler);
  CHECK(later.extra == nlohmann::json{{"wall_of", "shim"}});
}

TEST_CASE("run extra: a sampling account and probe hits round-trip typed, and are refused by field when damaged") {
  RunRecord r;
  r.config_id = "sampling=1000/held";
  r.sampling = SamplingRecord{1000, 40, 1, 2, 2, 40'000'000, 1000.0};
  r.probe_hits = {{"uprobe:/bin/x:f", 7}};
  r.extra = {{"output_head", "hi"}};
  const std::string line = run_line(r);
  CHECK(line == nlohmann::json(r).dump(-1, ' ', false, nlohmann::json::error_handler_t::replace));
  CHECK(line.find(R"("extra":{"output_head":"hi","probe_hits":{"uprobe:/bin/x:f":7},"sampling":{"achieved_hz":1000.0,)"
                  R"("freq":1000,"lost":1,"run_ns":40000000,"samples":40,"throttles":2,"unthrottles":2}})") !=
        std::string::npos);
  const RunRecord back = run_record_from_line(line);
  CHECK(back.sampling == r.sampling);
  CHECK(back.probe_hits == r.probe_hits);
  CHECK(back.output_head == "hi");  // opaque in extra until it was typed too
  CHECK(back.extra == nlohmann::json::object());

  // A journal from before the rate was recorded: no achieved_hz, no throttles.
  RunRecord older;
  read_run_extra(older, R"({"sampling":{"freq":99,"samples":5,"lost":0}})");
  REQUIRE(older.sampling);
  CHECK_FALSE(older.sampling->achieved_hz);
  CHECK_FALSE(older.sampling->throttles);
  CHECK(older.sampling->samples == 5);

  const auto why = [](const std::string& extra) {
    RunRecord x;
    try {
      read_run_extra(x, extra);
    } catch (const Error& e) {
      return std::string(e.what());
    }
    return std::string("accepted");
  };
  CHECK(why(R"({"sampling":[1]})") == "field extra.sampling is not an object");
  CHECK(why(R"({"sampling":{"samples":"many"}})") == "field extra.sampling.samples is not a whole number >= 0");
  CHECK(why(R"({"sampling":{"achieved_hz":-3}})") == "field extra.sampling.achieved_hz is not a finite number >= 0");
  CHECK(why(R"({"probe_hits":{"f":-1}})") == "field extra.probe_hits holds a count that is not a whole number >= 0");
  CHECK(why(R"({"probe_hits":3})") == "field extra.probe_hits is not an object of hit counts");
}

TEST_CASE("run extra: the output's first line and the processes left behind round-trip typed") {
  RunRecord r;
  r.config_id = "counters=a/held";
  r.output_head = "stack at 0x7ffd";
  r.left_behind = 2;
  const std::string line = run_line(r);
  CHECK(line.find(R"("extra":{"left_behind":2,"output_head":"stack at 0x7ffd"})") != std::string::npos);
  const RunRecord back = run_record_from_line(line);
  CHECK(back.output_head == r.output_head);
  CHECK(back.left_behind == 2);
  CHECK(back.extra == nlohmann::json::object());
  RunRecord none;
  none.config_id = "counters=a/held";
  CHECK(run_line(none).find(R"("extra":{})") != std::string::npos);  // 0 left behind is not written
  RunRecord bad;
  CHECK_THROWS_AS(read_run_extra(bad, R"({"left_behind":"two"})"), Error);
  CHECK_THROWS_AS(read_run_extra(bad, R"({"output_head":7})"), Error);
}

TEST_CASE("run extra: a sweep run's stack address and failure round-trip typed") {
  RunRecord r;
  r.config_id = "context=3";
  r.extra = {{"context", 3}, {"first_line", "hello"}};
  r.stack_address = 0x7ffd1234;
  r.failure = "exit 1";
  const std::string line = run_line(r);
  CHECK(line.find(R"("extra":{"context":3,"failure":"exit 1","first_line":"hello","stack_address":2147291700})") !=
        std::string::npos);
  const RunRecord back = run_record_from_line(line);
  CHECK(back.stack_address == std::optional<std::uint64_t>{0x7ffd1234});
  CHECK(back.failure == "exit 1");
  CHECK(back.extra == nlohmann::json{{"context", 3}, {"first_line", "hello"}});
  RunRecord ran;  // a run that ran, its stack not read: neither written
  ran.config_id = "context=3";
  CHECK(run_line(ran).find(R"("extra":{})") != std::string::npos);
  RunRecord bad;
  CHECK_THROWS_WITH(read_run_extra(bad, R"({"failure":1})"), "field extra.failure is not a string");
  CHECK_THROWS_WITH(read_run_extra(bad, R"({"stack_address":"0x7ffd"})"),
                    "field extra.stack_address is not a whole number >= 0");
}

TEST_CASE("manifest parts: the set-up warnings, the host and the environment's size, read by record/") {
  const nlohmann::json m = {{"warnings", {"dropped cycles", 3}},
                            {"host", {{"hostname", "h"}}},
                            {"env", {{{"name", "A"}, {"bytes", 4}}, {{"name", "BB"}, {"bytes", 6}}}}};
  CHECK(manifest_warnings(m) == std::vector<std::string>{"dropped cycles"});
  CHECK(manifest_host(m) == nlohmann::json{{"hostname", "h"}});
  CHECK(manifest_env_bytes(m) == 10);
  const nlohmann::json older = {{"type", "manifest"}};  // before warnings were kept
  CHECK_FALSE(manifest_warnings(older));
  CHECK(manifest_host(older) == nlohmann::json::object());
  CHECK(manifest_env_bytes(older) == 0);
}
