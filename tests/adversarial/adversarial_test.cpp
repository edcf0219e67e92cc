// The adversarial round of docs/security.md, kept: each case is an attack or a bad
// input that once got through, run against the built obscheck, asserting the exit
// code, the message, and that nothing was written or left running. The cases that
// need a second user (a planted directory or link as `nobody`, --run-as) need root and
// report themselves skipped elsewhere.
#include <fcntl.h>
#include <grp.h>
#include <signal.h>
#include <sys/mount.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <catch2/catch.hpp>

#include "adversarial_support.h"
#include "../support/nobody_reach.h"
#include <algorithm>
#include <chrono>
#include <ctime>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

namespace fs = std::filesystem;

namespace {

// The memory a range bomb may use before it is refused: far above what obscheck needs
// to refuse it, far below the gigabytes the bombs reached.
constexpr rlim_t kBombAddressSpace = 1024ull * 1024 * 1024;

using adversarial::contains;
using adversarial::kNobody;
using adversarial::workload;
using adversarial::Dir;
using adversarial::Result;
using adversarial::run;
using adversarial::slurp;
using adversarial::Spawn;

bool can_be_nobody() { return ::geteuid() == 0; }

// An interrupted check's journal in `dir`: a finished one without its last run and the
// notes after it (as a kill -9 leaves it), then half a line (a torn tail).
std::string torn_journal(const Dir& dir) {
  const std::string j = dir / "j.jsonl";
  const Result r = run({"--counters", "task-clock", "--runs", "3", "--journal", j, "--", "/bin/true"});
  REQUIRE((r.code == 0 || r.code == 1));
  std::vector<std::string> lines;
  std::ifstream in(j);
  for (std::string line; std::getline(in, line);) lines.push_back(line);
  while (!lines.empty() && !contains(lines.back(), "\"type\":\"run\"")) lines.pop_back();
  REQUIRE(lines.size() > 2);
  lines.pop_back();
  std::ofstream out(j, std::ios::trunc);
  for (const std::string& l : lines) out << l << '\n';
  out << "{\"type\":\"run\",\"index\":";
  return j;
}

}  // namespace

TEST_CASE("slurm never writes into a directory another user planted", "[adversarial]") {
  if (!can_be_nobody()) {
    WARN("SKIPPED: needs root to plant directories as the nobody user");
    return;
  }
  Dir shared(01777);  // a sticky, world-writable directory, as /tmp
  // nobody plants the default names for the next two minutes, mode 0777.
  const std::time_t now = std::time(nullptr);
  std::vector<std::string> planted;
  for (int s = 0; s < 120; ++s) {
    const std::time_t t = now + s;
    std::tm tm{};
    ::gmtime_r(&t, &tm);
    char stamp[32];
    std::strftime(stamp, sizeof stamp, "%Y%m%d-%H%M%S", &tm);
    planted.push_back(shared / (std::string("obscheck-slurm-") + stamp));
  }
  const pid_t pid = ::fork();
  REQUIRE(pid >= 0);
  if (pid == 0) {
    if (::setresgid(kNobody, kNobody, kNobody) != 0 || ::setresuid(kNobody, kNobody, kNobody) != 0) ::_exit(1);
    for (const std::string& p : planted) {
      ::mkdir(p.c_str(), 0777);
      ::chmod(p.c_str(), 0777);
    }
    ::_exit(0);
  }
  int st = 0;
  ::waitpid(pid, &st, 0);
  REQUIRE(WEXITSTATUS(st) == 0);

  const Result r = run({"slurm", "--shards", "2", "--", "--counters", "task-clock", "/bin/true"}, {shared.path});
  INFO(r.out);
  REQUIRE(r.code == 0);
  for (const std::string& p : planted) {
    struct stat ps {};
    REQUIRE(::lstat(p.c_str(), &ps) == 0);
    CHECK(ps.st_uid == kNobody);
    CHECK(fs::is_empty(p));  // nothing of root's in nobody's directories
  }
  // The job went into a directory of root's own, not writable by others.
  bool found = false;
  for (const auto& e : fs::directory_iterator(shared.path)) {
    struct stat ds {};
    ::lstat(e.path().c_str(), &ds);
    if (ds.st_uid != 0) continue;
    found = true;
    CHECK((ds.st_mode & 022) == 0);
    CHECK(fs::exists(e.path() / "submit.sh"));
    CHECK(contains(r.out, e.path().string()));
  }
  CHECK(found);
}

