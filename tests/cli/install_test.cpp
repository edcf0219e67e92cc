// obscheck as it is installed and used beside perf stat: a prefix laid down by
// `cmake --install` works from any directory after it is moved; the Debian package
// runs from where it is unpacked; the man page and the shell completions name every
// option the parser accepts, and no other; short options bundle; two checks started
// at once never share a journal; a resume ignores what the invoking shell sets about
// itself and names what differs.
#include <sys/wait.h>
#include <unistd.h>

#include <catch2/catch.hpp>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <regex>
#include <set>
#include <sstream>

#include "run_cli.h"

using obscheck::test::slurp;
using obscheck::test::run_cli;
using obscheck::test::workload;
namespace fs = std::filesystem;

namespace {

struct InstallDir {
  fs::path path;
  InstallDir() {
    char tmpl[] = "/tmp/obscheck-install-XXXXXX";
    path = mkdtemp(tmpl);
  }
  ~InstallDir() {
    std::error_code ec;
    fs::remove_all(path, ec);
  }
};

// Runs `command` through sh (these steps are shell steps a user types), returning its
// exit code; its output goes to `log`.
int shell(const std::string& command, const fs::path& log) {
  const std::string line = "(" + command + ") >" + log.string() + " 2>&1";
  const int st = std::system(line.c_str());
  return WIFEXITED(st) ? WEXITSTATUS(st) : 128;
}

bool have(const std::string& tool) { return shell("command -v " + tool, "/dev/null") == 0; }

const fs::path kBuildDir = fs::path(OBSCHECK_BIN).parent_path();

// The checks an installed tool must pass, with `bin` its obscheck and `libexec` its
// workloads, run from `cwd`: the demo (in-process counting through the installed
// library) and a short in-process check.
void check_installed_tool(const fs::path& bin, const fs::path& libexec, const fs::path& cwd) {
  const fs::path log = cwd / "log";
  INFO(slurp(log));
  const int demo = shell("cd " + cwd.string() + " && XDG_STATE_HOME=" + (cwd / "state").string() + " " +
                             bin.string() + " demo --time-budget 1 --json -o demo.json",
                         log);
  INFO("demo: " << slurp(log));
  CHECK((demo == 0 || demo == 1));
  CHECK(fs::exists(cwd / "demo.json"));
  // Its page and journal are in a directory of its own, not in the current one.
  CHECK(!fs::exists(cwd / "obscheck-demo.html"));
  std::size_t pages = 0;
  for (const auto& e : fs::recursive_directory_iterator(cwd / "state" / "obscheck"))
    pages += e.path().filename() == "obscheck-demo.html";
  CHECK(pages == 1);
  const int inproc = shell("cd " + cwd.string() + " && " + bin.string() +
                               " --mode inprocess --counters task-clock,page-faults --runs 2 --journal j.jsonl -- " +
                               (libexec / "compute").string() + " 10",
                           log);
  INFO("inprocess: " << slurp(log));
  CHECK((inproc == 0 || inproc == 1));
  CHECK(slurp(log).find("libobsprobe.so is missing") == std::string::npos);
}

}  // namespace

TEST_CASE("install: a prefix moved after cmake --install runs demo and --mode inprocess from elsewhere") {
  if (!have("cmake")) {
    WARN("skipped: cmake is not installed");
    return;
  }
  InstallDir d;
  const fs::path first = d.path / "prefix", moved = d.path / "moved", work = d.path / "work";
  REQUIRE(shell("cmake --install " + kBuildDir.string() + " --prefix " + first.string(), d.path / "install.log") == 0);
  fs::rename(first, moved);
  fs::create_directories(work);
  for (const char* f : {"bin/obscheck", "lib/obscheck/libobsprobe.so", "include/obscheck/obsprobe.h",
                        "libexec/obscheck/compute", "share/man/man1/obscheck.1",
                        "share/bash-completion/completions/obscheck", "share/zsh/vendor-completions/_obscheck",
                        "share/doc/obscheck/report-schema.md", "share/doc/obscheck/README.md",
                        "share/doc/obscheck/LICENSE"})
    CHECK(fs::exists(moved / f));
  check_installed_tool(moved / "bin/obscheck", moved / "libexec/obscheck", work);
}

