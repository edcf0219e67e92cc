// obscheck bias and compare --journal FILE: every run recorded as it ends, in the check's
// journal format. obscheck report FILE prints what the sweep printed, byte for byte
// (journals recorded once, tests/golden/bias and tests/golden/compare, and fresh
// journals of this host); Ctrl-C or a kill leaves a valid journal that --resume
// completes with every planned run exactly once. OBSCHECK_UPDATE_GOLDEN=1 rewrites the
// golden files.
#include <fcntl.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <catch2/catch.hpp>
#include <chrono>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <functional>
#include <set>
#include <thread>

#include "../unit/temp_dir.h"
#include "run_cli.h"

using nlohmann::json;
using obscheck::test::compare_golden;
using obscheck::test::interrupt_after;
using obscheck::test::journal_lines;
using obscheck::test::run_cli;
using obscheck::test::run_indexes;
using obscheck::test::TempDir;
using obscheck::test::workload;

namespace fs = std::filesystem;

namespace {

// Every index 0..n-1 exactly once.
bool each_once(std::vector<std::size_t> indexes, std::size_t n) {
  std::sort(indexes.begin(), indexes.end());
  for (std::size_t i = 0; i < indexes.size(); ++i)
    if (indexes[i] != i) return false;
  return indexes.size() == n;
}

}  // namespace

TEST_CASE("sweep journal: the reports of a recorded bias and compare match their golden text and JSON") {
  for (const char* command : {"bias", "compare"}) {
    const std::string dir = std::string(OBSCHECK_GOLDEN_DIR) + "/" + command;
    INFO(command);
    const auto text = run_cli({"report", "--verbose", dir + "/journal.jsonl"}, {"NO_COLOR=1"});
    INFO(text.err);
    REQUIRE(text.code == 0);
    compare_golden(text.out, dir + "/report.txt");
    const auto brief = run_cli({"report", dir + "/journal.jsonl"}, {"NO_COLOR=1"});
    REQUIRE(brief.code == 0);
    compare_golden(brief.out, dir + "/brief.txt");
    const auto j = run_cli({"report", dir + "/journal.jsonl", "--json"});
    REQUIRE(j.code == 0);
    compare_golden(j.out, dir + "/report.json");
    // The figures come from the journal too.
    TempDir s;
    const auto html = run_cli({"report", dir + "/journal.jsonl", "--html", s.file("page.html")});
    CHECK(html.code == 0);
    CHECK(fs::file_size(s.file("page.html")) > 1000);
  }
}

TEST_CASE("sweep journal: obscheck report prints what bias and compare printed") {
  TempDir s;
  const std::string bias = s.file("b.jsonl");
  const auto live = run_cli({"bias", "--env-sizes", "0,300,600", "-r", "3", "--journal", bias, "--",
                             workload("compute"), "50"},
                            {"NO_COLOR=1"});
  INFO(live.err);
  REQUIRE(live.code <= 1);
  const auto report = run_cli({"report", bias}, {"NO_COLOR=1"});
  CHECK(report.code == live.code);
  CHECK(report.out == live.out);
  const auto lines = journal_lines(bias);
  CHECK(lines.front().at("command") == "bias");
  CHECK(lines.front().at("sweep").at("contexts").size() == 3);
  CHECK(lines.back().at("kind") == "finished");
  CHECK(each_once(run_indexes(bias), 9));

  const std::string compare = s.file("c.jsonl");
  const std::vector<std::string> args = {"compare", "--aa", "--json", "--env-sizes", "0,400", "-r", "2", "--journal",
                                         compare, "--", workload("extrawork"), "500", ":::", workload("extrawork"),
                                         "500", "10"};
  const auto live_json = run_cli(args);
  INFO(live_json.err);
  REQUIRE(live_json.code <= 1);
  CHECK(run_cli({"report", compare, "--json"}).out == live_json.out);
  // Each context's three variants run back to back in every round.
  const auto clines = journal_lines(compare);
  CHECK(clines.front().at("plan").at("group_size") == 3);
  std::vector<std::size_t> contexts;
  for (const json& l : clines)
    if (l.value("type", "") == "run") contexts.push_back(l.at("extra").at("context").get<std::size_t>());
  REQUIRE(contexts.size() == 12);
  for (std::size_t i = 0; i < contexts.size(); i += 3) {
    CHECK(contexts[i] == contexts[i + 1]);
    CHECK(contexts[i] == contexts[i + 2]);
  }
  // A journal is never overwritten.
  CHECK(run_cli(args).code == 6);
}

