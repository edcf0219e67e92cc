// The binary's own edges of the third adversarial round (docs/security.md): outputs
// that are devices, FIFOs, standard streams or planted set-id files; a profiler
// command writing over the journal; resumes after kill -9 and refused resumes; forged
// and mistyped journals; a FIFO as the journal; unbounded doubles; control bytes in
// text; --time-budget auto. Each case runs the built obscheck and asserts the exit
// code, the message and what was (not) written. Cases that need a second user or
// mknod(2) need root and report themselves skipped elsewhere.
#include <fcntl.h>
#include <grp.h>
#include <signal.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <sys/wait.h>
#include <unistd.h>

#include <catch2/catch.hpp>

#include "adversarial_support.h"
#include "../support/nobody_reach.h"
#include <algorithm>
#include <chrono>
#include <filesystem>
#include <fstream>
#include <regex>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

namespace fs = std::filesystem;

namespace {

using adversarial::contains;
using adversarial::kNobody;
using adversarial::Dir;
using adversarial::Result;
using adversarial::run;
using adversarial::slurp;
using adversarial::Spawn;

void spit(const std::string& path, const std::string& bytes) { std::ofstream(path, std::ios::binary | std::ios::trunc) << bytes; }

std::size_t count_of(const std::string& s, const std::string& part) {
  std::size_t n = 0;
  for (std::size_t at = s.find(part); at != std::string::npos; at = s.find(part, at + 1)) ++n;
  return n;
}

bool is_root() { return ::geteuid() == 0; }

std::vector<std::string> lines_of(const std::string& text) {
  std::vector<std::string> out;
  std::istringstream in(text);
  for (std::string line; std::getline(in, line);) out.push_back(line);
  return out;
}

std::string joined(const std::vector<std::string>& lines) {
  std::string out;
  for (const std::string& l : lines) out += l + "\n";
  return out;
}

// A small finished check's journal at `dir`/NAME: task-clock of /bin/true, `blocks`
// measured blocks at most (a cap it stops at, or decides before).
std::string small_journal(const Dir& dir, const std::string& name = "j.jsonl", const std::string& max_runs = "3") {
  const std::string j = dir / name;
  const Result r = run({"--counters", "task-clock", "--max-runs", max_runs, "--time-budget", "0", "--journal", j, "--",
                        "/bin/true"});
  INFO(r.out);
  REQUIRE((r.code == 0 || r.code == 1));
  return j;
}

// The journal's lines without their integrity checks: an unchecked journal, which a
// test may then edit as a forger would (the check is no signature: docs/security.md).
std::vector<std::string> unsigned_lines(const std::string& journal) {
  static const std::regex check(",\"crc32c\":\"[0-9a-f]{8}\"\\}$");
  std::vector<std::string> out;
  for (const std::string& l : lines_of(slurp(journal))) out.push_back(std::regex_replace(l, check, "}"));
  return out;
}

// Runs `fn` as nobody in a child process; true when it returned true there.
template <class Fn>
bool as_nobody(Fn fn) {
  const pid_t pid = ::fork();
  REQUIRE(pid >= 0);
  if (pid == 0) {
    if (::setgroups(0, nullptr) != 0 || ::setresgid(kNobody, kNobody, kNobody) != 0 ||
        ::setresuid(kNobody, kNobody, kNobody) != 0)
      ::_exit(2);
    ::_exit(fn() ? 0 : 1);
  }
  int st = 0;
  ::waitpid(pid, &st, 0);
  return WIFEXITED(st) && WEXITSTATUS(st) == 0;
}

}  // namespace