TEST_CASE("install: the Debian package names its dependencies and runs from where it is unpacked") {
  if (!have("cpack") || !have("dpkg-deb")) {
    WARN("skipped: cpack or dpkg-deb is not installed");
    return;
  }
  InstallDir d;
  const fs::path root = d.path / "root", work = d.path / "work";
  REQUIRE(shell("cd " + kBuildDir.string() + " && cpack -G DEB -B " + (d.path / "pkg").string(), d.path / "cpack.log") ==
          0);
  std::string deb;
  for (const auto& e : fs::directory_iterator(d.path / "pkg"))
    if (e.path().extension() == ".deb") deb = e.path().string();
  REQUIRE(!deb.empty());
  CHECK(std::regex_search(deb, std::regex("obscheck_[0-9.]+_amd64\\.deb$")));
  REQUIRE(shell("dpkg-deb -f " + deb + " Depends Recommends", d.path / "control") == 0);
  const std::string control = slurp(d.path / "control");
  CHECK(control.find("libpfm4") != std::string::npos);
  CHECK(control.find("libpapi") != std::string::npos);
  CHECK(control.find("libelf1") != std::string::npos);
  CHECK(control.find("Recommends: valgrind") != std::string::npos);
  REQUIRE(shell("dpkg-deb -x " + deb + " " + root.string(), d.path / "x.log") == 0);
  fs::create_directories(work);
  const fs::path bin = root / "usr/bin/obscheck";
  CHECK(shell(bin.string() + " events", work / "events") == 0);
  CHECK(shell(bin.string() + " measure -r 2 -- " + (root / "usr/libexec/obscheck/compute").string() + " 10",
              work / "measure") == 0);
  check_installed_tool(bin, root / "usr/libexec/obscheck", work);
}

TEST_CASE("install: the man page and the shell completions name every option the parser accepts, and no other") {
  // The parser's options, per command, from each command's --help.
  std::set<std::string> parser;
  const std::regex option_re("--([a-z0-9][a-z0-9-]*)");
  for (const char* cmd : {"check", "measure", "events", "doctor", "report", "demo", "bias", "compare", "plan", "run",
                          "slurm", "completion", "fidelity", "journals"}) {
    const auto help = run_cli({cmd, "--help"});
    REQUIRE(help.code == 0);
    const std::string options = help.out.substr(help.out.find("\n\n"));  // past the usage lines
    for (std::sregex_iterator it(options.begin(), options.end(), option_re), end; it != end; ++it)
      parser.insert((*it)[1]);
  }
  REQUIRE(parser.count("counters") == 1);

  // The man page writes --allow-missing as \-\-allow\-missing.
  std::string man = slurp(fs::path(OBSCHECK_SOURCE_DIR) / "docs/obscheck.1");
  man = std::regex_replace(man, std::regex("\\\\-"), "-");
  std::set<std::string> in_man;
  for (std::sregex_iterator it(man.begin(), man.end(), option_re), end; it != end; ++it) in_man.insert((*it)[1]);
  for (const std::string& o : parser) {
    INFO("--" << o << " is accepted but not in docs/obscheck.1");
    CHECK(in_man.count(o) == 1);
  }
  // Other programs' options the man page quotes (valgrind --tool=cachegrind, sbatch's
  // --dependency=afterok and --exclusive).
  for (const char* theirs : {"tool", "dependency", "exclusive"}) in_man.erase(theirs);
  for (const std::string& o : in_man) {
    INFO("docs/obscheck.1 names --" << o << ", which no command accepts");
    CHECK(parser.count(o) == 1);
  }

  // The completions are generated from the parser's table, and the installed copies are
  // what the generator prints today.
  for (const auto& [shell_name, file] : {std::pair{"bash", "completions/obscheck.bash"}, {"zsh", "completions/_obscheck"}}) {
    const auto generated = run_cli({"completion", shell_name});
    REQUIRE(generated.code == 0);
    INFO(file << " is stale: regenerate it with obscheck completion " << shell_name);
    CHECK(generated.out == slurp(fs::path(OBSCHECK_SOURCE_DIR) / file));
    for (const std::string& o : parser) {
      INFO("--" << o << " is not completed by " << file);
      CHECK(generated.out.find("--" + o) != std::string::npos);
    }
  }
  CHECK(run_cli({"completion", "fish"}).code == 2);
}

// Each command's --help, from the option table (src/cmdline/option_table.cpp), is the
// text in tests/golden/help/COMMAND.txt: a change to what a user reads is made on
// purpose (regenerate with OBSCHECK_UPDATE_GOLDEN=1 and read the diff).
TEST_CASE("install: every command's --help prints its golden text") {
  const char* update = std::getenv("OBSCHECK_UPDATE_GOLDEN");
  for (const char* cmd : {"check", "measure", "events", "doctor", "report", "demo", "bias", "compare", "plan", "run",
                          "slurm", "completion", "fidelity", "journals"}) {
    const auto help = run_cli({cmd, "--help"});
    REQUIRE(help.code == 0);
    const fs::path golden = fs::path(OBSCHECK_GOLDEN_DIR) / "help" / (std::string(cmd) + ".txt");
    if (update && std::string(update) == "1") {
      std::ofstream(golden, std::ios::binary) << help.out;
      continue;
    }
    INFO("obscheck " << cmd << " --help differs from " << golden << " (regenerate with OBSCHECK_UPDATE_GOLDEN=1)");
    CHECK(help.out == slurp(golden));
  }
  // Without a command, and as `help COMMAND`, the same texts.
  CHECK(run_cli({"--help"}).out == slurp(fs::path(OBSCHECK_GOLDEN_DIR) / "help" / "check.txt"));
  CHECK(run_cli({"help", "bias"}).out == slurp(fs::path(OBSCHECK_GOLDEN_DIR) / "help" / "bias.txt"));
}

