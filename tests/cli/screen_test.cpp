// The first screen a user meets: the default report of every command fits a screen
// (25 lines of 100 columns) with the full one behind --verbose, and a check leaves the
// current directory as it found it (its journal goes to the user's state directory).
#include <sys/stat.h>
#include <unistd.h>

#include <catch2/catch.hpp>
#include <cstdlib>
#include <filesystem>
#include <string>
#include <vector>

#include "run_cli.h"

using obscheck::test::run_cli;
using obscheck::test::workload;
namespace fs = std::filesystem;

namespace {

// Terminal columns of a UTF-8 line: one per character.
std::size_t columns(const std::string& line) {
  std::size_t n = 0;
  for (unsigned char c : line) n += (c & 0xC0) != 0x80;
  return n;
}

struct Size {
  std::size_t lines = 0, widest = 0;
  std::string widest_line;
};

// `skip`: a path whose length depends on where the checkout or the scratch directory is
// (a line holding it may pass 100 columns: a path is never cut, report/brief_report.h).
Size size_of(const std::string& text, const std::string& skip = "") {
  Size s;
  std::size_t start = 0;
  while (start < text.size()) {
    std::size_t end = text.find('\n', start);
    if (end == std::string::npos) end = text.size();
    const std::string line = text.substr(start, end - start);
    ++s.lines;
    if ((skip.empty() || line.find(skip) == std::string::npos) && columns(line) > s.widest) {
      s.widest = columns(line);
      s.widest_line = line;
    }
    start = end + 1;
  }
  return s;
}

struct Scratch {
  std::string path;
  Scratch() {
    char tmpl[] = "/tmp/obscheck-screen-XXXXXX";
    path = ::mkdtemp(tmpl);
  }
  ~Scratch() {
    std::error_code ec;
    fs::remove_all(path, ec);
  }
};

// The names in `dir`, sorted.
std::vector<std::string> names_in(const std::string& dir) {
  std::vector<std::string> out;
  for (const auto& e : fs::directory_iterator(dir)) out.push_back(e.path().filename());
  std::sort(out.begin(), out.end());
  return out;
}

// Runs obscheck with `args` from `cwd`, its state directory `state`.
obscheck::test::CliResult run_in(const std::string& cwd, const std::string& state, const std::vector<std::string>& args) {
  const fs::path here = fs::current_path();
  fs::current_path(cwd);
  auto r = run_cli(args, {"NO_COLOR=1", "XDG_STATE_HOME=" + state});
  fs::current_path(here);
  return r;
}

}  // namespace

TEST_CASE("screen: the default report of check, measure, bias and compare fits 25 lines of 100 columns") {
  // The golden journals were recorded on the bundled workloads (compute, extrawork);
  // report FILE prints what the command printed when it ended.
  for (const char* kind : {"check", "measure", "bias", "compare"}) {
    const std::string journal = std::string(OBSCHECK_GOLDEN_DIR) + "/" + kind + "/journal.jsonl";
    const auto brief = run_cli({"report", journal}, {"NO_COLOR=1"});
    const auto full = run_cli({"report", "--verbose", journal}, {"NO_COLOR=1"});
    INFO(kind << ":\n" << brief.out << brief.err);
    REQUIRE((brief.code == 0 || brief.code == 1));
    const Size s = size_of(brief.out, journal);
    INFO("widest: " << s.widest_line);
    CHECK(s.lines <= 25);
    CHECK(s.widest <= 100);
    CHECK(s.lines >= 4);  // a command, a size, an answer, where the details are
    CHECK(brief.out.find("--verbose") != std::string::npos);  // it says where the rest is
    CHECK(full.code == brief.code);
    CHECK(size_of(full.out).lines > s.lines);
  }
}

TEST_CASE("screen: a live check and a live measure print one screen, the full report with --verbose") {
  Scratch cwd, state;
  const auto check = run_in(cwd.path, state.path,
                            {"--counters", "task-clock,page-faults", "--time-budget", "1", "--seed", "3", "--",
                             workload("compute"), "10"});
  INFO(check.out << check.err);
  REQUIRE((check.code == 0 || check.code == 1));
  Size s = size_of(check.out);
  INFO("widest: " << s.widest_line);
  CHECK(s.lines <= 25);
  CHECK(s.widest <= 100);
  CHECK(check.out.find("overall: ") != std::string::npos);
  CHECK(check.out.find("obscheck report --verbose " + state.path + "/obscheck/obscheck-") != std::string::npos);

  const auto measure = run_in(cwd.path, state.path, {"measure", "-r", "3", "--", workload("compute"), "10"});
  INFO(measure.out << measure.err);
  REQUIRE(measure.code == 0);
  s = size_of(measure.out);
  CHECK(s.lines <= 25);
  CHECK(s.widest <= 100);
  CHECK(measure.out.find("task-clock") != std::string::npos);
  const auto full = run_in(cwd.path, state.path, {"measure", "--verbose", "-r", "3", "--", workload("compute"), "10"});
  CHECK(full.out.find("min / q1 / q3 / max") != std::string::npos);
}