// Row 3 (and 12's /dev/stdout): writing into a node is what -o /dev/null means.
TEST_CASE("outputs write into a character device, a FIFO and /dev/stdout, never replace them", "[adversarial]") {
  SKIP_UNLESS_NOBODY_REACHES(OBSCHECK_BIN);
  Dir d;
  const std::string j = small_journal(d);
  // A FIFO with a reader: the report arrives through it, the FIFO stays.
  const std::string fifo = d / "pipe";
  REQUIRE(::mkfifo(fifo.c_str(), 0644) == 0);
  std::string through;
  std::thread reader([&] { through = slurp(fifo); });
  const Result f = run({"report", j, "-o", fifo});
  reader.join();
  INFO(f.out);
  CHECK((f.code == 0 || f.code == 1));
  CHECK(contains(through, "task-clock"));
  struct stat st {};
  REQUIRE(::lstat(fifo.c_str(), &st) == 0);
  CHECK(S_ISFIFO(st.st_mode));
  // /dev/stdout and /proc/self/fd/1: the report goes to the descriptor, /dev/stdout
  // stays the link it was. Run as nobody where we are root, so that a regression
  // cannot replace the host's /dev/stdout: nobody cannot write to /dev.
  for (const char* stream : {"/dev/stdout", "/proc/self/fd/1"}) {
    char tmpl[] = "/tmp/obscheck-adv-edges-stdout-XXXXXX";
    const int out_fd = ::mkstemp(tmpl);
    REQUIRE(out_fd >= 0);
    const Result s = run({"report", j, "-o", stream}, {.uid = is_root() ? kNobody : 0, .out_fd = out_fd});
    ::close(out_fd);
    INFO(stream << "\n" << s.out);
    CHECK((s.code == 0 || s.code == 1));
    CHECK(contains(slurp(tmpl), "task-clock"));
    ::unlink(tmpl);
  }
  REQUIRE(::lstat("/dev/stdout", &st) == 0);
  CHECK(S_ISLNK(st.st_mode));
  // A character device: root's mknod d/null (never the host's /dev/null itself: a
  // regression would replace it for every process on the host).
  if (!is_root()) {
    WARN("SKIPPED: the device part (mknod needs root)");
    return;
  }
  const std::string null = d / "null";
  REQUIRE(::mknod(null.c_str(), S_IFCHR | 0666, ::makedev(1, 3)) == 0);
  for (const std::vector<std::string>& args :
       {std::vector<std::string>{"report", j, "-o", null}, {"report", j, "--html", null}}) {
    const Result r = run(args);
    INFO(r.out);
    CHECK((r.code == 0 || r.code == 1));
    REQUIRE(::lstat(null.c_str(), &st) == 0);
    CHECK(S_ISCHR(st.st_mode));
    CHECK(st.st_rdev == ::makedev(1, 3));
  }
  // A FIFO nobody planted in a sticky directory: refused, never waited on.
  Dir shared(01777);
  const std::string planted = shared / "rep.txt";
  REQUIRE(as_nobody([&] { return ::mkfifo(planted.c_str(), 0666) == 0; }));
  const Result p = run({"report", j, "-o", planted});
  INFO(p.out);
  CHECK(p.code == 6);
  CHECK(contains(p.out, "another user's FIFO or device in a shared sticky directory"));
  REQUIRE(::lstat(planted.c_str(), &st) == 0);
  CHECK(S_ISFIFO(st.st_mode));
  CHECK(st.st_uid == kNobody);
}

// Row 12.
TEST_CASE("a planted set-id file gives root's report none of its bits", "[adversarial]") {
  if (!is_root()) {
    WARN("SKIPPED: needs root to plant the file as nobody");
    return;
  }
  Dir d;
  const std::string j = small_journal(d);
  Dir shared(01777);
  const std::string rep = shared / "rep.txt";
  REQUIRE(as_nobody([&] {
    std::ofstream(rep) << "planted";
    return ::chmod(rep.c_str(), 06777) == 0;
  }));
  const Result r = run({"report", j, "-o", rep});
  INFO(r.out);
  CHECK((r.code == 0 || r.code == 1));
  struct stat st {};
  REQUIRE(::lstat(rep.c_str(), &st) == 0);
  CHECK(S_ISREG(st.st_mode));
  CHECK(st.st_uid == 0);
  CHECK((st.st_mode & 07000) == 0);  // no set-user-ID, set-group-ID or sticky bit
  CHECK((st.st_mode & 0022) == 0);   // nor nobody's write bits
  CHECK(contains(slurp(rep), "task-clock"));
}