TEST_CASE("slurm --dir owned by another user, or a link, is refused and left as it was", "[adversarial]") {
  if (!can_be_nobody()) {
    WARN("SKIPPED: needs root to plant a directory as the nobody user");
    return;
  }
  Dir shared(01777);
  const std::string theirs = shared / "theirs";
  REQUIRE(::mkdir(theirs.c_str(), 0777) == 0);
  REQUIRE(::chmod(theirs.c_str(), 0777) == 0);
  REQUIRE(::chown(theirs.c_str(), kNobody, kNobody) == 0);
  const Result owned = run({"slurm", "--dir", theirs, "--", "--counters", "task-clock", "/bin/true"});
  INFO(owned.out);
  CHECK(owned.code == 6);
  CHECK(contains(owned.out, "owned by another user"));
  CHECK(fs::is_empty(theirs));

  const std::string link = shared / "link";
  REQUIRE(::symlink(theirs.c_str(), link.c_str()) == 0);
  REQUIRE(::lchown(link.c_str(), kNobody, kNobody) == 0);
  const Result linked = run({"slurm", "--dir", link, "--", "--counters", "task-clock", "/bin/true"});
  INFO(linked.out);
  CHECK(linked.code == 6);
  CHECK(contains(linked.out, "symbolic link"));
  CHECK(fs::is_empty(theirs));

  // A directory of ours that others may write to: they could replace submit.sh.
  const std::string open_dir = shared / "open";
  REQUIRE(::mkdir(open_dir.c_str(), 0777) == 0);
  REQUIRE(::chmod(open_dir.c_str(), 0777) == 0);
  const Result writable = run({"slurm", "--dir", open_dir, "--", "--counters", "task-clock", "/bin/true"});
  CHECK(writable.code == 6);
  CHECK(contains(writable.out, "writable by group or others"));
  CHECK(fs::is_empty(open_dir));
}

TEST_CASE("slurm refuses a newline in --partition or --time, and zero shards", "[adversarial]") {
  Dir d;
  for (const std::vector<std::string>& bad :
       {std::vector<std::string>{"--partition", "p1\ntouch x"}, {"--time", "30:00\n#SBATCH --uid=0"},
        {"--partition", "p1;touch x"}}) {
    std::vector<std::string> args{"slurm", "--dir", d / "job"};
    args.insert(args.end(), bad.begin(), bad.end());
    args.insert(args.end(), {"--", "--counters", "task-clock", "/bin/true"});
    const Result r = run(args, {d.path});
    INFO(r.out);
    CHECK(r.code == 2);
    CHECK(contains(r.out, "#SBATCH line"));
    CHECK(d.names().empty());
  }
  // The target's argv goes into a comment of shard.sbatch: a newline there must not
  // end the comment and leave a command behind.
  const Result argv_nl = run({"slurm", "--dir", d / "job", "--", "--counters", "task-clock", "/bin/echo",
                              "x\ntouch " + d / "injected"}, {d.path});
  INFO(argv_nl.out);
  REQUIRE(argv_nl.code == 0);
  const std::string script = slurp(d / "job/shard.sbatch");
  CHECK_FALSE(contains(script, "\ntouch "));
  CHECK(contains(script, "x?touch"));
  fs::remove_all(d / "job");
  for (const char* opt : {"--shards", "--nodes"}) {
    const Result r = run({"slurm", opt, "0", "--dir", d / "job", "--", "--counters", "task-clock", "/bin/true"}, {d.path});
    INFO(r.out);
    CHECK(r.code == 2);
    CHECK(contains(r.out, "is 1..10000, not 0"));
    CHECK(d.names().empty());
  }
}

