// The fastest reproduced figure, experiments/fig12-padding/run.sh, run as a student
// would run it: it must finish and leave a report of the shape its README describes.
#include <catch2/catch.hpp>
#include <stdlib.h>

#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>

#include <nlohmann/json.hpp>

namespace {

std::string slurp(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::ostringstream s;
  s << in.rdbuf();
  return s.str();
}

std::size_t count(const std::string& hay, const std::string& needle) {
  std::size_t n = 0;
  for (std::size_t at = hay.find(needle); at != std::string::npos; at = hay.find(needle, at + needle.size())) ++n;
  return n;
}

}  // namespace

TEST_CASE("experiments: fig12-padding runs to completion and reports natural, held and sham per dose") {
  char tmpl[] = "/tmp/obscheck-fig12-XXXXXX";
  REQUIRE(mkdtemp(tmpl) != nullptr);
  const std::string dir = tmpl, out = dir + "/out";
  const std::string cmd = std::string("env OBSCHECK='") + OBSCHECK_BIN + "' OUT='" + out + "' bash '" +
                          OBSCHECK_SOURCE_DIR + "/experiments/fig12-padding/run.sh' > '" + dir + "/log' 2>&1";
  const int status = std::system(cmd.c_str());
  INFO(slurp(dir + "/log"));
  REQUIRE(status == 0);
  for (const char* f : {"journal.jsonl", "check.txt", "report.txt", "report.json", "report.md", "report.html",
                        "svg/effect-task-clock.svg", "svg/runs-task-clock.svg"})
    CHECK(std::filesystem::is_regular_file(out + "/" + f));

  const nlohmann::json j = nlohmann::json::parse(slurp(out + "/report.json"));
  // Three counters: prefixes 1..3 and the two later counters alone, each under three
  // layouts, plus the A/A copy; ten measured blocks.
  CHECK(j.at("plan").at("layouts") == nlohmann::json::array({"natural", "held", "sham"}));
  CHECK(j.at("plan").at("configs").size() == 16);
  CHECK(j.at("metrics").at(0).at("name") == "task-clock");
  CHECK(j.at("metrics").at(1).at("name") == "page-faults");
  CHECK(j.at("metrics").at(2).at("name") == "context-switches");
  // The workload touches the same pages whatever is counted: page-faults is the
  // figure's flat line under every layout.
  CHECK(j.at("metrics").at(1).at("verdict") == "not-perturbed");

  const std::string html = slurp(out + "/report.html");
  const std::size_t at = html.find("class=\"plot effect-curve\" data-metric=\"task-clock\"");
  REQUIRE(at != std::string::npos);
  const std::string curve = html.substr(at, html.find("</svg>", at) - at);
  for (const char* layout : {"natural", "held", "sham"})
    CHECK(count(curve, std::string("<g class=\"series\" data-layout=\"") + layout + "\">") == 1);
  // Doses 2 and 3 under three layouts are compared against dose 1.
  CHECK(count(curve, "class=\"ci-bar\"") == 6);
  std::error_code ec;
  std::filesystem::remove_all(dir, ec);
}
