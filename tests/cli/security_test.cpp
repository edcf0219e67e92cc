// docs/security.md, run as a user (or root) runs obscheck: a symbolic link planted at
// any path obscheck writes leaves the link's target unchanged; --run-as takes the
// target (only) down to another user; a journal keeps the target's output only when
// asked; `report` of a journal executes nothing it names.
#include <grp.h>
#include <linux/capability.h>
#include <pwd.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <sys/statvfs.h>
#include <sys/wait.h>
#include <sys/xattr.h>
#include <unistd.h>

#include <catch2/catch.hpp>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>

#include "run_cli.h"
#include "../support/nobody_reach.h"
#include "util/digest.h"

using nlohmann::json;
using obscheck::test::journal_lines;
using obscheck::test::run_cli;
using obscheck::test::workload;
using obscheck::test::slurp;
namespace fs = std::filesystem;

namespace {

const std::string kPrecious = "precious\n";

struct SecurityDir {
  std::string path;
  SecurityDir() {
    char tmpl[] = "/tmp/obscheck-security-XXXXXX";
    REQUIRE(mkdtemp(tmpl) != nullptr);
    path = tmpl;
    ::chmod(path.c_str(), 0755);  // a --run-as user may need to read what is here
  }
  ~SecurityDir() {
    std::error_code ec;
    fs::remove_all(path, ec);
  }
  std::string operator/(const std::string& name) const { return path + "/" + name; }
};

bool is_link(const std::string& path) { return fs::is_symlink(fs::symlink_status(path)); }
bool is_regular(const std::string& path) { return fs::is_regular_file(fs::symlink_status(path)); }

// A file another user wants root to overwrite, and a link to it at `at`.
void plant(const std::string& victim, const std::string& at) {
  if (!fs::exists(victim)) std::ofstream(victim) << kPrecious;
  fs::create_symlink(victim, at);
}

const std::string kFixture = std::string(OBSCHECK_GOLDEN_DIR) + "/report/fixture-check.jsonl";

// The current directory for one test: the build observer writes its variants there.
struct InDir {
  fs::path before = fs::current_path();
  explicit InDir(const std::string& d) { fs::current_path(d); }
  ~InDir() { fs::current_path(before); }
};

const passwd* nobody() { return ::getpwnam("nobody"); }

// Gives `path` the file capabilities in `caps` (bit n = capability n), permitted and
// effective, as `setcap CAPS+ep PATH` does: the security.capability attribute.
bool set_file_caps(const std::string& path, std::uint64_t caps) {
  struct {
    std::uint32_t magic_etc;
    struct {
      std::uint32_t permitted, inheritable;
    } data[VFS_CAP_U32_2];
  } v{};
  v.magic_etc = VFS_CAP_REVISION_2 | VFS_CAP_FLAGS_EFFECTIVE;
  v.data[0].permitted = static_cast<std::uint32_t>(caps);
  v.data[1].permitted = static_cast<std::uint32_t>(caps >> 32);
  return ::setxattr(path.c_str(), "security.capability", &v, sizeof v, 0) == 0;
}

// Runs `bin args...` as the user `pw` (from root), stdout and stderr together.
obscheck::test::CliResult run_as_user(const passwd& pw, const std::string& bin, const std::vector<std::string>& args) {
  std::vector<std::string> words = {bin};
  words.insert(words.end(), args.begin(), args.end());
  std::vector<char*> argv;
  for (auto& w : words) argv.push_back(w.data());
  argv.push_back(nullptr);
  int p[2];
  REQUIRE(::pipe2(p, O_CLOEXEC) == 0);
  const pid_t pid = ::fork();
  REQUIRE(pid >= 0);
  if (pid == 0) {
    ::dup2(p[1], 1);
    ::dup2(p[1], 2);
    if (::initgroups(pw.pw_name, pw.pw_gid) != 0 || ::setgid(pw.pw_gid) != 0 || ::setuid(pw.pw_uid) != 0) ::_exit(126);
    ::execv(argv[0], argv.data());
    ::_exit(127);
  }
  ::close(p[1]);
  obscheck::test::CliResult r;
  char buf[4096];
  for (ssize_t n; (n = ::read(p[0], buf, sizeof buf)) > 0;) r.out.append(buf, static_cast<std::size_t>(n));
  ::close(p[0]);
  int st = 0;
  ::waitpid(pid, &st, 0);
  r.code = WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st);
  return r;
}

}  // namespace