namespace {

// The pids whose command line is exactly `argv` (NULs between words).
std::vector<pid_t> pids_running(const std::string& cmdline) {
  std::vector<pid_t> out;
  for (const auto& e : fs::directory_iterator("/proc")) {
    const std::string name = e.path().filename().string();
    if (name.find_first_not_of("0123456789") != std::string::npos) continue;
    if (slurp(e.path() / "cmdline") == cmdline) out.push_back(std::stoi(name));
  }
  return out;
}

// Starts obscheck ARGS, waits until a process runs `marker_cmdline`, kill -9s obscheck,
// and says whether that process is gone within 5 s.
bool target_dies_with_obscheck(const std::vector<std::string>& args, const std::string& marker) {
  const pid_t pid = ::fork();
  REQUIRE(pid >= 0);
  if (pid == 0) {
    const int nul = ::open("/dev/null", O_RDWR);
    ::dup2(nul, 0);
    ::dup2(nul, 1);
    ::dup2(nul, 2);
    std::vector<char*> argv = {const_cast<char*>(OBSCHECK_BIN)};
    for (const std::string& a : args) argv.push_back(const_cast<char*>(a.c_str()));
    argv.push_back(nullptr);
    ::execv(OBSCHECK_BIN, argv.data());
    ::_exit(127);
  }
  auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(30);
  std::vector<pid_t> targets;
  while (targets.empty() && std::chrono::steady_clock::now() < deadline) {
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
    targets = pids_running(marker);
  }
  REQUIRE_FALSE(targets.empty());
  ::kill(pid, SIGKILL);
  ::waitpid(pid, nullptr, 0);
  deadline = std::chrono::steady_clock::now() + std::chrono::seconds(5);
  while (!pids_running(marker).empty() && std::chrono::steady_clock::now() < deadline)
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  const bool gone = pids_running(marker).empty();
  for (pid_t t : pids_running(marker)) ::kill(t, SIGKILL);  // leave nothing behind either way
  return gone;
}

}  // namespace

TEST_CASE("kill -9 of obscheck takes a --run-as target with it", "[adversarial]") {
  if (!can_be_nobody()) {
    WARN("SKIPPED: needs root for --run-as nobody");
    return;
  }
  SKIP_UNLESS_NOBODY_REACHES(OBSCHECK_BIN);
  Dir d;
  // A sleep of a length no other process uses, so it can be found by its command line.
  const std::string length = "41.7" + std::to_string(::getpid() % 1000);
  const std::string marker = std::string("/bin/sleep") + '\0' + length + '\0';
  CHECK(target_dies_with_obscheck({"--runs", "3", "--counters", "task-clock", "--run-as", "nobody", "--journal",
                                   d / "a.jsonl", "--", "/bin/sleep", length},
                                  marker));
  // Under a profiler command (env, which execs the target in its place), the same.
  CHECK(target_dies_with_obscheck({"--runs", "3", "--counters", "task-clock", "--run-as", "nobody", "--observer-cmd",
                                   "/usr/bin/env --", "--levels", "0,1", "--journal", d / "b.jsonl", "--",
                                   "/bin/sleep", length},
                                  marker));
}

