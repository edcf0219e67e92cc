// record/run_table: the host's load columns.
#include <catch2/catch.hpp>

#include <cmath>

#include "record/run_table.h"

using namespace obscheck;

TEST_CASE("RunTable: the host's load from extra[\"host\"], NaN when a run has none or a field is not a number") {
  std::vector<RunRecord> runs(4);
  runs[0].extra["host"] = {{"other_cpu_ns", 20000000}, {"procs_running", 2}};
  runs[1].extra["output_head"] = "42";
  runs[2].extra["host"] = {{"other_cpu_ns", -4000000}, {"procs_running", "many"}};
  runs[3].extra["host"] = "busy";
  const RunTable t = run_table_of(runs);
  REQUIRE(t.host_other_cpu_ns.size() == 4);
  REQUIRE(t.host_procs_running.size() == 4);
  CHECK(t.host_other_cpu_ns[0] == 20000000);
  CHECK(t.host_procs_running[0] == 2);
  CHECK(std::isnan(t.host_other_cpu_ns[1]));
  CHECK(std::isnan(t.host_procs_running[1]));
  CHECK(t.host_other_cpu_ns[2] == -4000000);
  CHECK(std::isnan(t.host_procs_running[2]));
  CHECK(std::isnan(t.host_other_cpu_ns[3]));
}