TEST_CASE("security: links planted at -o, its old .tmp name, --html and --svg files are replaced, never followed") {
  SecurityDir d;
  const std::string victim = d / "victim";
  plant(victim, d / "report.txt.tmp");  // the name obscheck used to write through
  plant(victim, d / "report.txt");
  plant(victim, d / "page.html");
  plant(victim, d / "page.html.tmp");
  fs::create_directory(d / "figs");
  for (const char* fig : {"effect-task-clock.svg", "runs-task-clock.svg", "effect-wall-time.svg"})
    plant(victim, d / ("figs/" + std::string(fig)));
  auto r = run_cli({"report", "--verbose", kFixture, "-o", d / "report.txt", "--html", d / "page.html", "--svg", d / "figs"});
  INFO(r.err);
  REQUIRE(r.code == 0);
  CHECK(slurp(victim) == kPrecious);
  CHECK(is_regular(d / "report.txt"));
  CHECK_THAT(slurp(d / "report.txt"), Catch::Contains("verdicts"));
  CHECK(is_regular(d / "page.html"));
  CHECK(slurp(d / "page.html").rfind("<!DOCTYPE html>", 0) == 0);
  for (const char* fig : {"effect-task-clock.svg", "runs-task-clock.svg", "effect-wall-time.svg"}) {
    CHECK(is_regular(d / ("figs/" + std::string(fig))));
    CHECK(slurp(d / ("figs/" + std::string(fig))).rfind("<svg ", 0) == 0);
  }
  // The old temporary names are left as they were: obscheck no longer opens them.
  CHECK(is_link(d / "report.txt.tmp"));
  CHECK(is_link(d / "page.html.tmp"));
  // Nothing else was left beside the outputs (no temporary file).
  std::size_t names = 0;
  for (const auto& e : fs::directory_iterator(d.path)) names += e.path().filename().string()[0] == '.' ? 100 : 1;
  CHECK(names == 6);  // victim, report.txt(.tmp), page.html(.tmp), figs
}

TEST_CASE("security: --svg DIR that is a link and a journal path that is a link are refused with exit 6") {
  SecurityDir d;
  fs::create_directory(d / "elsewhere");
  fs::create_symlink(d / "elsewhere", d / "figs");
  auto r = run_cli({"report", kFixture, "--svg", d / "figs"});
  CHECK(r.code == 6);
  CHECK_THAT(r.err, Catch::Contains("cannot write into " + (d / "figs") + ": it is a symbolic link"));
  CHECK(fs::is_empty(d / "elsewhere"));

  plant(d / "victim", d / "j.jsonl");
  r = run_cli({"-e", "task-clock", "--max-runs", "2", "--journal", d / "j.jsonl", "--", "/bin/true"});
  CHECK(r.code == 6);
  CHECK_THAT(r.err, Catch::Contains("j.jsonl"));
  CHECK(slurp(d / "victim") == kPrecious);
}