TEST_CASE("an output naming an input is refused, the input left byte for byte", "[adversarial]") {
  Dir d;
  const std::string j = torn_journal(d);
  const std::string before = slurp(j);
  for (const std::vector<std::string>& args :
       {std::vector<std::string>{"report", j, "-o", j}, {"report", j, "--html", j}, {"report", j, "--json", "-o", j},
        {"--resume", j, "-o", j}, {"--resume", j, "--html", d / "./j.jsonl"}}) {
    const Result r = run(args, {d.path});
    INFO(r.out);
    CHECK(r.code == 2);
    CHECK(contains(r.out, "writing it would replace what it is read from"));
    CHECK(slurp(j) == before);
  }
  // A hard link to the journal is the journal.
  REQUIRE(::link(j.c_str(), (d / "hard.txt").c_str()) == 0);
  CHECK(run({"report", j, "-o", d / "hard.txt"}).code == 2);
  CHECK(slurp(j) == before);
  // A check whose report would replace its own new journal: nothing is run or created.
  const Result c = run({"--counters", "task-clock", "--runs", "3", "--journal", d / "new.jsonl", "-o", d / "new.jsonl",
                        "--", "/bin/true"});
  CHECK(c.code == 2);
  CHECK_FALSE(fs::exists(d / "new.jsonl"));
  // bias: --export-json over the journal it resumes.
  const Result b = run({"bias", "--env-sizes", "0,64", "--runs", "2", "--counters", "task-clock", "--journal",
                        d / "b.jsonl", "--", "/bin/true"});
  REQUIRE((b.code == 0 || b.code == 1));
  const std::string bias_before = slurp(d / "b.jsonl");
  const Result e = run({"bias", "--resume", d / "b.jsonl", "--export-json", d / "b.jsonl"});
  INFO(e.out);
  CHECK(e.code == 2);
  CHECK_FALSE(contains(e.out, "wrote"));
  CHECK(slurp(d / "b.jsonl") == bias_before);
}

TEST_CASE("range bombs are refused under a 1 GiB address space, quickly", "[adversarial]") {
  Dir d;
  // A sparse plan of 1 GiB: refused by its size, not read.
  {
    const int fd = ::open((d / "sparse.json").c_str(), O_WRONLY | O_CREAT, 0644);
    REQUIRE(fd >= 0);
    REQUIRE(::ftruncate(fd, 1024ll * 1024 * 1024) == 0);
    ::close(fd);
  }
  const Spawn bombed{d.path, 0, kBombAddressSpace};
  struct Bomb {
    std::vector<std::string> args;
    int code;
    const char* says;
  };
  const std::vector<Bomb> bombs = {
      {{"bias", "--argv0-pads", "1:1000000000:1", "--contexts", "3", "--", "/bin/true"}, 2, "above"},
      {{"bias", "--env-sizes", "0:1000000000:1", "--", "/bin/true"}, 2, "above"},
      {{"bias", "--env-sizes", "0:100000:1", "--", "/bin/true"}, 2, "a sweep takes at most"},
      {{"bias", "--argv0-pads", "0:1000:1", "--env-sizes", "0:1000:10", "--", "/bin/true"}, 2, "a sweep takes at most"},
      {{"run", "--plan", "/dev/zero", "--shard", "0/2"}, 6, "not a regular file"},
      {{"run", "--plan", "/dev/urandom", "--shard", "0/2"}, 6, "not a regular file"},
      {{"run", "--plan", d / "sparse.json", "--shard", "0/2"}, 6, "a plan is at most"},
      {{"--env-pad", "1000000000000", "--counters", "task-clock", "--", "/bin/true"}, 2, "MAX_ARG_STRLEN"},
      {{"--env-pad", "100000000", "--counters", "task-clock", "--", "/bin/true"}, 2, "MAX_ARG_STRLEN"},
      {{"--runs", "2000000000", "--counters", "task-clock", "--", "/bin/true"}, 2, "above the most"},
      {{"--sample-freq", "0,1,2,3,4,5,6,7,8,9,10,11,12,13,14,15,16,17,18,19,20,21,22,23,24,25,26,27,28,29,30,31,32,"
                         "33,34,35,36,37,38,39,40,41,42,43,44,45,46,47,48,49,50,51,52,53,54,55,56,57,58,59,60,61,62,"
                         "63,64", "--", "/bin/true"}, 2, "at most 64"},
  };
  for (const Bomb& b : bombs) {
    const auto start = std::chrono::steady_clock::now();
    const Result r = run(b.args, bombed);
    INFO(b.args.at(0) << " " << b.args.at(1) << " " << b.args.at(2) << "\n" << r.out);
    CHECK(r.code == b.code);
    CHECK(contains(r.out, b.says));
    CHECK_FALSE(contains(r.out, "out of memory"));
    CHECK(std::chrono::steady_clock::now() - start < std::chrono::seconds(20));
    std::vector<std::string> left = d.names();
    std::erase(left, "sparse.json");
    CHECK(left.empty());  // no journal, no plan
  }
}

