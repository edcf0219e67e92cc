// README's first example shows what obscheck printed, and cannot drift from what it
// prints: the block between README's first-example markers must be, byte for byte,
// `obscheck report` of the journal that run wrote (tests/fixtures/readme/layout.jsonl;
// the report of a journal is the check's own report, cli/cmd_report.cpp), with the
// journal's path as the run printed it. OBSCHECK_UPDATE_GOLDEN=1 rewrites README's block.
#include <catch2/catch.hpp>
#include <cstdlib>
#include <fstream>
#include <string>

#include "run_cli.h"

using obscheck::test::run_cli;
using obscheck::test::slurp;

namespace {

const std::string kReadme = std::string(OBSCHECK_SOURCE_DIR) + "/README.md";
const std::string kJournal = std::string(OBSCHECK_SOURCE_DIR) + "/tests/fixtures/readme/layout.jsonl";
// Where the run that wrote the journal kept it (the state directory, util/state_dir.h),
// as its report named it.
const std::string kShownJournal = "~/.local/state/obscheck/obscheck-20261128-152650.jsonl";

const std::string kOpen = "<!-- first-example: output";
const std::string kFence = "```text\n";
const std::string kClose = "```\n<!-- first-example: end -->";

// The report as README shows it: the fixture's path replaced by the one the run printed.
std::string shown_report() {
  auto r = run_cli({"report", kJournal}, {"NO_COLOR=1"});
  INFO(r.err);
  REQUIRE((r.code == 0 || r.code == 1));
  std::string out = r.out;
  for (std::size_t p; (p = out.find(kJournal)) != std::string::npos;) out.replace(p, kJournal.size(), kShownJournal);
  return out;
}

}  // namespace

TEST_CASE("readme: the first example's output is what obscheck prints for its journal") {
  std::string readme = slurp(kReadme);
  const std::size_t open = readme.find(kOpen);
  REQUIRE(open != std::string::npos);
  const std::size_t fence = readme.find(kFence, open);
  REQUIRE(fence != std::string::npos);
  const std::size_t begin = fence + kFence.size();
  const std::size_t end = readme.find(kClose, begin);
  REQUIRE(end != std::string::npos);
  const std::string expected = shown_report();
  if (const char* u = std::getenv("OBSCHECK_UPDATE_GOLDEN"); u && std::string(u) == "1") {
    readme.replace(begin, end - begin, expected);
    std::ofstream(kReadme) << readme;
    WARN("rewrote README.md's first example");
    return;
  }
  CHECK(readme.substr(begin, end - begin) == expected);
  // The command README gives is the one the journal recorded.
  CHECK(readme.find("-- build/experiments/workloads/layout 2000 1024") != std::string::npos);
  CHECK(expected.find("obscheck: build/experiments/workloads/layout 2000 1024") != std::string::npos);
}