TEST_CASE("security: links planted at the build variants and their cache leave the link targets unchanged") {
  SecurityDir d;
  InDir here(d.path);
  const std::string src = std::string(OBSCHECK_SOURCE_DIR) + "/experiments/workloads/probed.c";
  const std::string inc = std::string(OBSCHECK_SOURCE_DIR) + "/probes";
  fs::create_directory(d / ".obscheck-variants");
  for (const char* name : {"variant-0", "variant-1", "variants.json", "variants.json.tmp"})
    plant(d / "victim", d / (".obscheck-variants/" + std::string(name)));
  auto r = run_cli({"--json", "--build", "cc -O2 -I" + inc + " -DOBS_PROBES={mask} " + src + " -o {out}",
                    "--probe-sites", "1", "--counters", "task-clock", "--max-runs", "2", "--journal", d / "b.jsonl",
                    "--", "{out}", "1000"});
  INFO(r.err);
  CHECK((r.code == 0 || r.code == 1));
  CHECK(slurp(d / "victim") == kPrecious);
  CHECK(is_regular(d / ".obscheck-variants/variant-0"));
  CHECK(is_regular(d / ".obscheck-variants/variant-1"));
  CHECK(json::parse(slurp(d / ".obscheck-variants/variants.json")).size() == 2);

  // A variant directory others can write to is refused: a build writes into it by name.
  ::chmod((d / ".obscheck-variants").c_str(), 0777);
  r = run_cli({"--build", "cc -O2 -I" + inc + " -DOBS_PROBES={mask} " + src + " -o {out}", "--probe-sites", "1",
               "--counters", "task-clock", "--max-runs", "2", "--journal", d / "c.jsonl", "--", "{out}", "1000"});
  CHECK(r.code == 6);
  CHECK_THAT(r.err, Catch::Contains("writable by group or others"));
}

TEST_CASE("security: --run-as nobody runs the target as nobody, counters count exactly, the journal says so") {
  const passwd* pw = nobody();
  if (::geteuid() != 0 || pw == nullptr) {
    WARN("skipped: --run-as needs root and a user 'nobody'");
    return;
  }
  SKIP_UNLESS_NOBODY_REACHES(OBSCHECK_BIN);
  const std::string uid = std::to_string(pw->pw_uid), gid = std::to_string(pw->pw_gid);
  SecurityDir d;
  // The target prints its real and effective uid and gid.
  auto r = run_cli({"-e", "task-clock", "--max-runs", "2", "--run-as", "nobody", "--keep-output-head", "--journal",
                    d / "ids.jsonl", "--", "/bin/sh", "-c", "echo \"$(id -ru) $(id -u) $(id -rg) $(id -g)\""});
  INFO(r.err);
  REQUIRE((r.code == 0 || r.code == 1));
  const auto lines = journal_lines(d / "ids.jsonl");
  const json& run_as = lines.at(0).at("options").at("run_as");
  CHECK(run_as.at("user") == "nobody");
  CHECK(run_as.at("uid") == pw->pw_uid);
  CHECK(run_as.at("gid") == pw->pw_gid);
  const std::string expected = uid + " " + uid + " " + gid + " " + gid;
  std::size_t runs = 0;
  for (const json& l : lines) {
    if (l.at("type") != "run") continue;
    ++runs;
    CHECK(l.at("extra").at("output_head") == expected);
    CHECK(l.at("exit").at("output_sha256") == obscheck::sha256_hex(expected + "\n"));
  }
  CHECK(runs > 0);

  // Counters attached before the drop still count: a uprobe on a function called
  // 1000 times counts 1000 in every run.
  r = run_cli({"--probes", "obs_hot", "-e", "task-clock", "--max-runs", "2", "--run-as", "nobody", "--journal",
               d / "hits.jsonl", "--", workload("calls"), "1000"});
  INFO(r.err);
  REQUIRE((r.code == 0 || r.code == 1));
  std::size_t probed = 0;
  for (const json& l : journal_lines(d / "hits.jsonl")) {
    if (l.at("type") != "run" || !l.at("extra").contains("probe_hits")) continue;
    ++probed;
    for (const auto& [name, hits] : l.at("extra").at("probe_hits").items()) CHECK(hits.get<long>() == 1000);
    CHECK(l.at("readings").at(0).at("value").get<double>() > 0);
  }
  CHECK(probed > 0);
}