TEST_CASE("sweep journal: Ctrl-C leaves a valid journal that --resume completes, every run once", "[serial]") {
  TempDir s;
  struct Case {
    std::string command, journal;
    std::vector<std::string> args;
    std::size_t total;
  };
  // compute 2000 and extrawork 20000 run for about 20 ms: the sweeps take seconds.
  const std::vector<Case> cases = {
      {"bias", s.file("b.jsonl"), {"bias", "--env-sizes", "0,400,800", "-r", "20", "--journal", s.file("b.jsonl"), "--",
                                   workload("compute"), "2000"}, 60},
      {"compare", s.file("c.jsonl"), {"compare", "--env-sizes", "0,400,800", "-r", "10", "--journal", s.file("c.jsonl"),
                                      "--", workload("extrawork"), "20000", ":::", workload("extrawork"), "20000", "10"}, 60}};
  for (const Case& c : cases) {
    INFO(c.command);
    const int status = interrupt_after(c.args, c.journal, 8, s.file("out.txt"));
    REQUIRE(WIFEXITED(status));
    CHECK(WEXITSTATUS(status) == 130);
    const auto before = run_indexes(c.journal);
    REQUIRE(before.size() >= 8);
    if (before.size() >= c.total) {
      WARN("SKIPPED: the " << c.command << " ended before SIGINT arrived; the interruption is not shown here");
      continue;
    }
    CHECK(journal_lines(c.journal).back().at("kind") == "interrupted");
    CHECK(each_once(before, before.size()));  // the first runs of the plan, none twice
    const auto partial = run_cli({"report", c.journal});
    CHECK(partial.code <= 1);
    CHECK_THAT(partial.out, Catch::Contains("interrupted after " + std::to_string(before.size()) + " runs"));

    // Only output options may be given again.
    const auto changed = run_cli({c.command, "--resume", c.journal, "-r", "3"});
    CHECK(changed.code == 2);
    CHECK_THAT(changed.err, Catch::Contains("--runs"));
    const std::string other = c.command == "bias" ? "compare" : "bias";
    CHECK(run_cli({other, "--resume", c.journal}).code == 2);
    CHECK(run_cli({"measure", "--resume", c.journal}).code == 2);

    const auto resumed = run_cli({c.command, "--resume", c.journal});
    INFO(resumed.err);
    REQUIRE(resumed.code <= 1);
    CHECK_THAT(resumed.err, Catch::Contains("resuming"));
    CHECK(each_once(run_indexes(c.journal), c.total));
    CHECK(journal_lines(c.journal).back().at("kind") == "finished");
    // The completed journal's report is the resumed sweep's.
    CHECK(run_cli({"report", c.journal}).out == resumed.out);
    // Complete: a second --resume runs nothing and prints the report.
    const auto done = run_cli({"--resume", c.journal});
    CHECK(done.code == resumed.code);
    CHECK(done.out == resumed.out);
    CHECK(run_indexes(c.journal).size() == c.total);
  }
}