// The usage lines --help starts with (src/cmdline/vocabulary.cpp) and the man page's
// SYNOPSIS are written apart: both name every command, and no other.
TEST_CASE("install: the usage and the man page's SYNOPSIS name the same commands") {
  const auto help = run_cli({"--help"});
  REQUIRE(help.code == 0);
  const std::string usage = help.out.substr(0, help.out.find("\n\n"));
  std::set<std::string> in_usage;
  const std::regex usage_re("obscheck ([a-z]+) ");
  for (std::sregex_iterator it(usage.begin(), usage.end(), usage_re), end; it != end; ++it)
    in_usage.insert((*it)[1]);

  const std::string man = slurp(fs::path(OBSCHECK_SOURCE_DIR) / "docs/obscheck.1");
  const std::size_t from = man.find(".SH SYNOPSIS"), to = man.find(".SH DESCRIPTION");
  REQUIRE(from != std::string::npos);
  REQUIRE(to != std::string::npos);
  const std::string synopsis = man.substr(from, to - from);
  std::set<std::string> in_man;
  const std::regex man_re("\\.B obscheck ([a-z|]+)");  // "bias|compare --resume" names two
  for (std::sregex_iterator it(synopsis.begin(), synopsis.end(), man_re), end; it != end; ++it) {
    std::stringstream names((*it)[1].str());
    for (std::string name; std::getline(names, name, '|');) in_man.insert(name);
  }
  CHECK(in_usage.count("measure") == 1);
  CHECK(in_usage.size() == 13);  // every command but the check itself, which needs no name
  CHECK(in_usage == in_man);
}

TEST_CASE("install: short options bundle as getopt's do, and -x gives perf stat's fields") {
  const auto r = run_cli({"measure", "-iw", "2", "-r3", "-x;", "-e", "task-clock", "--", workload("compute"), "10"});
  INFO(r.err);
  REQUIRE(r.code == 0);
  const std::string first = r.out.substr(0, r.out.find('\n'));
  // value;msec;task-clock;variance;run time;% running
  CHECK(std::regex_match(first, std::regex("[0-9.]+;msec;task-clock;[0-9.]+%;[0-9]+;100\\.00")));
  CHECK(run_cli({"measure", "-x", ",", "--csv", "--", workload("compute"), "10"}).code == 2);
  CHECK(run_cli({"measure", "--color", "sometimes", "--", workload("compute"), "10"}).code == 2);
}

TEST_CASE("install: two checks started at once in one directory write two journals") {
  // Both go to the state directory (util/state_dir.h), in the same second: two names.
  InstallDir d;
  const std::string cmd = "cd " + d.path.string() + " && XDG_STATE_HOME=" + d.path.string() + " " +
                          std::string(OBSCHECK_BIN) + " --counters task-clock --runs 1 --warmup 0 -- " +
                          workload("compute") + " 10";
  REQUIRE(shell("(" + cmd + " & " + cmd + " & wait)", d.path / "log") == 0);
  std::set<std::string> journals;
  for (const auto& e : fs::directory_iterator(d.path / "obscheck"))
    if (e.path().extension() == ".jsonl") journals.insert(e.path().filename().string());
  INFO(slurp(d.path / "log"));
  CHECK(journals.size() == 2);
}

TEST_CASE("install: --resume ignores the shell's own variables and names a variable that matters") {
  InstallDir d;
  const std::string journal = (d.path / "j.jsonl").string();
  const auto first = run_cli({"--counters", "task-clock", "--runs", "3", "--seed", "5", "--journal", journal, "--",
                              workload("compute"), "10"},
                             {"_=/usr/bin/obscheck", "SHLVL=1", "OLDPWD=/"});
  REQUIRE((first.code == 0 || first.code == 1));
  // Cut the journal after its manifest and two runs, as a kill would.
  std::ifstream in(journal);
  std::string kept, line;
  for (int i = 0; i < 3 && std::getline(in, line); ++i) kept += line + "\n";
  in.close();
  std::ofstream(journal, std::ios::trunc) << kept;

  // Another shell: `_` is timeout's path, SHLVL deeper, OLDPWD elsewhere.
  const auto changed_home = run_cli({"--resume", journal}, {"HOME=/a/much/longer/home/directory/than/before"});
  CHECK(changed_home.code == 2);
  CHECK(changed_home.err.find("HOME is") != std::string::npos);
  CHECK(changed_home.err.find("start a new check") != std::string::npos);
  const auto resumed = run_cli({"--resume", journal},
                               {"_=/usr/bin/timeout", "SHLVL=3", "OLDPWD=/usr/local/share/somewhere/else"});
  INFO(resumed.err);
  CHECK((resumed.code == 0 || resumed.code == 1));
}
