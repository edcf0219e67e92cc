// Nothing lost, nothing left behind: one writer per journal (a second check or
// --resume is refused with exit 8), the target's whole process tree killed and
// reaped after every run and with the driver, SIGINT/SIGTERM/SIGHUP with their
// exit codes, every option checked before anything is written, and --resume that
// neither repeats a finished check nor silently drops what it was told. The exit
// codes and signals are pinned against the table in the man page and README.
#include <dirent.h>
#include <fcntl.h>
#include <signal.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <catch2/catch.hpp>
#include <chrono>
#include <fstream>
#include <map>
#include <nlohmann/json.hpp>
#include <regex>
#include <set>
#include <sstream>
#include <thread>

#include "run_cli.h"

using nlohmann::json;
using obscheck::test::journal_lines;
using obscheck::test::run_cli;
using obscheck::test::run_indexes;

namespace {

std::string lifecycle_tmp(const std::string& name) {
  return "/tmp/obscheck-lifecycle-test-" + std::to_string(getpid()) + "-" + name;
}

// A sleep whose command line no other process has: "sleep 30.<pid><tag>".
std::string unique_sleep(int tag, int seconds = 30) {
  return std::to_string(seconds) + "." + std::to_string(getpid()) + std::to_string(tag);
}

// Processes (other than obscheck drivers) whose command line holds `word` as an argument.
std::vector<pid_t> processes_with_arg(const std::string& word) {
  std::vector<pid_t> out;
  DIR* proc = opendir("/proc");
  if (!proc) return out;
  while (const dirent* e = readdir(proc)) {
    if (e->d_name[0] < '0' || e->d_name[0] > '9') continue;
    std::ifstream in(std::string("/proc/") + e->d_name + "/cmdline", std::ios::binary);
    std::string cmd((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    if (cmd.find(OBSCHECK_BIN) != std::string::npos) continue;
    std::stringstream args(cmd);
    bool state_zombie = false;
    for (std::string a; std::getline(args, a, '\0');)
      if (a == word) {
        std::ifstream st(std::string("/proc/") + e->d_name + "/stat");
        std::string stat;
        std::getline(st, stat);
        const auto close = stat.rfind(')');
        state_zombie = close != std::string::npos && close + 2 < stat.size() && stat[close + 2] == 'Z';
        if (!state_zombie) out.push_back(static_cast<pid_t>(std::atoi(e->d_name)));
        break;
      }
  }
  closedir(proc);
  return out;
}

bool wait_for(const std::function<bool()>& done, int ms = 10000) {
  for (int waited = 0; waited < ms; waited += 20) {
    if (done()) return true;
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
  return done();
}

std::size_t line_count(const std::string& path) {
  std::ifstream in(path);
  std::size_t n = 0;
  for (std::string l; std::getline(in, l);) ++n;
  return n;
}

std::string file_bytes(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  return std::string((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
}

// obscheck started in the background with its output discarded.
pid_t start(const std::vector<std::string>& args) {
  std::vector<std::string> store = {OBSCHECK_BIN};
  store.insert(store.end(), args.begin(), args.end());
  pid_t pid = fork();
  if (pid == 0) {
    int devnull = open("/dev/null", O_RDWR);
    dup2(devnull, 0);
    dup2(devnull, 1);
    dup2(devnull, 2);
    std::vector<char*> argv;
    for (auto& a : store) argv.push_back(a.data());
    argv.push_back(nullptr);
    execv(argv[0], argv.data());
    _exit(127);
  }
  return pid;
}

int exit_code_of(pid_t pid) {
  int st = 0;
  waitpid(pid, &st, 0);
  return WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st);
}

}  // namespace

TEST_CASE("lifecycle: a --resume or a second check of a journal being written is refused, the journal stays valid") {
  const std::string journal = lifecycle_tmp("lock.jsonl");
  unlink(journal.c_str());
  const pid_t first = start({"--counters", "task-clock", "--runs", "40", "--seed", "3", "--journal", journal, "--",
                             "/bin/sleep", "0.02"});
  REQUIRE(wait_for([&] { return line_count(journal) > 2; }));

  auto resume = run_cli({"--resume", journal});
  CHECK(resume.code == 8);
  CHECK(resume.err.find("is being written by another obscheck") != std::string::npos);
  auto again = run_cli({"--counters", "task-clock", "--journal", journal, "--", "/bin/true"});
  CHECK(again.code == 6);
  CHECK(again.err.find("exists") != std::string::npos);

  kill(first, SIGINT);
  CHECK(exit_code_of(first) == 130);
  // Two resumes at once: one runs the rest, the other is refused; no run twice.
  const pid_t a = start({"--resume", journal});
  const pid_t b = start({"--resume", journal});
  const int ca = exit_code_of(a), cb = exit_code_of(b);
  INFO("exit codes " << ca << " and " << cb);
  CHECK(((ca == 8) != (cb == 8)));
  CHECK((ca == 8 ? cb : ca) <= 1);
  const auto idx = run_indexes(journal);
  CHECK(std::set<std::size_t>(idx.begin(), idx.end()).size() == idx.size());
  CHECK(idx.size() == 41 * 3);  // 40 measured blocks + 1 warm-up, 3 configurations each (level 0, the counter, A/A)
  CHECK(run_cli({"report", journal}).code == 0);
  unlink(journal.c_str());
}

TEST_CASE("lifecycle: processes a run leaves behind are killed after it and the run is marked") {
  const std::string marker = unique_sleep(1);
  const std::string journal = lifecycle_tmp("leftovers.jsonl");
  unlink(journal.c_str());
  auto r = run_cli({"--counters", "task-clock", "--runs", "2", "--seed", "5", "--journal", journal, "--", "/bin/sh",
                    "-c", "/bin/sleep " + marker + " & exit 0"});
  CHECK((r.code == 0 || r.code == 1));
  CHECK(processes_with_arg(marker).empty());
  std::size_t runs = 0, marked = 0;
  for (const json& line : journal_lines(journal)) {
    if (line.at("type") != "run") continue;
    ++runs;
    marked += line.at("extra").value("left_behind", 0);
  }
  CHECK(runs == 9);    // (2 measured + 1 warm-up) blocks x 3 configurations (level 0, the counter, A/A)
  CHECK(marked == 9);  // one sleep left by every run
  CHECK(r.out.find("9 runs (first: run 0) left 9 processes running after the target exited") != std::string::npos);
  auto rep = run_cli({"report", journal});
  CHECK(rep.out.find("9 runs (first: run 0) left 9 processes") != std::string::npos);
  unlink(journal.c_str());

  // --leftovers fail: the first such run ends the check as a failed target does.
  const std::string marker2 = unique_sleep(2);
  auto f = run_cli({"--leftovers", "fail", "--counters", "task-clock", "--runs", "2", "--journal", journal, "--",
                    "/bin/sh", "-c", "/bin/sleep " + marker2 + " & exit 0"});
  CHECK(f.code == 5);
  CHECK(f.err.find("the target left 1 process running after it exited (--leftovers fail) in run 0") !=
        std::string::npos);
  CHECK(run_indexes(journal).size() == 1);
  CHECK(processes_with_arg(marker2).empty());
  unlink(journal.c_str());
}

TEST_CASE("lifecycle: kill -9 of obscheck mid-run leaves no target process") {
  const std::string marker = unique_sleep(3);
  const std::string journal = lifecycle_tmp("kill9.jsonl");
  unlink(journal.c_str());
  const pid_t driver = start({"--counters", "task-clock", "--runs", "2", "--journal", journal, "--", "/bin/sleep", marker});
  REQUIRE(wait_for([&] { return !processes_with_arg(marker).empty(); }));
  kill(driver, SIGKILL);
  CHECK(exit_code_of(driver) == 128 + SIGKILL);
  CHECK(wait_for([&] { return processes_with_arg(marker).empty(); }, 3000));
  unlink(journal.c_str());
}

TEST_CASE("lifecycle: SIGINT, SIGTERM and SIGHUP stop the check with 130, 143 and 129, resumable, nothing left") {
  int tag = 10;
  for (const auto& [sig, code] : {std::pair{SIGINT, 130}, {SIGTERM, 143}, {SIGHUP, 129}}) {
    const std::string marker = unique_sleep(++tag);
    const std::string journal = lifecycle_tmp("signal-" + std::to_string(sig) + ".jsonl");
    unlink(journal.c_str());
    const pid_t driver =
        start({"--counters", "task-clock", "--runs", "2", "--journal", journal, "--", "/bin/sleep", marker});
    REQUIRE(wait_for([&] { return !processes_with_arg(marker).empty(); }));
    kill(driver, sig);
    CHECK(exit_code_of(driver) == code);
    CHECK(processes_with_arg(marker).empty());
    const auto notes = journal_lines(journal);
    CHECK(notes.back().at("type") == "note");
    CHECK(notes.back().at("kind") == "interrupted");
    unlink(journal.c_str());
  }
}

TEST_CASE("lifecycle: a refused command line is exit 2 and writes nothing") {
  const std::string journal = lifecycle_tmp("refused.jsonl");
  unlink(journal.c_str());
  const std::vector<std::vector<std::string>> refused = {
      {"--runs", "0"},       {"--max-runs", "0"},        {"--timeout", "0"},    {"--timeout", "nan"},
      {"--timeout", "-1"},   {"--cpu", "-5"},            {"--cpu", "4096"},     {"--seed", "-1"},
      {"--margin", "nan"},   {"--margin", "0"},          {"--counters", ""},    {"--counters", " , "},
      {"--env-pad", "-3"},   {"--leftovers", "maybe"},   {"--runs", "5", "--max-runs", "3"},
  };
  for (const auto& bad : refused) {
    std::vector<std::string> args = bad;
    for (const char* w : {"--journal", journal.c_str(), "--", "/bin/true"}) args.emplace_back(w);
    auto r = run_cli(args);
    INFO(bad.front() << " " << (bad.size() > 1 ? bad[1] : "") << ": " << r.err);
    CHECK(r.code == 2);
    CHECK(r.err.find("obscheck: error: ") == 0);
    struct stat st {};
    CHECK(stat(journal.c_str(), &st) != 0);
  }
  // A malformed event list is refused as `events --encode` and `measure -e` refuse it:
  // the event grammar's message with the caret, exit 4, and nothing written.
  for (const char* list : {"{task-clock,page-faults", "task-clock}"}) {
    auto r = run_cli({"--counters", list, "--journal", journal, "--", "/bin/true"});
    INFO(list << ": " << r.err);
    CHECK(r.code == 4);
    struct stat st {};
    CHECK(stat(journal.c_str(), &st) != 0);
  }
  auto group = run_cli({"--counters", "{task-clock,page-faults", "--", "/bin/true"});
  CHECK(group.err == "obscheck: error: unclosed '{': a group ends with '}' (column 24)\n"
                     "  {task-clock,page-faults\n"
                     "                         ^\n"
                     "obscheck: hint: close it: {a,b}\n");
  const auto encode = run_cli({"events", "--encode", "{task-clock,page-faults"});
  const auto measure = run_cli({"measure", "-e", "{task-clock,page-faults", "--", "/bin/true"});
  CHECK(encode.code == 4);
  CHECK(measure.code == 4);
  CHECK(encode.err == group.err);
  CHECK(measure.err == group.err);
}

TEST_CASE("lifecycle: --resume of a complete journal re-prints its report and writes nothing") {
  const std::string journal = lifecycle_tmp("complete.jsonl");
  unlink(journal.c_str());
  auto first = run_cli({"--counters", "task-clock", "--runs", "2", "--seed", "8", "--journal", journal, "--",
                        "/bin/true"});
  REQUIRE((first.code == 0 || first.code == 1));
  const std::string before = file_bytes(journal);
  auto r = run_cli({"--resume", journal});
  CHECK(r.code == 0);
  CHECK(r.err.find("is complete (9 runs): nothing to run, nothing written") != std::string::npos);
  CHECK(r.out == run_cli({"report", journal}).out);
  CHECK(file_bytes(journal) == before);

  // An option or a program that differs from the journal's is refused and named.
  auto changed = run_cli({"--resume", journal, "--margin", "0.05", "--runs", "2", "--", "/bin/false"});
  CHECK(changed.code == 2);
  CHECK(changed.err.find("--margin 0.05 (the journal's: 0.01)") != std::string::npos);
  CHECK(changed.err.find("--runs") == std::string::npos);  // the same as recorded: taken
  CHECK(changed.err.find("the program '/bin/false' (the journal's: '/bin/true')") != std::string::npos);
  auto unknown = run_cli({"--resume", journal, "--allow-missing"});
  CHECK(unknown.code == 2);
  CHECK(unknown.err.find("--allow-missing (a resumed check takes it from the journal)") != std::string::npos);
  // The output options are the same for every resumed job (a sweep's took --color, a
  // check's refused it).
  auto coloured = run_cli({"--resume", journal, "--color", "never"});
  CHECK(coloured.code == 0);
  CHECK(coloured.out == r.out);
  CHECK(file_bytes(journal) == before);
  unlink(journal.c_str());
}

TEST_CASE("lifecycle: every resume takes the same output options and refuses the same others") {
  // One list of what a resume may change (job/journal/resume_options.h), for a check, a measure
  // and a sweep alike: --color is taken, --journal refused before the journal is touched.
  const std::string check = lifecycle_tmp("alike-check.jsonl"), measure = lifecycle_tmp("alike-measure.jsonl"),
                    bias = lifecycle_tmp("alike-bias.jsonl"), other = lifecycle_tmp("alike-other.jsonl");
  for (const std::string& f : {check, measure, bias, other}) unlink(f.c_str());
  REQUIRE(run_cli({"--counters", "task-clock", "--runs", "2", "--seed", "8", "--journal", check, "--", "/bin/true"})
              .code <= 1);
  REQUIRE(run_cli({"measure", "-e", "task-clock", "-r", "2", "--journal", measure, "--", "/bin/true"}).code == 0);
  REQUIRE(run_cli({"bias", "-e", "task-clock", "--env-sizes", "0,400", "-r", "2", "--seed", "8", "--journal", bias,
                   "--", "/bin/true"})
              .code <= 1);
  for (const std::string& journal : {check, measure, bias}) {
    INFO(journal);
    const std::string before = file_bytes(journal);
    const auto coloured = run_cli({"--resume", journal, "--color", "never"});
    CHECK(coloured.code <= 1);
    CHECK(coloured.out == run_cli({"report", journal}).out);
    const auto refused = run_cli({"--resume", journal, "--color", "never", "--journal", other});
    CHECK(refused.code == 2);
    CHECK_THAT(refused.err, Catch::Contains("--journal"));
    CHECK_THAT(refused.err, Catch::Contains("only --json, --csv, -o, --html, --svg, --markdown, --export-json, "
                                            "--export-csv, --color, --verbose"));
    CHECK(file_bytes(journal) == before);
    struct stat st {};
    CHECK(stat(other.c_str(), &st) != 0);
  }
  for (const std::string& f : {check, measure, bias}) unlink(f.c_str());
}

#include "util/error.h"

namespace {

// The exit-code table of a document: code -> name ("| 8 | busy |" rows of a Markdown
// table headed "| code | name | meaning |"; "8\tbusy\tT{" rows of the man page's tbl
// source; "8 busy" items of --help's "Exit codes:" paragraph).
std::map<int, std::string> documented_codes(const std::string& text, char kind) {
  std::map<int, std::string> out;
  std::istringstream in(text);
  bool in_table = false;
  std::string help;
  for (std::string line; std::getline(in, line);) {
    if (kind == 'm') {
      if (line.rfind("| code | name | meaning |", 0) == 0) in_table = true;
      else if (in_table && line.rfind("|", 0) != 0) in_table = false;
      if (in_table && line.size() > 2 && std::isdigit(static_cast<unsigned char>(line[2]))) {
        const auto bar = line.find('|', 2), next = line.find('|', bar + 1);
        out[std::stoi(line.substr(2))] = line.substr(bar + 2, next - bar - 3);
      }
    } else if (kind == 'r') {
      if (line == ".SH EXIT STATUS") in_table = true;
      else if (in_table && line.rfind(".SH", 0) == 0) in_table = false;
      if (in_table && !line.empty() && std::isdigit(static_cast<unsigned char>(line[0])) &&
          line.find('\t') != std::string::npos) {
        const auto tab = line.find('\t'), tab2 = line.find('\t', tab + 1);
        out[std::stoi(line)] = line.substr(tab + 1, tab2 - tab - 1);
      }
    } else {
      if (line.rfind("Exit codes:", 0) == 0) in_table = true;
      if (in_table) help += line + " ";
      if (in_table && line.find("EXIT STATUS") != std::string::npos) in_table = false;
    }
  }
  if (kind == 'h') {
    const std::regex item("(\\d+) ([a-z]+( failed)?)");
    for (std::sregex_iterator it(help.begin(), help.end(), item), e; it != e; ++it) out[std::stoi((*it)[1])] = (*it)[2];
  }
  return out;
}

}  // namespace

TEST_CASE("lifecycle: the man page, README, docs and --help document every exit code with its name, and only those") {
  using obscheck::ExitCode;
  const std::set<int> codes = {
      static_cast<int>(ExitCode::ok),      static_cast<int>(ExitCode::findings),
      static_cast<int>(ExitCode::usage),   static_cast<int>(ExitCode::target),
      static_cast<int>(ExitCode::event),   static_cast<int>(ExitCode::target_failed),
      static_cast<int>(ExitCode::io),      static_cast<int>(ExitCode::host),
      static_cast<int>(ExitCode::busy),    static_cast<int>(ExitCode::hangup),
      static_cast<int>(ExitCode::interrupted), static_cast<int>(ExitCode::terminated)};
  CHECK(codes == std::set<int>{0, 1, 2, 3, 4, 5, 6, 7, 8, 129, 130, 143});
  CHECK(128 + SIGHUP == static_cast<int>(ExitCode::hangup));
  CHECK(128 + SIGINT == static_cast<int>(ExitCode::interrupted));
  CHECK(128 + SIGTERM == static_cast<int>(ExitCode::terminated));
  // One table everywhere: the same codes with the same names.
  const std::map<int, std::string> names = {{0, "ok"},    {1, "findings"},   {2, "usage"},       {3, "target"},
                                            {4, "event"}, {5, "target failed"}, {6, "io"},     {7, "host"},
                                            {8, "busy"},  {129, "hangup"},   {130, "interrupted"}, {143, "terminated"}};
  std::set<int> named;
  for (const auto& [code, name] : names) named.insert(code);
  CHECK(named == codes);
  CHECK(documented_codes(file_bytes(std::string(OBSCHECK_SOURCE_DIR) + "/docs/obscheck.1"), 'r') == names);
  CHECK(documented_codes(file_bytes(std::string(OBSCHECK_SOURCE_DIR) + "/README.md"), 'm') == names);
  CHECK(documented_codes(file_bytes(std::string(OBSCHECK_SOURCE_DIR) + "/docs/exit-codes.md"), 'm') == names);
  for (const char* cmd : {"check", "measure", "report", "bias", "compare", "doctor"}) {
    INFO(cmd << " --help");
    CHECK(documented_codes(run_cli({cmd, "--help"}).out, 'h') == names);
  }
}

TEST_CASE("lifecycle: --fail-on chooses which verdicts exit 1, for the check and its report alike") {
  if (geteuid() != 0) {
    WARN("skipped: uprobes (the perturbing observer of this test) need root");
    return;
  }
  const std::string journal = lifecycle_tmp("fail-on.jsonl");
  unlink(journal.c_str());
  // A uprobe on a function called 1000 times: perturbed, decided within 20 blocks.
  const std::vector<std::string> check = {"--probes", "hot_step", "--counters", "task-clock", "--seed", "3",
                                          "--max-runs", "20", "--journal", journal, "--",
                                          std::string(OBSCHECK_WORKLOADS) + "/hot", "1000"};
  const auto r = run_cli(check);
  REQUIRE(r.code == 1);  // the default: perturbed fails
  CHECK(r.out.find("overall: perturbed by the measurement; exit 1") != std::string::npos);
  CHECK(run_cli({"report", journal}).code == 1);  // report exits as the check did
  CHECK(run_cli({"report", journal, "--fail-on", "none"}).code == 0);
  // inconclusive fails only when a metric the answer covers (asked for, or with a
  // finding) has an inconclusive level.
  const json report = json::parse(run_cli({"report", journal, "--json"}).out);
  std::set<std::string> answered;
  for (const json& m : report.at("answer").at("metrics"))
    if (m.at("asked").get<bool>() || m.at("finding").get<bool>()) answered.insert(m.at("metric").get<std::string>());
  bool undecided = false;
  for (const json& v : report.at("verdicts"))
    undecided = undecided || (v.at("verdict") == "inconclusive" && answered.count(v.at("metric_name").get<std::string>()));
  CHECK(run_cli({"report", journal, "--fail-on", "inconclusive"}).code == (undecided ? 1 : 0));
  const auto none = run_cli({"report", journal, "--fail-on", "none"});
  CHECK(none.out.find("; exit 0") != std::string::npos);
  CHECK(run_cli({"report", journal, "--fail-on", "worse"}).code == 2);  // not an outcome of a check
  unlink(journal.c_str());
}

TEST_CASE("lifecycle: an undecided check exits 0 unless --fail-on inconclusive") {
  const std::string golden = std::string(OBSCHECK_SOURCE_DIR) + "/tests/golden/report/fixture-check.jsonl";
  const auto r = run_cli({"report", golden});
  REQUIRE(r.code == 0);
  CHECK(r.out.find("overall: inconclusive") != std::string::npos);
  CHECK(run_cli({"report", golden, "--fail-on", "inconclusive"}).code == 1);
  CHECK(run_cli({"report", golden, "--fail-on", "perturbed,inconclusive"}).code == 1);
  CHECK(run_cli({"report", golden, "--fail-on", "perturbed"}).code == 0);
}