TEST_CASE("sweep journal: a kill mid-sweep of link orders is resumed by linking them again") {
  TempDir s;
  const std::string src = std::string(OBSCHECK_SOURCE_DIR) + "/experiments/workloads/linkorder/";
  std::string objects;
  for (const char* f : {"main", "a", "b", "c", "d"}) {
    const std::string obj = s.file(std::string(f) + ".o");
    REQUIRE(std::system(("cc -O2 -c " + src + f + ".c -o " + obj).c_str()) == 0);
    objects += (objects.empty() ? "" : ",") + obj;
  }
  const std::string journal = s.file("l.jsonl");
  const auto full = run_cli({"bias", "--link", "cc {objects} -o {out}", "--objects", objects, "--link-orders", "3",
                             "-r", "3", "--seed", "4", "--journal", journal, "--", "{out}", "2000"});
  INFO(full.err);
  REQUIRE(full.code <= 1);
  // A kill -9 after the fourth run: the journal ends there, without a note.
  std::vector<std::string> kept;
  {
    std::ifstream in(journal);
    std::size_t runs = 0;
    for (std::string line; std::getline(in, line) && runs < 4;) {
      kept.push_back(line);
      if (line.find("\"type\":\"run\"") != std::string::npos) ++runs;
    }
  }
  {
    std::ofstream out(journal, std::ios::trunc);
    for (const std::string& l : kept) out << l << '\n';
  }
  // The full report lists every context; the one-screen default names only the extremes,
  // which order 2 is by chance alone.
  const auto resumed = run_cli({"bias", "--resume", journal, "--verbose"});
  INFO(resumed.err);
  REQUIRE(resumed.code <= 1);
  CHECK(each_once(run_indexes(journal), 9));
  CHECK(run_cli({"report", "--verbose", journal}).out == resumed.out);
  CHECK_THAT(resumed.out, Catch::Contains("order 2"));
}

TEST_CASE("sweep journal: a changed program or environment is not resumed") {
  TempDir s;
  const std::string prog = s.file("compute");
  fs::copy_file(workload("compute"), prog);
  const std::string journal = s.file("j.jsonl");
  REQUIRE(run_cli({"bias", "--env-sizes", "0,100", "-r", "2", "--journal", journal, "--", prog, "50"}).code <= 1);
  // Cut after the manifest: nothing ran, the journal is the sweep's beginning.
  std::string manifest;
  {
    std::ifstream in(journal);
    std::getline(in, manifest);
  }
  const auto restore = [&] {
    std::ofstream out(journal, std::ios::trunc);
    out << manifest << '\n';
  };
  restore();
  const auto env = run_cli({"bias", "--resume", journal}, {"OBSCHECK_TEST_EXTRA=1"});
  CHECK(env.code == 2);
  CHECK_THAT(env.err, Catch::Contains("environment differs"));
  { std::ofstream(prog, std::ios::app) << "x"; }  // another binary at the same path
  const auto bin = run_cli({"bias", "--resume", journal});
  CHECK(bin.code == 2);
  CHECK_THAT(bin.err, Catch::Contains("has changed"));
  CHECK(journal_lines(journal).size() == 1);  // nothing appended
}

namespace {

// The manifest (line 1) of a sweep's journal.
json first_line(const std::string& journal) {
  std::string line;
  std::ifstream in(journal);
  std::getline(in, line);
  return json::parse(line);
}

// `m` as the previous version wrote it: the command line recorded in place of the typed
// request ("options" and the sweep's "arguments"), which --resume parsed again. The
// integrity check goes with the edit, as a hand-edited journal's would.
json as_previous_version(json m, const std::vector<std::string>& words) {
  m.erase("crc32c");
  m["options"] = {{"arguments", words}, {"backend", "native"}};
  m["sweep"]["arguments"] = words;
  return m;
}

}  // namespace