// Row 7.
TEST_CASE("a profiler command naming the journal or an output is refused before the first run", "[adversarial]") {
  Dir d;
  const std::string j = d / "J";
  for (const std::vector<std::string>& args : {
           std::vector<std::string>{"--observer-cmd", "perf record -F 99 -o J --", "--journal", "J"},
           {"--observer-cmd", "perf record -F {level} -o " + j + " --", "--journal", j},
           {"--observer-cmd", "perf record --output=./J --", "--journal", "J"},
           {"--observer-cmd", "perf record -oJ --", "--journal", "J"},
           {"--observer-cmd", "perf record -o rep.txt --", "--journal", "J", "-o", "rep.txt"},
           {"--observer-cmd", "perf record -o {level}.html --", "--journal", "J", "--html", "99.html"},
       }) {
    std::vector<std::string> full = args;
    for (const char* w : {"--levels", "0,99", "--counters", "task-clock", "--runs", "2", "--", "/bin/true"})
      full.push_back(w);
    const Result r = run(full, {d.path});
    INFO(r.out);
    CHECK(r.code == 2);
    CHECK(contains(r.out, "the profiler would write over it at every run"));
    CHECK(fs::is_empty(d.path));  // no journal, no report
  }
  // run --plan: the plan's profiler command against the shard's own journal.
  const Result plan = run({"plan", "-o", "p.json", "--observer-cmd", "perf record -o p.shard-1-of-2.jsonl --",
                           "--levels", "0,99", "--counters", "task-clock", "--runs", "2", "--", "/bin/true"},
                          {d.path});
  INFO(plan.out);
  REQUIRE(plan.code == 0);
  const Result shard = run({"run", "--plan", "p.json", "--shard", "1/2"}, {d.path});
  INFO(shard.out);
  CHECK(shard.code == 2);
  CHECK(contains(shard.out, "names the shard's journal p.shard-1-of-2.jsonl"));
  CHECK_FALSE(fs::exists(d / "p.shard-1-of-2.jsonl"));
  fs::remove(d / "p.json");
  // On --resume, the journal's own profiler command is checked against its path.
  const Result ok = run({"--observer-cmd", "/usr/bin/env -- PROFILE=J{level}", "--levels", "0,1", "--counters",
                         "task-clock", "--runs", "2", "--journal", "J", "--", "/bin/true"},
                        {d.path});
  INFO(ok.out);
  REQUIRE((ok.code == 0 || ok.code == 1));
  fs::rename(d / "J", d / "PROFILE=J1");
  const std::string before = slurp(d / "PROFILE=J1");
  const Result r = run({"--resume", "PROFILE=J1"}, {d.path});
  INFO(r.out);
  CHECK(r.code == 2);
  CHECK(slurp(d / "PROFILE=J1") == before);
}