TEST_CASE("a minus sign is refused, never wrapped around", "[adversarial]") {
  Dir d;
  for (const std::vector<std::string>& args :
       {std::vector<std::string>{"--sample-freq", "-5", "--", "/bin/true"}, {"--sample-freq", "100,-1", "--", "/bin/true"},
        {"--probes", "auto:-3", "--", workload("hot")}, {"--breakpoints", "auto:-1", "--", workload("hot")},
        {"--seed", "-1", "--", "/bin/true"}, {"--env-pad", "-1", "--", "/bin/true"},
        {"bias", "--env-sizes", "-1,5", "--", "/bin/true"}, {"bias", "--argv0-pads", "0:-5:1", "--", "/bin/true"}}) {
    const Result r = run(args, {d.path});
    INFO(args.at(0) << " " << args.at(1) << "\n" << r.out);
    CHECK(r.code == 2);
    CHECK(contains(r.out, "is not a"));
    CHECK_FALSE(contains(r.out, "Hz"));     // no frequency wrapped around to 2^64 - 5
    CHECK_FALSE(contains(r.out, "auto:1"));  // no probe count wrapped around
    CHECK(d.names().empty());
  }
  const Result zero = run({"--probes", "auto:0", "--", workload("hot")}, {d.path});
  CHECK(zero.code == 2);
  CHECK(contains(zero.out, "auto:0 leaves no dose to compare"));
}

TEST_CASE("a refused --resume leaves the journal byte for byte, torn tail and all", "[adversarial]") {
  Dir d;
  const std::string j = torn_journal(d);
  const std::string before = slurp(j);
  // Another environment: the resume is refused (exit 2), after the journal was opened.
  const pid_t pid = ::fork();
  REQUIRE(pid >= 0);
  if (pid == 0) {
    ::setenv("OBSCHECK_ADVERSARIAL_EXTRA", "a value that moves the stack", 1);
    const int nul = ::open("/dev/null", O_RDWR);
    ::dup2(nul, 1);
    ::dup2(nul, 2);
    ::execl(OBSCHECK_BIN, OBSCHECK_BIN, "--resume", j.c_str(), static_cast<char*>(nullptr));
    ::_exit(127);
  }
  int st = 0;
  ::waitpid(pid, &st, 0);
  CHECK(WEXITSTATUS(st) == 2);
  CHECK(slurp(j) == before);
  // The same resume in the journal's environment cuts the tail and finishes.
  const Result ok = run({"--resume", j});
  INFO(ok.out);
  CHECK((ok.code == 0 || ok.code == 1));
  CHECK(slurp(j).size() != before.size());
}