TEST_CASE("security: --run-as leaves the environment's size as it is, and an unknown user is a usage error") {
  if (::geteuid() != 0 || nobody() == nullptr) {
    WARN("skipped: --run-as needs root and a user 'nobody'");
    return;
  }
  const auto env_line = [](const std::string& out) {
    const auto at = out.find("environment ");
    return at == std::string::npos ? std::string() : out.substr(at, out.find(';', at) - at);
  };
  auto plain = run_cli({"measure", "-e", "task-clock", "-r", "1", "--", "/bin/true"});
  auto dropped = run_cli({"measure", "-e", "task-clock", "-r", "1", "--run-as", "nobody", "--", "/bin/true"});
  REQUIRE(plain.code == 0);
  REQUIRE(dropped.code == 0);
  CHECK(!env_line(plain.out).empty());
  CHECK(env_line(dropped.out) == env_line(plain.out));

  auto r = run_cli({"measure", "-e", "task-clock", "-r", "1", "--run-as", "no-such-user-here", "--", "/bin/true"});
  CHECK(r.code == 2);
  CHECK_THAT(r.err, Catch::Contains("--run-as no-such-user-here: no such user"));
}

TEST_CASE("security: under sudo without --run-as, one warning says the target runs as root and how to change it") {
  if (::geteuid() != 0) {
    WARN("skipped: the warning is for root");
    return;
  }
  auto r = run_cli({"measure", "-e", "task-clock", "-r", "2", "--", "/bin/true"}, {"SUDO_USER=nobody"});
  REQUIRE(r.code == 0);
  const std::string warning =
      "obscheck: warning: run through sudo, the target runs as root too; add --run-as nobody to run it as nobody";
  CHECK(r.err.find(warning) != std::string::npos);
  CHECK(r.err.find(warning) == r.err.rfind(warning));
  r = run_cli({"measure", "-e", "task-clock", "-r", "1", "--run-as", "nobody", "--", "/bin/true"}, {"SUDO_USER=nobody"});
  CHECK(r.err.find("warning: run through sudo") == std::string::npos);
  r = run_cli({"report", kFixture}, {"SUDO_USER=nobody"});  // report runs nothing
  CHECK(r.err.find("warning: run through sudo") == std::string::npos);
}

TEST_CASE("security: the journal keeps no output of the target unless --keep-output-head") {
  SecurityDir d;
  // What it prints is not in its argv (which the journal keeps, as given).
  auto r = run_cli({"-e", "task-clock", "--max-runs", "2", "--journal", d / "j.jsonl", "--", "/bin/sh", "-c",
                    "echo secret-$((6*7))-token"});
  REQUIRE((r.code == 0 || r.code == 1));
  CHECK(slurp(d / "j.jsonl").find("secret-42-token") == std::string::npos);
  std::size_t runs = 0;
  for (const json& l : journal_lines(d / "j.jsonl")) {
    if (l.at("type") != "run") continue;
    ++runs;
    CHECK(!l.at("extra").contains("output_head"));
    CHECK(l.at("exit").at("output_sha256") == obscheck::sha256_hex("secret-42-token\n"));
  }
  CHECK(runs > 0);
  CHECK(journal_lines(d / "j.jsonl").at(0).at("options").at("keep_output_head") == false);
}

TEST_CASE("security: report of a journal naming a target, a profiler command and a build executes none of them") {
  SecurityDir d;
  const std::string marker = d / "marker";
  const std::string script = d / "leave-marker";
  std::ofstream(script) << "#!/bin/sh\ntouch " << marker << "\n";
  ::chmod(script.c_str(), 0755);
  std::ifstream in(kFixture);
  std::ofstream out(d / "hostile.jsonl");
  std::string line;
  std::getline(in, line);
  json m = json::parse(line);
  m["target"]["path"] = script;
  m["target"]["argv"] = {script};
  m["options"]["observer"] = {{"observer_cmd", script + " {level}"}, {"build", script + " {mask} {out}"},
                              {"levels", "0,1"}};
  out << m.dump() << '\n';
  while (std::getline(in, line)) out << line << '\n';
  out.close();
  for (const auto& args : std::vector<std::vector<std::string>>{
           {"report", d / "hostile.jsonl"},
           {"report", d / "hostile.jsonl", "--json"},
           {"report", d / "hostile.jsonl", "--html", d / "p.html", "--svg", d / "figs"}}) {
    auto r = run_cli(args);
    CHECK(r.code == 0);
  }
  CHECK(!fs::exists(marker));
}