// Row 8.
TEST_CASE("a resume after kill -9 does not raise the cap again, and the report says what each resume added",
          "[adversarial]") {
  Dir d;
  const std::string j = small_journal(d, "j.jsonl", "3");
  if (!contains(slurp(j), "\"stopped\":\"cap\"")) {
    WARN("SKIPPED: the check decided before its cap of 3 blocks, so no resume raises it");
    return;
  }
  const Result raised = run({"--resume", j});
  INFO(raised.out);
  REQUIRE((raised.code == 0 || raised.code == 1));
  // As kill -9 leaves it: everything after the extend note's first runs gone.
  std::vector<std::string> lines = lines_of(slurp(j));
  const auto extend = std::find_if(lines.begin(), lines.end(), [](const std::string& l) {
    return contains(l, "\"kind\":\"extend\"");
  });
  REQUIRE(extend != lines.end());
  CHECK(contains(*extend, "\"max_blocks\":6"));
  CHECK(contains(*extend, "\"from_blocks\":3"));
  lines.erase(std::min(extend + 3, lines.end()), lines.end());
  spit(j, joined(lines));
  const Result again = run({"--resume", j});
  INFO(again.out);
  CHECK((again.code == 0 || again.code == 1));
  const std::string after = slurp(j);
  CHECK(count_of(after, "\"kind\":\"extend\"") == 1);  // no second extend (to 12)
  CHECK_FALSE(contains(after, "\"max_blocks\":12"));
  // The sweep's account is a detail: the full report (the default is one screen).
  const Result report = run({"report", "--verbose", j});
  INFO(report.out);
  CHECK(contains(report.out, "a resume raised the cap from 3 to 6 blocks"));
}

// Row 9.
TEST_CASE("a refused --max-runs on resume leaves the journal byte for byte", "[adversarial]") {
  Dir d;
  const std::string j = small_journal(d);
  const std::string before = slurp(j);
  for (const char* cap : {"2", "477218587", "2000000"}) {
    const Result r = run({"--resume", j, "--max-runs", cap});
    INFO(cap << "\n" << r.out);
    CHECK(r.code == 2);
    CHECK(slurp(j) == before);
  }
  CHECK((run({"report", j}).code == 0 || run({"report", j}).code == 1));
}

// Rows 10 and 11.
TEST_CASE("a forged journal is refused naming its line, quickly", "[adversarial]") {
  Dir d;
  const std::string j = small_journal(d);
  const std::vector<std::string> lines = unsigned_lines(j);
  REQUIRE(lines.size() > 3);
  const auto note_line = [&](const std::string& kind) {
    for (std::size_t i = 0; i < lines.size(); ++i)
      if (contains(lines[i], "\"kind\":\"" + kind + "\"")) return i;
    FAIL("no " << kind << " note");
    return std::size_t{0};
  };
  const std::size_t end = note_line("finished");
  struct Forgery {
    std::size_t line;  // 0-based
    std::string from, to;
    std::string says;
  };
  const std::vector<Forgery> forgeries = {
      {0, "\"max_leaf\":", "\"max_leaf\":\"x\",\"was\":", "line 1: field host.cpuid.max_leaf has the wrong type"},
      {0, "\"hostname\":", "\"hostname\":[1],\"was\":", "line 1: field host.hostname has the wrong type"},
      {0, "\"online_cpus\":", "\"online_cpus\":{},\"was\":", "line 1: field host.online_cpus has the wrong type"},
      {end, "\"looks\":", "\"looks\":\"x\",\"was\":", "field sweep.looks is not a whole number"},
      {end, "\"seconds_per_block\":", "\"seconds_per_block\":\"x\",\"was\":", "field sweep.seconds_per_block is not a number"},
      {end, "\"time_budget\":", "\"time_budget\":1e308,\"was\":", "field sweep.time_budget is 1e+308"},
  };
  for (const Forgery& f : forgeries) {
    std::vector<std::string> forged = lines;
    const std::size_t at = forged[f.line].find(f.from);
    REQUIRE(at != std::string::npos);
    forged[f.line].replace(at, f.from.size(), f.to);
    spit(d / "forged.jsonl", joined(forged));
    const Result r = run({"report", d / "forged.jsonl"});
    INFO(f.to << "\n" << r.out);
    CHECK(r.code == 6);
    CHECK(contains(r.out, "line " + std::to_string(f.line + 1)));
    CHECK(contains(r.out, f.says));
    CHECK_FALSE(contains(r.out, "internal error"));
  }
  // An extend note to 477 million blocks and retire notes for every configuration:
  // refused at its line (it once kept report busy for over a minute).
  std::vector<std::string> forged = lines;
  forged.insert(forged.begin() + static_cast<long>(end) + 1, "{\"kind\":\"extend\",\"max_blocks\":477218587,\"type\":\"note\"}");
  spit(d / "forged.jsonl", joined(forged));
  const Result big = run({"report", d / "forged.jsonl"});
  INFO(big.out);
  CHECK(big.code == 6);
  CHECK(contains(big.out, "line " + std::to_string(end + 2) + ": note \"extend\": field max_blocks is 477218587"));
  CHECK(big.seconds < 10);
  // The most a note may raise the cap to, with every configuration retired: report
  // reads it in about the time of the runs it holds.
  forged = lines;
  std::smatch ids;
  std::string configs;
  const std::regex id("\"config_id\":\"([^\"]+)\"");
  for (const std::string& l : lines)
    if (std::regex_search(l, ids, id) && !contains(configs, "\"" + ids[1].str() + "\""))
      configs += (configs.empty() ? "" : ",") + ("\"" + ids[1].str() + "\"");
  forged.insert(forged.begin() + static_cast<long>(end) + 1, "{\"kind\":\"extend\",\"max_blocks\":1000000,\"type\":\"note\"}");
  forged.insert(forged.begin() + static_cast<long>(end) + 2,
                "{\"kind\":\"retire\",\"look\":2,\"from_block\":5,\"configs\":[" + configs + "],\"type\":\"note\"}");
  spit(d / "forged.jsonl", joined(forged));
  const Result most = run({"report", d / "forged.jsonl"});
  INFO(most.out);
  CHECK((most.code == 0 || most.code == 1 || most.code == 6));
  CHECK_FALSE(contains(most.out, "internal error"));
  CHECK(most.seconds < 10);
}