TEST_CASE("sweep journal: a journal of the previous version, its command line recorded, still resumes") {
  TempDir s;
  const std::string journal = s.file("j.jsonl");
  const std::vector<std::string> words = {"bias", "--env-sizes", "0,100", "-r", "2", "--journal", journal, "--",
                                          workload("compute"), "50"};
  REQUIRE(run_cli(words).code <= 1);
  CHECK_FALSE(first_line(journal).at("options").contains("arguments"));  // this version records the request
  // Cut after the manifest, written as the previous version wrote it: nothing ran.
  const json previous = as_previous_version(first_line(journal), words);
  std::ofstream(journal, std::ios::trunc) << previous.dump() << '\n';
  const auto resumed = run_cli({"bias", "--resume", journal});
  INFO(resumed.err);
  REQUIRE(resumed.code <= 1);
  CHECK_THAT(resumed.err, Catch::Contains("resuming"));
  CHECK(each_once(run_indexes(journal), 4));
  CHECK(journal_lines(journal).back().at("kind") == "finished");
  CHECK(run_cli({"report", journal}).out == resumed.out);
}

TEST_CASE("sweep journal: a recorded request that no command line could give is a bad journal, exit 6") {
  TempDir s;
  const std::string journal = s.file("j.jsonl");
  REQUIRE(run_cli({"bias", "--env-sizes", "0,100", "-r", "2", "--journal", journal, "--", workload("compute"), "50"})
              .code <= 1);
  const json manifest = first_line(journal);
  for (const auto& [what, edit] : std::vector<std::pair<std::string, std::function<void(json&)>>>{
           {"--runs must be at least 1", [](json& o) { o["runs"] = -3; }},
           {"--confidence", [](json& o) { o["confidence"] = 7; }},
           {"field env_sizes", [](json& o) { o["env_sizes"] = "0,100"; }},
           {"--env-sizes: 999999999 bytes", [](json& o) { o["env_sizes"] = {0, 999999999}; }},
           {"not an outcome", [](json& o) { o["fail_on"] = {"worse"}; }},
           {"no program to run", [](json& o) { o["launch"]["argv"] = json::array(); }}}) {
    json m = manifest;
    m.erase("crc32c");
    edit(m["options"]);
    std::ofstream(journal, std::ios::trunc) << m.dump() << '\n';
    const auto r = run_cli({"bias", "--resume", journal});
    INFO(r.err);
    CHECK(r.code == 6);
    CHECK_THAT(r.err, Catch::Contains("the journal's recorded request cannot be run again") && Catch::Contains(what));
    CHECK(journal_lines(journal).size() == 1);  // nothing appended
  }
}

TEST_CASE("sweep journal: a recorded command line that cannot run again is a bad journal, exit 6") {
  TempDir s;
  const std::string journal = s.file("j.jsonl");
  const std::vector<std::string> words = {"bias", "--env-sizes", "0,100", "-r", "2", "--journal", journal, "--",
                                          workload("compute"), "50"};
  REQUIRE(run_cli(words).code <= 1);
  // A journal of the previous version, whose recorded words --resume parses again. Each
  // edit leaves the manifest well formed: only its recorded words are wrong.
  const json manifest = as_previous_version(first_line(journal), words);
  const auto edited = [&](const std::function<void(json&)>& edit) {
    json m = manifest;
    edit(m["sweep"]["arguments"]);
    std::ofstream(journal, std::ios::trunc) << m.dump() << '\n';
  };
  for (const auto& [what, edit] : std::vector<std::pair<std::string, std::function<void(json&)>>>{
           {"unrecognised option '--bogus'", [](json& a) { a.insert(a.begin() + 1, "--bogus"); }},
           {"no program to run", [](json& a) { a = json::array({"bias"}); }},
           {"not a bias command line", [](json& a) { a[0] = "compare"; }}}) {
    edited(edit);
    const auto r = run_cli({"bias", "--resume", journal});
    INFO(r.err);
    CHECK(r.code == 6);
    CHECK_THAT(r.err, Catch::Contains("the journal's recorded command line cannot be run again") &&
                          Catch::Contains(what));
    CHECK(journal_lines(journal).size() == 1);  // nothing appended
  }
}