TEST_CASE("security: without root, via file capabilities: CAP_PERFMON counts, uprobes need CAP_SYS_ADMIN") {
  const passwd* pw = nobody();
  if (::geteuid() != 0 || pw == nullptr) {
    WARN("skipped: setting file capabilities and becoming 'nobody' need root and that user");
    return;
  }
  SKIP_UNLESS_NOBODY_REACHES(OBSCHECK_BIN);
  SecurityDir d;
  struct statvfs fs_info {};
  REQUIRE(::statvfs(d.path.c_str(), &fs_info) == 0);
  if ((fs_info.f_flag & ST_NOSUID) != 0) {
    WARN("skipped: " + d.path + " is mounted nosuid, which ignores file capabilities");
    return;
  }
  // An installed copy of obscheck, as an administrator would give it capabilities,
  // and a directory the unprivileged user may write its journals to.
  const std::string bin = d / "obscheck";
  fs::copy_file(OBSCHECK_BIN, bin);
  ::chmod(bin.c_str(), 0755);
  fs::create_directory(d / "work");
  REQUIRE(::chown((d / "work").c_str(), pw->pw_uid, pw->pw_gid) == 0);
  const std::vector<std::string> probe_check = {"--probes", "obs_hot", "-e", "task-clock", "--max-runs", "2",
                                                "--journal", d / "work/probes.jsonl", "--", workload("calls"), "1000"};

  if (!set_file_caps(bin, std::uint64_t{1} << CAP_PERFMON)) {
    WARN("skipped: this filesystem refuses file capabilities");
    return;
  }
  auto r = run_as_user(*pw, bin, {"measure", "-e", "task-clock", "-r", "2", "--", "/bin/true"});
  INFO(r.out);
  CHECK(r.code == 0);
  CHECK_THAT(r.out, Catch::Contains("task-clock"));
  r = run_as_user(*pw, bin, probe_check);
  CHECK(r.code == 4);  // the uprobe cannot be opened: an event this host (for this user) cannot count
  CHECK_THAT(r.out, Catch::Contains("uprobe:"));
  CHECK(!fs::exists(d / "work/probes.jsonl"));

  REQUIRE(set_file_caps(bin, std::uint64_t{1} << CAP_SYS_ADMIN));
  r = run_as_user(*pw, bin, probe_check);
  INFO(r.out);
  REQUIRE((r.code == 0 || r.code == 1));
  std::size_t probed = 0;
  for (const json& l : journal_lines(d / "work/probes.jsonl")) {
    if (l.at("type") != "run" || !l.at("extra").contains("probe_hits")) continue;
    ++probed;
    for (const auto& [name, hits] : l.at("extra").at("probe_hits").items()) CHECK(hits.get<long>() == 1000);
  }
  CHECK(probed > 0);
}

TEST_CASE("security: a --run-as target reaches the binaries bias --link builds, and runs as the user") {
  const passwd* pw = nobody();
  if (::geteuid() != 0 || pw == nullptr) {
    WARN("skipped: --run-as needs root and a user 'nobody'");
    return;
  }
  SecurityDir d;
  std::ofstream(d / "a.c") << "#include <unistd.h>\nint f(void) { return (int)getuid(); }\n";
  std::ofstream(d / "b.c") << "#include <stdio.h>\nint f(void);\nint main(void) { printf(\"%d\\n\", f()); return 0; }\n";
  auto r = run_cli({"bias", "--link", "cc {objects} -o {out}", "--objects", (d / "a.c") + "," + (d / "b.c"),
                    "--link-orders", "2", "-r", "1", "-e", "task-clock", "--seed", "3", "--run-as", "nobody", "--json",
                    "--", "{out}"});
  INFO(r.err);
  REQUIRE(r.code == 0);
  const json j = json::parse(r.out);
  REQUIRE(j.at("runs").size() == 2);
  for (const json& run : j.at("runs")) {
    CHECK(run.at("ok") == true);
    CHECK(run.at("first_line") == std::to_string(pw->pw_uid));
  }
}