// Row 11, the sweep's brief.
TEST_CASE("a sweep journal's alpha and margins out of range are refused naming the line", "[adversarial]") {
  Dir d;
  const Result b = run({"bias", "--env-sizes", "0,64", "--runs", "2", "--counters", "task-clock", "--journal",
                        d / "b.jsonl", "--", "/bin/true"});
  INFO(b.out);
  REQUIRE((b.code == 0 || b.code == 1));
  std::vector<std::string> lines = unsigned_lines(d / "b.jsonl");
  const std::size_t at = lines[0].find("\"alpha\":");
  REQUIRE(at != std::string::npos);
  lines[0].replace(at, 8, "\"alpha\":5e8,\"was\":");
  spit(d / "b.jsonl", joined(lines));
  const Result r = run({"report", d / "b.jsonl"});
  INFO(r.out);
  CHECK(r.code == 6);
  CHECK(contains(r.out, "line 1"));
  CHECK(contains(r.out, "field alpha is 5e+08"));
}

// Row 13.
TEST_CASE("a FIFO or a device as the journal is refused at once", "[adversarial]") {
  Dir d;
  const std::string fifo = d / "j.jsonl";
  REQUIRE(::mkfifo(fifo.c_str(), 0644) == 0);
  for (const std::vector<std::string>& args :
       {std::vector<std::string>{"--resume", fifo}, {"measure", "--resume", fifo}, {"bias", "--resume", fifo},
        {"report", fifo}, {"--resume", "/dev/null"}, {"report", "/dev/zero"}}) {
    const Result r = run(args);
    INFO(args.at(0) << " " << args.at(1) << "\n" << r.out);
    CHECK(r.code == 6);
    CHECK(contains(r.out, "is not a regular file"));
    CHECK(r.seconds < 10);
  }
  struct stat st {};
  REQUIRE(::lstat("/dev/null", &st) == 0);
  CHECK(S_ISCHR(st.st_mode));
}

