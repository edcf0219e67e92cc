// report/brief_report.h: the screen's contract on made-up lines — at most 25 lines of
// 100 columns, the kept tail always there, a long word kept whole, a command kept with its
// path, a fitting line untouched.
#include "report/brief_report.h"

#include <catch2/catch.hpp>
#include <sstream>

#include "text_lines.h"

using namespace obscheck;
using obscheck::test::columns;
using obscheck::test::lines_of;

TEST_CASE("brief: a line that fits keeps its spacing, a long one wraps under its text") {
  const std::string table = "  metric        median  [1, 2]   exact";
  const std::string long_line = "  task-clock   " + std::string(60, 'a') + " " + std::string(60, 'b');
  const auto out = lines_of(fit_screen({table, long_line}, 0, "--verbose"));
  REQUIRE(out.size() == 3);
  CHECK(out[0] == table);
  CHECK(out[1] == "  task-clock   " + std::string(60, 'a'));
  CHECK(out[2] == std::string(15, ' ') + std::string(60, 'b'));  // under the text, not the name
}

TEST_CASE("brief: a word longer than the screen is kept whole on a line of its own, never cut") {
  const std::string path = "/" + std::string(150, 'x') + "±";
  const auto out = lines_of(fit_screen({"  warning: stopped; the journal " + path + " is kept"}, 0, "--verbose"));
  REQUIRE(out.size() == 3);
  CHECK(out[0] == "  warning: stopped; the journal");
  CHECK(out[1] == "    " + path);  // a path cut short could not be used
  CHECK(out[2] == "    is kept");
}

TEST_CASE("brief: a command to type stays on one line with its path, the line breaks before it") {
  const std::string path = "/home/student/.local/state/obscheck/obscheck-20261128-164103.jsonl";
  const auto out = lines_of(fit_screen(
      {"  warning: stopped at the cap of 2000 measured blocks; continue with obscheck --resume " + path +
       " (as many blocks again)"},
      0, "--verbose"));
  REQUIRE(out.size() == 3);
  CHECK(out[0] == "  warning: stopped at the cap of 2000 measured blocks; continue with");
  CHECK(out[1] == "    obscheck --resume " + path + " (as many");
  CHECK(out[2] == "    blocks again)");
  for (const std::string& l : out) CHECK(columns(l) <= kScreenColumns);
}

TEST_CASE("brief: past 25 lines the head is cut with how many and where, the tail is kept") {
  std::vector<std::string> lines;
  for (int i = 0; i < 40; ++i) lines.push_back("  metric-" + std::to_string(i) + "  not perturbed");
  lines.push_back("  overall: not perturbed; exit 0");
  lines.push_back("details:");
  const auto out = lines_of(fit_screen(lines, 2, "obscheck report --verbose J"));
  REQUIRE(out.size() == kScreenLines);
  CHECK(out[0] == "  metric-0  not perturbed");
  CHECK(out[kScreenLines - 3] == "  … 18 more lines: obscheck report --verbose J");
  CHECK(out[kScreenLines - 2] == "  overall: not perturbed; exit 0");
  CHECK(out[kScreenLines - 1] == "details:");
  for (const std::string& l : out) CHECK(columns(l) <= kScreenColumns);
}