TEST_CASE("screen: a check in an empty directory leaves it empty, its journal in the state directory") {
  Scratch cwd, state;
  const auto r = run_in(cwd.path, state.path,
                        {"--counters", "task-clock", "--time-budget", "1", "--seed", "5", "--", workload("compute"),
                         "10"});
  INFO(r.out << r.err);
  REQUIRE((r.code == 0 || r.code == 1));
  CHECK(names_in(cwd.path).empty());
  const std::string dir = state.path + "/obscheck";
  struct stat st {};
  REQUIRE(::lstat(dir.c_str(), &st) == 0);
  CHECK(S_ISDIR(st.st_mode));
  CHECK((st.st_mode & 0777) == 0700);
  const auto journals = names_in(dir);
  REQUIRE(journals.size() == 1);
  CHECK(journals.front().rfind("obscheck-", 0) == 0);
  // Named files are written where they are named, and only they.
  const auto named = run_in(cwd.path, state.path,
                            {"--counters", "task-clock", "--time-budget", "1", "--journal", "j.jsonl", "-o",
                             "report.txt", "--", workload("compute"), "10"});
  REQUIRE((named.code == 0 || named.code == 1));
  CHECK(names_in(cwd.path) == std::vector<std::string>{"j.jsonl", "report.txt"});
  CHECK(names_in(dir).size() == 1);
}

TEST_CASE("screen: a state directory another user could write is refused before any run") {
  Scratch cwd, state;
  const std::string dir = state.path + "/obscheck";
  REQUIRE(::mkdir(dir.c_str(), 0700) == 0);
  REQUIRE(::chmod(dir.c_str(), 0777) == 0);
  const auto r = run_in(cwd.path, state.path, {"--counters", "task-clock", "--", workload("compute"), "10"});
  CHECK(r.code == 6);
  CHECK(r.err.find("writable by others") != std::string::npos);
  CHECK(names_in(dir).empty());
  CHECK(names_in(cwd.path).empty());
  // A symbolic link in its place is refused too: it could lead anywhere.
  REQUIRE(::rmdir(dir.c_str()) == 0);
  REQUIRE(::symlink(cwd.path.c_str(), dir.c_str()) == 0);
  const auto linked = run_in(cwd.path, state.path, {"--counters", "task-clock", "--", workload("compute"), "10"});
  CHECK(linked.code == 6);
  CHECK(names_in(cwd.path).empty());
}

TEST_CASE("screen: a profiler command that gives up before the target shows its own words") {
  // A wrapper that does not parse `--` says why on its stderr; the user sees that, not
  // only "exited with code 127".
  Scratch cwd, state;
  const auto r = run_in(cwd.path, state.path,
                        {"--observer-cmd", "sh -c 'echo wrapper-says-no >&2; exit 127' --", "--levels", "0,1",
                         "--counters", "task-clock", "--", "/bin/true"});
  CHECK(r.code == 5);
  CHECK(r.err.find("exited with code 127") != std::string::npos);
  CHECK(r.err.find("it said: wrapper-says-no") != std::string::npos);
}

TEST_CASE("screen: --margin takes a percentage as the reports print it, and says the forms when wrong") {
  Scratch cwd, state;
  const auto bad = run_in(cwd.path, state.path, {"--margin", "1x", "--", "/bin/true"});
  CHECK(bad.code == 2);
  CHECK(bad.err.find("a fraction (0.01) or a percentage (1%)") != std::string::npos);
  const auto pct = run_in(cwd.path, state.path,
                          {"--json", "--margin", "2%", "--counters", "task-clock", "--blocks", "3", "--", "/bin/true"});
  REQUIRE((pct.code == 0 || pct.code == 1));
  CHECK(pct.out.find("\"margin\": 0.02") != std::string::npos);
  // A block-named option and its run-named twin are one option: give one.
  const auto both = run_in(cwd.path, state.path, {"--runs", "3", "--blocks", "3", "--", "/bin/true"});
  CHECK(both.code == 2);
}