// Row 5.
TEST_CASE("a time budget beyond a year is refused, never run away", "[adversarial]") {
  Dir d;
  for (const char* budget : {"1e308", "1e20", "1e19", "31536001", "inf", "nan"}) {
    const Result r = run({"--time-budget", budget, "--counters", "task-clock", "--journal", d / "j.jsonl", "--",
                          "/bin/true"});
    INFO(budget << "\n" << r.out);
    CHECK(r.code == 2);
    CHECK(contains(r.out, "--time-budget is a number of seconds from 0 (no limit) to 3.1536e+07 (a year)"));
    CHECK_FALSE(fs::exists(d / "j.jsonl"));
  }
  // A year is taken, and the check stops at its cap as it would with any long budget.
  const Result r = run({"--time-budget", "31536000", "--max-runs", "5", "--counters", "task-clock", "--journal",
                        d / "j.jsonl", "--", "/bin/true"});
  INFO(r.out);
  CHECK((r.code == 0 || r.code == 1));
  CHECK(count_of(slurp(d / "j.jsonl"), "\"kind\":\"look\"") <= 5);
}

// Row 15.
TEST_CASE("control bytes from a journal are shown escaped in the report and the certificate", "[adversarial]") {
  Dir d;
  const Result ok = run({"--observer-cmd", "/usr/bin/env --", "--levels", "0,1", "--counters", "task-clock", "--runs",
                         "2", "--journal", d / "j.jsonl", "--", "/bin/true", "\x1b]0;owned\x07\x1b[2J"});
  INFO(ok.out);
  REQUIRE((ok.code == 0 || ok.code == 1));
  CHECK_FALSE(contains(ok.out, "\x1b]0;"));
  for (const std::vector<std::string>& args :
       {std::vector<std::string>{"report", d / "j.jsonl"}, {"report", d / "j.jsonl", "--color", "always"},
        {"report", d / "j.jsonl", "--certificate"}, {"report", d / "j.jsonl", "--markdown"}}) {
    const Result r = run(args);
    INFO(args.back() << "\n" << r.out);
    CHECK((r.code == 0 || r.code == 1));
    CHECK_FALSE(contains(r.out, "\x1b]"));
    CHECK_FALSE(contains(r.out, "\x1b[2J"));
    CHECK_FALSE(contains(r.out, "\x07"));
  }
  // --levels: a label with ESC is shown escaped in the error that refuses it, if refused.
  const Result lv = run({"--observer-cmd", "/usr/bin/env -- L={level}", "--levels", "0,\x1b[2J", "--counters",
                         "task-clock", "--runs", "2", "--journal", d / "k.jsonl", "--", "/bin/true"});
  INFO(lv.out);
  CHECK_FALSE(contains(lv.out, "\x1b[2J"));
  if (fs::exists(d / "k.jsonl")) {
    const Result r = run({"report", d / "k.jsonl"});
    CHECK_FALSE(contains(r.out, "\x1b[2J"));
  }
}

// Row 16.
TEST_CASE("a time budget of auto is applied or refused, never ignored", "[adversarial]") {
  Dir d;
  const Result w0 = run({"--time-budget", "auto", "-w", "0", "--counters", "task-clock", "--journal", d / "a.jsonl",
                         "--", "/bin/true"});
  INFO(w0.out);
  CHECK(w0.code == 2);
  CHECK(contains(w0.out, "-w 0 leaves none to size it by"));
  CHECK_FALSE(fs::exists(d / "a.jsonl"));
  const std::string j = small_journal(d);
  const std::string before = slurp(j);
  const Result resumed = run({"--resume", j, "--time-budget", "auto"});
  INFO(resumed.out);
  CHECK(resumed.code == 2);
  CHECK(contains(resumed.out, "a resume has no warm-up to size it by"));
  CHECK(slurp(j) == before);
  // With a warm-up it is applied: the forecast line says the budget it chose.
  const Result applied = run({"--time-budget", "auto", "--max-runs", "3", "--counters", "task-clock", "--journal",
                              d / "b.jsonl", "--", "/bin/true"});
  INFO(applied.out);
  CHECK((applied.code == 0 || applied.code == 1));
  CHECK(contains(applied.out, "--time-budget auto:"));
}