TEST_CASE("what exec would refuse is found before the first run, no journal left", "[adversarial]") {
  Dir d;
  const auto file = [&](const std::string& name, const std::string& bytes) {
    std::ofstream(d / name) << bytes;
    ::chmod((d / name).c_str(), 0755);
    return d / name;
  };
  const std::string data = file("data.bin", "\x01\x02\x03 not a program\n");
  const std::string no_interp = file("script.sh", "#!/nonexistent/interpreter\necho hi\n");
  const std::string no_exec = file("noexec.sh", "#!/bin/sh\ntrue\n");
  ::chmod(no_exec.c_str(), 0644);
  struct Case {
    std::vector<std::string> args;
    int code;
    const char* says;
  };
  const std::vector<Case> cases = {
      {{"--counters", "task-clock", "--", data}, 3, "exec format error"},
      {{"--counters", "task-clock", "--", no_interp}, 3, "/nonexistent/interpreter cannot be run"},
      {{"--counters", "task-clock", "--", no_exec}, 3, "not executable"},
      {{"--observer-cmd", "no-such-profiler-xyz --", "--levels", "0,1", "--", "/bin/true"}, 3, "profiler command"},
      {{"--observer-cmd", "/usr/bin/env", "--levels", "0,1", "--", "/bin/true"}, 2, "does not say where the target goes"},
      {{"--observer-cmd", "", "--levels", "0,1", "--", "/bin/true"}, 2, "--observer-cmd is empty"},
      {{"--sample-freq", "0,18446744073709551615", "--", "/bin/true"}, 4, "perf_event_max_sample_rate"},
      {{"--counters", "task-clock", "-o", d / "missing/r.txt", "--", "/bin/true"}, 6, "create the directory first"},
      {{"--counters", "task-clock", "-o", d.path, "--", "/bin/true"}, 6, "it is a directory"},
      {{"--counters", "task-clock", "--html", d / "data.bin/x.html", "--", "/bin/true"}, 6, "not a directory"},
  };
  for (const Case& c : cases) {
    const Result r = run(c.args, {d.path});
    INFO(c.args.at(0) << " " << c.args.at(1) << " ... " << c.args.back() << "\n" << r.out);
    CHECK(r.code == c.code);
    CHECK(contains(r.out, c.says));
    CHECK(d.names() == (std::vector<std::string>{"data.bin", "noexec.sh", "script.sh"}));
  }
}

TEST_CASE("an -o on a read-only filesystem is refused before the check runs", "[adversarial]") {
  Dir d;
  const std::string ro = d / "ro";
  fs::create_directory(ro);
  if (::geteuid() != 0 || ::mount("none", ro.c_str(), "tmpfs", MS_RDONLY, "size=64k") != 0) {
    WARN("SKIPPED: needs root to mount a read-only tmpfs");
    return;
  }
  const Result r = run({"--counters", "task-clock", "--runs", "3", "-o", ro + "/r.txt", "--", "/bin/true"}, {d.path});
  ::umount(ro.c_str());
  INFO(r.out);
  CHECK(r.code == 6);
  CHECK(contains(r.out, "Read-only file system"));
  CHECK(d.names() == std::vector<std::string>{"ro"});  // no journal either
}

TEST_CASE("misleading messages now say what is true", "[adversarial]") {
  Dir d;
  fs::create_directory(d / "sub");
  const Result dir_journal = run({"--counters", "task-clock", "--journal", d / "sub", "--", "/bin/true"}, {d.path});
  CHECK(dir_journal.code == 6);
  CHECK(contains(dir_journal.out, "is a directory"));
  CHECK_FALSE(contains(dir_journal.out, "--resume"));
  const Result dev_journal = run({"--counters", "task-clock", "--journal", "/dev/null", "--", "/bin/true"}, {d.path});
  CHECK(dev_journal.code == 6);
  CHECK(contains(dev_journal.out, "not a regular file"));
  CHECK_FALSE(contains(dev_journal.out, "use --resume"));
  const Result plan_dir = run({"run", "--plan", d / "sub", "--shard", "0/2"}, {d.path});
  CHECK(plan_dir.code == 6);
  CHECK(contains(plan_dir.out, "is a directory"));
  const Result plan = run({"plan", "--counters", "task-clock", "-o", d / "plan.json", "--", "/bin/true"}, {d.path});
  REQUIRE(plan.code == 0);
  const Result report_plan = run({"report", d / "plan.json"}, {d.path});
  INFO(report_plan.out);
  CHECK(report_plan.code == 6);
  CHECK(contains(report_plan.out, "is a plan (written by obscheck plan), not a journal"));
}
