// experiments/atlas/run.sh --dry-run: the atlas's commands without running them (the
// atlas itself takes about 12 minutes and is not part of the suite). Every set-up of
// every program is one obscheck check with its own journal, and nothing is run.
#include <stdlib.h>

#include <catch2/catch.hpp>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "../unit/occurrences.h"
#include "run_cli.h"

using obscheck::test::count;
using obscheck::test::slurp;

TEST_CASE("atlas: --dry-run prints one check per set-up and program, and runs none") {
  char tmpl[] = "/tmp/obscheck-atlas-XXXXXX";
  REQUIRE(mkdtemp(tmpl) != nullptr);
  const std::string dir = tmpl;
  const std::string cmd = "OBSCHECK='" + std::string(OBSCHECK_BIN) + "' OUT='" + dir + "/out' bash '" +
                          OBSCHECK_SOURCE_DIR + "/experiments/atlas/run.sh' --dry-run > '" + dir + "/log' 2>&1";
  const int status = std::system(cmd.c_str());
  const std::string log = slurp(dir + "/log");
  INFO(log);
  CHECK(status == 0);
  std::vector<std::string> lines;
  std::istringstream in(log);
  for (std::string line; std::getline(in, line);)
    if (line.rfind(OBSCHECK_BIN, 0) == 0) lines.push_back(line);
  CHECK(lines.size() == 3 * 12);  // gzip, xz, sqlite3 × twelve set-ups
  for (const char* program : {"-- gzip -c -6 ", "-- xz -c -1 -T1 ", "-- sqlite3 :memory: "}) CHECK(count(log, program) == 12);
  for (const std::string& line : lines) {
    INFO(line);
    CHECK(count(line, "--journal " + dir + "/out/") == 1);
    CHECK(count(line, "--counters task-clock") == 1);
  }
  CHECK(count(log, "perf\\ record\\ -e\\ cpu-clock\\ --call-graph\\ dwarf") == 6);  // a curve and the maximum, per program
  CHECK(count(log, "--probes ") == 3);
  CHECK(count(log, "--sample-freq ") == 3);
  // Nothing ran: no journal was written.
  for (const auto& e : std::filesystem::recursive_directory_iterator(dir))
    CHECK(e.path().extension() != ".jsonl");
  std::filesystem::remove_all(dir);
}
