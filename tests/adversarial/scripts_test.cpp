// The adversarial round against the shell the project ships and generates: the scripts
// in tools/ and experiments/ attacked as root with the nobody user planting files (each
// attack a script in tests/adversarial/scripts/ that prints "ok:", "FAIL:" or
// "SKIPPED: why"), the scripts `obscheck slurm` writes run under sh with every value
// they interpolate made hostile, and the standing rule that no script names a fixed
// path in /tmp.
#include <fcntl.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <catch2/catch.hpp>

#include "adversarial_support.h"
#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <regex>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

namespace fs = std::filesystem;

namespace {

const std::string kSource = OBSCHECK_SOURCE_DIR;

struct Ran {
  int code = -1;
  std::string out;  // stdout and stderr together
};

// Runs argv (no shell) in `cwd` with `env` added to ours; stdout and stderr together;
// killed after `seconds` (a hang fails the test).
Ran run_tool(const std::vector<std::string>& argv, const std::string& cwd = "", const std::vector<std::string>& env = {},
        int seconds = 120) {
  char tmpl[] = "/tmp/obscheck-scripts-out-XXXXXX";
  const int fd = ::mkstemp(tmpl);
  REQUIRE(fd >= 0);
  const pid_t pid = ::fork();
  REQUIRE(pid >= 0);
  if (pid == 0) {
    ::dup2(fd, 1);
    ::dup2(fd, 2);
    const int nul = ::open("/dev/null", O_RDONLY);
    ::dup2(nul, 0);
    if (!cwd.empty() && ::chdir(cwd.c_str()) != 0) ::_exit(126);
    for (const std::string& e : env) ::putenv(const_cast<char*>(e.c_str()));
    std::vector<char*> args;
    for (const std::string& a : argv) args.push_back(const_cast<char*>(a.c_str()));
    args.push_back(nullptr);
    ::execvp(args[0], args.data());
    ::_exit(127);
  }
  int status = 0;
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(seconds);
  while (::waitpid(pid, &status, WNOHANG) == 0) {
    if (std::chrono::steady_clock::now() > deadline) {
      ::kill(pid, SIGKILL);
      ::waitpid(pid, &status, 0);
      FAIL(argv[0] << " did not finish within " << seconds << " s");
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
  Ran r;
  r.code = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
  std::ifstream in(tmpl);
  std::ostringstream s;
  s << in.rdbuf();
  r.out = s.str();
  ::close(fd);
  ::unlink(tmpl);
  return r;
}

using adversarial::contains;
using adversarial::slurp;

// A new private directory, removed with what is in it.
struct TempDir {
  fs::path path;
  TempDir() {
    char tmpl[] = "/tmp/obscheck-scripts-XXXXXX";
    REQUIRE(::mkdtemp(tmpl) != nullptr);
    path = tmpl;
  }
  ~TempDir() {
    std::error_code ec;
    fs::remove_all(path, ec);
  }
};

// Runs tests/adversarial/scripts/NAME with ARGS: its "SKIPPED: why" is a skip, anything
// but exit 0 without a "FAIL:" line a failure (its output says which case).
void attack_script(const std::string& name, const std::vector<std::string>& args, int seconds) {
  std::vector<std::string> argv = {"bash", kSource + "/tests/adversarial/scripts/" + name};
  argv.insert(argv.end(), args.begin(), args.end());
  const Ran r = run_tool(argv, "", {}, seconds);
  if (contains(r.out, "SKIPPED: ")) {
    WARN(r.out);
    return;
  }
  INFO(r.out);
  CHECK(r.code == 0);
  CHECK(!contains(r.out, "FAIL:"));
  CHECK(contains(r.out, "ok: "));
}

// How sbatch splits a #SBATCH line into words (Slurm's sbatch/opt.c): whitespace ends a
// word outside quotes, '...' and "..." quote, a backslash escapes the next character
// everywhere, an unquoted # starts a comment.
std::vector<std::string> sbatch_words(const std::string& line) {
  std::vector<std::string> words;
  std::string w;
  bool in_word = false, escape = false;
  char quote = 0;
  for (const char c : line) {
    if (escape) {
      w += c;
      escape = false;
      continue;
    }
    if (c == '\\') {
      escape = in_word = true;
      continue;
    }
    if (quote) {
      if (c == quote) quote = 0;
      else w += c;
      continue;
    }
    if (c == '"' || c == '\'') {
      quote = c;
      in_word = true;
      continue;
    }
    if (c == '#') break;
    if (c == ' ' || c == '\t') {
      if (in_word) words.push_back(w);
      w.clear();
      in_word = false;
      continue;
    }
    w += c;
    in_word = true;
  }
  if (in_word) words.push_back(w);
  return words;
}

// The value of `--NAME=` in a script's #SBATCH lines, as sbatch reads it.
std::string sbatch_option(const std::string& script, const std::string& name) {
  std::istringstream in(script);
  for (std::string line; std::getline(in, line);) {
    if (line.rfind("#SBATCH ", 0) != 0) continue;
    for (const std::string& w : sbatch_words(line.substr(8)))
      if (w.rfind("--" + name + "=", 0) == 0) return w.substr(name.size() + 3);
  }
  return "<none>";
}

// Whether a file named INJECTED exists anywhere under `root`.
bool injected_under(const fs::path& root) {
  for (const auto& e : fs::recursive_directory_iterator(root))
    if (e.path().filename() == "INJECTED") return true;
  return false;
}

}  // namespace

TEST_CASE("slurm-local: a state directory another user planted is refused, and down signals only its own daemons",
          "[adversarial]") {
  attack_script("slurm_local_planted.sh", {kSource}, 120);
}

TEST_CASE("atlas as root: nothing nobody could have changed is read, written or run by root", "[adversarial]") {
  attack_script("atlas_as_root.sh", {kSource, OBSCHECK_BIN}, 180);
}

TEST_CASE("fresh_machine: INT, TERM, HUP and KILL end the fresh machine's processes and leave no mount",
          "[adversarial]") {
  attack_script("fresh_machine_signals.sh", {kSource}, 180);
}

TEST_CASE("lab: a student runs an experiment from a read-only copy and keeps their files", "[adversarial]") {
  attack_script("lab_readonly.sh", {kSource, OBSCHECK_BIN}, 180);
}

// Every value `obscheck slurm` interpolates into a script is hostile here: the job's
// directory, obscheck's own path (a copy of the driver in a directory so named, with a
// backslash and a % as well: those two the directory cannot hold, see below) and the
// target's words (in a comment, a newline too). Each script then runs under sh,
// submit.sh with a stand-in sbatch on PATH, the shard and the merge for real: no
// injected command runs, every file lands where it should, and sbatch's own reading of
// the #SBATCH lines gives back the directory.
TEST_CASE("slurm: the generated scripts quote every interpolated value for sh and for sbatch", "[adversarial]") {
  const std::vector<std::string> hostile = {"$(id>INJECTED)", "`id>INJECTED`", "a\"b", "a'b", "sp ace #c"};
  TempDir t;
  // A stand-in sbatch: notes where it ran and with what, prints a job id.
  const fs::path bin = t.path / "bin";
  fs::create_directories(bin);
  const fs::path log = t.path / "sbatch.log";
  {
    std::ofstream f(bin / "sbatch");
    f << "#!/bin/sh\nprintf '%s|%s\\n' \"$PWD\" \"$*\" >> \"$SBATCH_LOG\"\necho 42\n";
  }
  fs::permissions(bin / "sbatch", fs::perms::owner_all | fs::perms::group_read | fs::perms::group_exec);
  const std::string path_env = "PATH=" + bin.string() + ":" + std::getenv("PATH");

  for (const std::string& h : hostile) {
    SECTION("the value " + h) {
      // obscheck's own path: a copy of the driver in a directory with the value in its name.
      const fs::path self_dir = t.path / ("bin " + h + " back\\slash %a");
      fs::create_directories(self_dir);
      fs::copy_file(OBSCHECK_BIN, self_dir / "obscheck");
      fs::permissions(self_dir / "obscheck", fs::perms::owner_all);
      const fs::path dir = t.path / ("job " + h);
      const Ran w = run_tool({(self_dir / "obscheck").string(), "slurm", "--shards", "1", "--dir", dir.string(), "--",
                         "--counters", "task-clock", "--runs", "3", "/bin/sh", "-c", "true", h, "x\ny" + h},
                        t.path.string());
      INFO(w.out);
      REQUIRE(w.code == 0);
      const std::string shard = slurp(dir / "shard.sbatch"), merge = slurp(dir / "merge.sbatch");
      CHECK(sbatch_option(shard, "chdir") == dir.string());
      CHECK(sbatch_option(merge, "chdir") == dir.string());
      CHECK(sbatch_option(shard, "output") == "shard-%a.out");
      CHECK(sbatch_option(merge, "output") == "merge.out");

      fs::remove(log);
      const Ran submit = run_tool({"sh", (dir / "submit.sh").string()}, t.path.string(),
                             {path_env, "SBATCH_LOG=" + log.string()});
      INFO(submit.out);
      CHECK(submit.code == 0);
      CHECK(submit.out == "shards: job 42; merge: job 42; report: " + dir.string() + "/report.txt\n");
      CHECK(slurp(log) == dir.string() + "|--parsable shard.sbatch\n" + dir.string() +
                              "|--parsable --dependency=afterok:42 merge.sbatch\n");

      const Ran shard_run = run_tool({"sh", (dir / "shard.sbatch").string()}, t.path.string(), {"SLURM_ARRAY_TASK_ID=0"});
      INFO(shard_run.out);
      CHECK(shard_run.code == 0);
      CHECK(fs::is_regular_file(dir / "shard-0.jsonl"));
      CHECK(fs::is_regular_file(dir / "shard-0.txt"));
      const Ran merge_run = run_tool({"sh", (dir / "merge.sbatch").string()}, t.path.string());
      INFO(merge_run.out);
      CHECK(merge_run.code == 0);
      CHECK(contains(slurp(dir / "report.txt"), "task-clock"));
      CHECK(fs::is_regular_file(dir / "report.json"));
      CHECK(!injected_under(t.path));
    }
  }
}

// Slurm names a job's output files from its working directory as patterns (% starts a
// replacement, a backslash turns them off and is dropped): a directory holding either
// is refused before anything is written, as is a newline anywhere.
TEST_CASE("slurm: a newline in the directory or in obscheck's own path is refused, nothing written", "[adversarial]") {
  TempDir t;
  for (const std::string name : {"job\\b", "job %a"}) {
    const Ran r = run_tool({OBSCHECK_BIN, "slurm", "--dir", (t.path / name).string(), "--", "--counters", "task-clock",
                       "/bin/true"},
                      t.path.string());
    INFO(r.out);
    CHECK(r.code == 2);
    CHECK(contains(r.out, "file name patterns"));
    CHECK(!fs::exists(t.path / name));
  }
  const fs::path dir = t.path / "job\n$(id>INJECTED)";
  const Ran r = run_tool({OBSCHECK_BIN, "slurm", "--dir", dir.string(), "--", "--counters", "task-clock", "/bin/true"},
                    t.path.string());
  INFO(r.out);
  CHECK(r.code == 2);
  CHECK(contains(r.out, "control character"));
  CHECK(!fs::exists(dir));

  const fs::path self_dir = t.path / "bin\nx";
  fs::create_directories(self_dir);
  fs::copy_file(OBSCHECK_BIN, self_dir / "obscheck");
  fs::permissions(self_dir / "obscheck", fs::perms::owner_all);
  const Ran s = run_tool({(self_dir / "obscheck").string(), "slurm", "--dir", (t.path / "job").string(), "--", "--counters",
                     "task-clock", "/bin/true"},
                    t.path.string());
  INFO(s.out);
  CHECK(s.code == 2);
  CHECK(contains(s.out, "control character"));
  CHECK(!fs::exists(t.path / "job"));
  CHECK(!injected_under(t.path));
}

TEST_CASE("slurm: --partition and --time take only plain words", "[adversarial]") {
  TempDir t;
  for (const std::string h : {"$(id>INJECTED)", "`id`", "a\"b", "a'b", "a\\b", "a b", "a\nb"}) {
    for (const char* option : {"--partition", "--time"}) {
      const Ran r = run_tool({OBSCHECK_BIN, "slurm", option, h, "--dir", (t.path / "job").string(), "--", "--counters",
                         "task-clock", "/bin/true"},
                        t.path.string());
      INFO(option << " " << h << ": " << r.out);
      CHECK(r.code == 2);
      CHECK(!fs::exists(t.path / "job"));
    }
  }
  CHECK(!injected_under(t.path));
}

// The standing rule for the scripts (docs/security.md): no fixed or guessable name in
// /tmp. A path in /tmp is made by mktemp or mkdtemp (its name ends in XXXXXX) or is
// not there at all.
TEST_CASE("no script or tool in tools/ or experiments/ names a fixed path in /tmp", "[adversarial]") {
  const std::regex fixed(R"(/tmp/[A-Za-z0-9_.-]+)");
  std::vector<std::string> found;
  for (const char* top : {"tools", "experiments"}) {
    for (const auto& e : fs::recursive_directory_iterator(kSource + "/" + top)) {
      if (!e.is_regular_file()) continue;
      const std::string name = e.path().string();
      if (contains(name, "/results/") || e.path().extension() == ".md") continue;  // records and prose
      std::ifstream in(e.path());
      int n = 0;
      for (std::string line; std::getline(in, line);) {
        ++n;
        for (std::sregex_iterator m(line.begin(), line.end(), fixed), end; m != end; ++m) {
          const std::string p = m->str();
          if (p.size() >= 6 && p.compare(p.size() - 6, 6, "XXXXXX") == 0) continue;
          found.push_back(name.substr(kSource.size() + 1) + ":" + std::to_string(n) + ": " + p);
        }
      }
    }
  }
  INFO([&] {
    std::string s;
    for (const std::string& f : found) s += f + "\n";
    return s;
  }());
  CHECK(found.empty());
}

// The lab from an install, as README sends a reader there: the experiments and the
// pages it links are installed, and an experiment runs from the installed copy with
// the installed driver found on PATH and OUT a directory of the reader's.
TEST_CASE("lab: an install has the experiments and the pages README names, and runs them", "[adversarial]") {
  if (std::system("command -v cmake > /dev/null 2>&1 && command -v cc > /dev/null 2>&1") != 0) {
    WARN("SKIPPED: cmake and cc are needed to install and to build the experiment's workload");
    return;
  }
  TempDir t;
  const fs::path prefix = t.path / "prefix", build = fs::path(OBSCHECK_BIN).parent_path();
  const Ran installed = run_tool({"cmake", "--install", build.string(), "--prefix", prefix.string()});
  INFO(installed.out);
  REQUIRE(installed.code == 0);
  for (const char* page : {"events.md", "design.md", "security.md"})
    CHECK(fs::is_regular_file(prefix / "share/doc/obscheck" / page));
  const fs::path lab = prefix / "share/obscheck/experiments";
  CHECK(fs::is_regular_file(lab / "README.md"));
  CHECK(fs::is_regular_file(lab / "lib.sh"));
  CHECK(fs::is_regular_file(lab / "workloads/compute.c"));
  CHECK(!fs::exists(lab / "workloads/CMakeLists.txt"));
  const fs::path out = t.path / "mine";
  fs::create_directories(out);
  std::ofstream(out / "notes.txt") << "mine\n";
  const Ran ran = run_tool({"bash", (lab / "fig13-variants/run.sh").string()}, t.path.string(),
                      {"PATH=" + (prefix / "bin").string() + ":/usr/bin:/bin", "OUT=" + out.string()});
  INFO(ran.out);
  CHECK(ran.code == 0);
  CHECK(contains(ran.out, "point: "));
  CHECK(fs::is_regular_file(out / "report.txt"));
  CHECK(slurp(out / "notes.txt") == "mine\n");
}

// tools/bench/bench_build, a script that starts a build, a suite and a staged load:
// bad arguments are refused before anything is cloned, and TERM while the suite's part
// runs ends the build, the staged load and the load sampler, and removes the scratch
// folder (the script's own rules, from its header).
TEST_CASE("bench_build: bad arguments exit 2 before any clone, and TERM ends the build and the staged load",
          "[adversarial]") {
  const std::string script = kSource + "/tools/bench/bench_build";
  TempDir tmp;
  const std::string tmpdir = "TMPDIR=" + tmp.path.string();
  for (const std::vector<std::string>& args :
       {std::vector<std::string>{"--busy", "0.6"}, {"--test", "--busy", "1"}, {"--test", "--busy", "0.04"},
        {"--test", "--busy", "0.123"}, {"--test", "--busy", "x"}, {"--test", "--busy"}, {"--jobs", "0"},
        {"--rev", "--test"}, {"--nonsense"}}) {
    std::vector<std::string> argv = {"bash", script};
    argv.insert(argv.end(), args.begin(), args.end());
    const Ran r = run_tool(argv, "", {tmpdir}, 30);
    INFO(r.out);
    CHECK(r.code == 2);
    CHECK(contains(r.out, "usage: tools/bench/bench_build"));
    CHECK(fs::is_empty(tmp.path));
  }

  if (std::system(("git -C '" + kSource + "' rev-parse --git-dir > /dev/null 2>&1").c_str()) != 0) {
    WARN("SKIPPED: the source tree is not a git clone, and bench_build clones it");
    return;
  }
  const fs::path out = tmp.path / "out.txt";
  const fs::path scratch_root = tmp.path / "scratch";
  fs::create_directory(scratch_root);
  const pid_t pid = ::fork();
  REQUIRE(pid >= 0);
  if (pid == 0) {
    const int fd = ::open(out.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0600);
    ::dup2(fd, 1);
    ::dup2(fd, 2);
    ::setenv("TMPDIR", scratch_root.c_str(), 1);
    ::execlp("bash", "bash", script.c_str(), "--test-only", "--busy", "0.3", "--jobs", "1", (char*)nullptr);
    ::_exit(127);
  }
  // Until the staged load has started (the packages are checked and the clone made
  // first), or the script has ended on its own (packages missing: a skip).
  bool started = false;
  int status = 0;
  bool ended = false;
  for (int i = 0; i < 600 && !started; ++i) {
    if (::waitpid(pid, &status, WNOHANG) == pid) {
      ended = true;
      break;
    }
    started = contains(adversarial::slurp(out), "a staged load busy 0.30 s of every second");
    if (!started) std::this_thread::sleep_for(std::chrono::milliseconds(100));
  }
  if (ended) {
    const std::string text = adversarial::slurp(out);
    if (contains(text, "packages missing")) {
      WARN("SKIPPED: " << text);
      return;
    }
    FAIL("bench_build ended before its staged load started:\n" << text);
  }
  REQUIRE(started);
  std::this_thread::sleep_for(std::chrono::seconds(2));
  ::kill(pid, SIGTERM);
  for (int i = 0; i < 300 && !ended; ++i) {
    if (::waitpid(pid, &status, WNOHANG) == pid) ended = true;
    else std::this_thread::sleep_for(std::chrono::milliseconds(100));
  }
  if (!ended) {
    ::kill(pid, SIGKILL);
    ::waitpid(pid, &status, 0);
  }
  const std::string text = adversarial::slurp(out);
  INFO(text);
  REQUIRE(ended);
  CHECK(WIFEXITED(status));
  CHECK(WEXITSTATUS(status) == 143);
  CHECK(contains(text, "stopped by SIGTERM"));
  CHECK(fs::is_empty(scratch_root));
  // Nothing it started runs on: no process has the scratch folder or the staged load
  // on its command line.
  std::this_thread::sleep_for(std::chrono::milliseconds(500));
  std::vector<std::string> left;
  for (const auto& e : fs::directory_iterator("/proc")) {
    const std::string name = e.path().filename().string();
    if (name.find_first_not_of("0123456789") != std::string::npos) continue;
    std::string cmd = adversarial::slurp(e.path() / "cmdline");
    std::replace(cmd.begin(), cmd.end(), '\0', ' ');
    if (contains(cmd, scratch_root.string()) || (contains(cmd, "bench-build-busy") && contains(cmd, std::to_string(pid))))
      left.push_back(name + ": " + cmd);
  }
  INFO([&] {
    std::string s;
    for (const std::string& l : left) s += l + "\n";
    return s;
  }());
  CHECK(left.empty());
}

// tools/bootstrap, the README's two commands: an unknown command, or a JOBS that is not
// a whole number from 1, is refused with exit 2 before anything is installed or built.
TEST_CASE("bootstrap: an unknown command or a bad JOBS exits 2 before anything is installed or built",
          "[adversarial]") {
  TempDir tmp;
  const std::string build_dir = "BUILD_DIR=" + (tmp.path / "build").string();
  const std::string script = kSource + "/tools/bootstrap";
  struct Case {
    std::vector<std::string> args;
    std::string jobs;
  };
  for (const Case& c : {Case{{"nonsense"}, "2"}, Case{{"test"}, "abc"}, Case{{"build"}, "0"},
                        Case{{"run"}, "12345"}, Case{{"test"}, "-1"}, Case{{"packages"}, "2 3"}}) {
    std::vector<std::string> argv = {"bash", script};
    argv.insert(argv.end(), c.args.begin(), c.args.end());
    const Ran r = run_tool(argv, "", {build_dir, "JOBS=" + c.jobs}, 30);
    INFO(r.out);
    CHECK(r.code == 2);
    CHECK(contains(r.out, "usage: tools/bootstrap"));
    CHECK(!fs::exists(tmp.path / "build"));
  }
}
