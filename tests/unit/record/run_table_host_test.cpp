// record/: a run's host load (RunRecord::host): its columns in the table, its one
// encoder and its decoder (the run line's), the bytes the journal has always held.
#include <catch2/catch.hpp>

#include <cmath>

#include "record/journal_reader.h"
#include "record/run_table.h"

using namespace obscheck;

namespace {

// The runner's record of a run on a busy host (run/host_sample.h).
HostLoadRecord busy_host() {
  HostLoadRecord h;
  h.other_cpu_ns = 20000000;
  h.busy_cpu_ns = 30000000;
  h.idle_cpu_ns = 70000000;
  h.tick_ns = 10000000;
  h.procs_running = 2;
  return h;
}

}  // namespace

TEST_CASE("RunTable: the host's load from RunRecord::host, NaN when a run has none or a member is absent") {
  std::vector<RunRecord> runs(3);
  runs[0].host = busy_host();
  runs[1].output_head = "42";  // no host: an older journal, or /proc/stat unread
  // A journal written before busy, idle and tick were kept, and before both sides were
  // taken in ticks: a negative other CPU time.
  runs[2].host = HostLoadRecord{-4000000, {}, {}, {}, 3};
  const RunTable t = run_table_of(runs);
  REQUIRE(t.host_other_cpu_ns.size() == 3);
  REQUIRE(t.host_procs_running.size() == 3);
  CHECK(t.host_other_cpu_ns[0] == 20000000);
  CHECK(t.host_procs_running[0] == 2);
  CHECK(t.host_idle_cpu_ns[0] == 70000000);
  CHECK(t.host_busy_cpu_ns[0] == 30000000);
  CHECK(std::isnan(t.host_other_cpu_ns[1]));
  CHECK(std::isnan(t.host_procs_running[1]));
  CHECK(std::isnan(t.host_idle_cpu_ns[1]));
  CHECK(t.host_other_cpu_ns[2] == -4000000);
  CHECK(t.host_procs_running[2] == 3);
  CHECK(std::isnan(t.host_idle_cpu_ns[2]));
  CHECK(std::isnan(t.host_busy_cpu_ns[2]));
}

TEST_CASE("a run's host load: the bytes the journal held before it was typed, read back by both readers") {
  RunRecord r;
  r.config_id = "c";
  r.host = busy_host();
  r.left_behind = 1;
  const std::string line = run_line(r);
  // Keys sorted as the JSON tree sorts them, as host_load_json wrote them into extra.
  CHECK(line.find(R"("extra":{"host":{"busy_cpu_ns":30000000,"idle_cpu_ns":70000000,"other_cpu_ns":20000000,)"
                  R"("procs_running":2,"tick_ns":10000000},"left_behind":1},)") != std::string::npos);
  CHECK(nlohmann::json::parse(line) == nlohmann::json(r));
  RunFields f;
  std::string type;
  std::optional<FieldError> error;
  REQUIRE(parse_run_line(line, f, type, error));
  CHECK_FALSE(error);
  CHECK(f.host == r.host);
  const RunRecord back = run_record_from_line(line);
  CHECK(back.host == r.host);
  CHECK(back.left_behind == 1);
  CHECK_FALSE(back.extra.contains("host"));  // typed, not left among the opaque parts
  CHECK(run_line(back) == line);

  // An older line: two members, a negative other CPU time; written back the same.
  const std::string old = R"({"block":0,"config":0,"config_id":"c","env_bytes":0,"exit":{"code":0,"output_bytes":0,)"
                          R"("output_sha256":null,"signal":0,"timed_out":false,"wall_ns":5},"extra":{"host":)"
                          R"({"other_cpu_ns":-4000000,"procs_running":1}},"index":0,"position":0,"readings":[],)"
                          R"("rusage":{"majflt":0,"maxrss_kb":0,"minflt":0,"nivcsw":0,"nvcsw":0,"stime_ns":0,)"
                          R"("utime_ns":0},"type":"run","warmup":false})";
  const RunRecord o = run_record_from_line(old);
  REQUIRE(o.host);
  CHECK(o.host == HostLoadRecord{-4000000, {}, {}, {}, 1});
  CHECK(run_line(o) == old);
  // The same RunFields reused for a line without a host forgets the last one's.
  REQUIRE(parse_run_line(run_line(RunRecord{}), f, type, error));
  CHECK_FALSE(f.host);
}

TEST_CASE("a damaged host load is refused with its field") {
  const std::string line = [] {
    RunRecord r;
    r.config_id = "c";
    r.host = busy_host();
    return run_line(r);
  }();
  const auto with = [&](const std::string& from, const std::string& to) {
    std::string bad = line;
    bad.replace(bad.find(from), from.size(), to);
    return bad;
  };
  CHECK_THROWS_WITH(run_record_from_line(with("\"procs_running\":2", "\"procs_running\":\"many\"")),
                    "field extra.host.procs_running is not a number");
  CHECK_THROWS_WITH(run_record_from_line(with("\"idle_cpu_ns\":70000000", "\"idle_cpu_ns\":-7")),
                    "field extra.host.idle_cpu_ns -7 is negative");
  CHECK_THROWS_WITH(run_record_from_line(with("\"other_cpu_ns\":20000000", "\"other_cpu_ns\":2.5")),
                    "field extra.host.other_cpu_ns 2.5 is not a whole number");
  CHECK_THROWS_WITH(run_record_from_line(with("\"busy_cpu_ns\":30000000", "\"busy_cpu_ns\":9007199254740993")),
                    "field extra.host.busy_cpu_ns 9007199254740993 is beyond 2^53");
  CHECK_THROWS_WITH(run_record_from_line(with("\"other_cpu_ns\":20000000", "\"other_cpu_ns\":-9007199254740993")),
                    "field extra.host.other_cpu_ns -9007199254740993 is beyond +-2^53");
  const std::size_t from = line.find("{\"busy_cpu_ns\"");
  const std::string busy = std::string(line).replace(from, line.find('}', from) + 1 - from, "\"busy\"");
  CHECK_THROWS_WITH(run_record_from_line(busy), "field extra.host is not an object");
}
