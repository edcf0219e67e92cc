// report on damaged or hostile journals: each refused with exit 6 and the line (and
// field) named, never "internal error", in bounded time and memory.
#include <catch2/catch.hpp>

#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>

#include "run_cli.h"

using namespace obscheck::test;
namespace fs = std::filesystem;

namespace {

const std::string kGolden = std::string(OBSCHECK_GOLDEN_DIR) + "/check/journal.jsonl";

std::string golden_with(const std::string& from, const std::string& to) {
  std::ifstream in(kGolden, std::ios::binary);
  std::ostringstream s;
  s << in.rdbuf();
  std::string text = s.str();
  const auto at = text.find(from);
  REQUIRE(at != std::string::npos);
  return text.replace(at, from.size(), to);
}

}  // namespace

TEST_CASE("report: damaged journals exit 6 naming the line and field") {
  const fs::path dir = fs::temp_directory_path() / ("obscheck-damage-" + std::to_string(::getpid()));
  fs::create_directories(dir);
  const std::string path = (dir / "j.jsonl").string();

  SECTION("a negative count") {
    std::ofstream(path) << golden_with("\"value\":261618.0", "\"value\":-261618.0");
    const auto r = run_cli({"report", path});
    CHECK(r.code == 6);
    CHECK(r.err.find("journal " + path + " line 5: field readings[0].value -261618 is a negative count") !=
          std::string::npos);
  }
  SECTION("a time beyond any run") {
    std::ofstream(path) << golden_with("\"wall_ns\":7536238", "\"wall_ns\":1e30");
    const auto r = run_cli({"report", path});
    CHECK(r.code == 6);
    CHECK(r.err.find("line 5: field exit.wall_ns 1e30 is not a whole number") != std::string::npos);
  }
  SECTION("a plan of an observer this obscheck does not know") {
    std::ofstream(path) << golden_with("\"observer\":\"counters\"", "\"observer\":\"Counters\"");
    const auto r = run_cli({"report", path});
    CHECK(r.code == 6);
    CHECK(r.err.find("journal " + path + " line 1: plan: unknown observer 'Counters'") != std::string::npos);
  }
  SECTION("a level's knob of the wrong type") {
    std::ofstream(path) << golden_with("\"extra\":{}", "\"extra\":{\"probes\":\"two\"}");
    const auto r = run_cli({"report", path});
    CHECK(r.code == 6);
    CHECK(r.err.find("journal " + path + " line 1: plan level 0 extra: field 'probes' has the wrong type (\"two\")") !=
          std::string::npos);
  }
  SECTION("a directory and a device") {
    const auto d = run_cli({"report", dir.string()});
    CHECK(d.code == 6);
    CHECK(d.err.find("is a directory, not a journal") != std::string::npos);
    const auto z = run_cli({"report", "/dev/zero"});
    CHECK(z.code == 6);
    CHECK(z.err.find("journal /dev/zero is not a regular file") != std::string::npos);
  }
  fs::remove_all(dir);
}
