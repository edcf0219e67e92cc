// obscheck slurm --submit on a real single-node Slurm cluster (tools/slurm-local: Debian's
// slurmctld, slurmd and munge, started without systemd and stopped after the test):
// the shards run as a job array, the merge job runs once they all succeeded, and the
// merged report takes every shard's runs exactly once.
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <catch2/catch.hpp>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <set>
#include <string>
#include <thread>
#include <vector>

#include "run_cli.h"

using nlohmann::json;
using obscheck::test::journal_lines;
using obscheck::test::run_cli;
using obscheck::test::workload;

namespace fs = std::filesystem;

namespace {

const std::string kSlurmLocal = std::string(OBSCHECK_SOURCE_DIR) + "/tools/slurm-local";

bool on_path(const std::string& name) {
  const char* path = std::getenv("PATH");
  std::string dirs = path ? path : "";
  for (std::size_t at = 0; at <= dirs.size();) {
    const std::size_t end = std::min(dirs.find(':', at), dirs.size());
    if (::access((dirs.substr(at, end - at) + "/" + name).c_str(), X_OK) == 0) return true;
    at = end + 1;
  }
  return ::access(("/usr/sbin/" + name).c_str(), X_OK) == 0;
}

// Whether `pid` is a live process (a zombie waiting for a reaper is not).
bool running(pid_t pid) {
  std::ifstream in("/proc/" + std::to_string(pid) + "/stat");
  std::string stat;
  if (!std::getline(in, stat)) return false;
  const auto close = stat.rfind(')');
  return close == std::string::npos || close + 2 >= stat.size() || stat[close + 2] != 'Z';
}

// Runs a shell command, returns its stdout and sets `code` to its exit status.
std::string shell(const std::string& command, int& code) {
  std::string out;
  FILE* p = ::popen(command.c_str(), "r");
  if (!p) {
    code = -1;
    return out;
  }
  char buf[4096];
  while (std::size_t n = std::fread(buf, 1, sizeof buf, p)) out.append(buf, n);
  const int st = ::pclose(p);
  code = WIFEXITED(st) ? WEXITSTATUS(st) : -1;
  return out;
}

// A new directory of ours (mkdtemp: a name no other user could have guessed and made).
std::string private_dir(const char* prefix) {
  std::string tmpl = (fs::temp_directory_path() / (std::string(prefix) + "XXXXXX")).string();
  REQUIRE(::mkdtemp(tmpl.data()) != nullptr);
  // munged wants every directory above its socket searchable by all; others may still
  // not write here.
  REQUIRE(::chmod(tmpl.c_str(), 0755) == 0);
  return tmpl;
}

// The cluster, up for the test's lifetime; `down` always runs. Its state lives in a
// private directory, as tools/slurm-local requires of a directory root's daemons read.
struct LocalSlurm {
  std::string parent, state, conf;
  bool up = false;
  std::string log;
  LocalSlurm() : parent(private_dir("obscheck-slurm-test-")), state(parent + "/state") {
    int code = 0;
    const std::string out =
        shell("OBSCHECK_SLURM_DIR=" + state + " " + kSlurmLocal + " up 2>" + parent + "/up.log", code);
    std::ifstream in(parent + "/up.log");
    log.assign(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
    const std::string key = "SLURM_CONF=";
    if (const auto at = out.find(key); code == 0 && at != std::string::npos) {
      conf = out.substr(at + key.size(), out.find('\n', at) - at - key.size());
      if (!conf.empty() && (conf.front() == '\'' || conf.front() == '"')) conf = conf.substr(1, conf.size() - 2);
      up = true;
    }
  }
  // The daemons' pids, from their pid files (0 when a file is missing).
  std::vector<pid_t> daemon_pids() const {
    std::vector<pid_t> out;
    for (const char* d : {"munged", "slurmctld", "slurmd"}) {
      std::ifstream in(state + "/run/" + d + ".pid");
      long pid = 0;
      in >> pid;
      out.push_back(static_cast<pid_t>(pid));
    }
    return out;
  }
  void down() {
    if (!up) return;
    up = false;
    int code = 0;
    shell("OBSCHECK_SLURM_DIR=" + state + " " + kSlurmLocal + " down 2>/dev/null", code);
    std::error_code ec;
    fs::remove(parent + "/up.log", ec);
    if (!fs::exists(state)) fs::remove(parent, ec);
  }
  ~LocalSlurm() { down(); }
};

}  // namespace

TEST_CASE("slurm: a check submitted as a job array runs every shard and merges them", "[slurm][serial]") {
  if (::geteuid() != 0) {
    WARN("SKIPPED: a local Slurm cluster's daemons run as root; this test is not root");
    return;
  }
  for (const char* c : {"slurmctld", "slurmd", "munged", "sbatch", "squeue"})
    if (!on_path(c)) {
      WARN("SKIPPED: " << c << " is not installed (tools/bootstrap test installs slurmctld, slurmd, slurm-client, munge)");
      return;
    }
  LocalSlurm slurm;
  INFO(slurm.log);
  REQUIRE(slurm.up);
  const std::vector<std::string> env = {"SLURM_CONF=" + slurm.conf};

  // A directory name sh and sbatch's own #SBATCH parser would both mangle unquoted: the
  // scripts name it quoted for each.
  const fs::path job_parent = private_dir("obscheck-slurm-job-");
  const fs::path dir = job_parent / "job 'q' \"d\" $(id>INJECTED) `id` #c";
  const auto r = run_cli({"slurm", "--submit", "--shards", "3", "--dir", dir.string(), "--", "--counters", "task-clock",
                          "--runs", "12", workload("compute"), "200"},
                         env);
  INFO(r.out << r.err);
  REQUIRE(r.code == 0);
  CHECK_THAT(r.out, Catch::Contains("submitted: shards job "));
  CHECK_THAT(r.out, Catch::Contains(dir.string() + "/report.txt"));

  // The array and then the merge: done when the queue is empty and the report is there.
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(150);
  bool done = false;
  while (std::chrono::steady_clock::now() < deadline) {
    int code = 0;
    const std::string queue = shell("SLURM_CONF=" + slurm.conf + " squeue -h -o %i 2>/dev/null", code);
    if (code == 0 && queue.find_first_not_of(" \n") == std::string::npos && fs::exists(dir / "report.json")) {
      done = true;
      break;
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(500));
  }
  std::string merge_out;
  if (std::ifstream in(dir / "merge.out"); in) merge_out.assign(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
  INFO("merge.out: " << merge_out);
  REQUIRE(done);

  const json report = json::parse(std::ifstream(dir / "report.json"));
  REQUIRE(report.at("journals").size() == 3);
  std::set<std::size_t> shards;
  std::size_t measured = 0, warmup = 0;
  for (int i = 0; i < 3; ++i) {
    const std::string journal = (dir / ("shard-" + std::to_string(i) + ".jsonl")).string();
    REQUIRE(fs::exists(journal));
    for (const json& l : journal_lines(journal))
      if (l.value("type", "") == "run") (l.at("warmup").get<bool>() ? warmup : measured) += 1;
  }
  for (const json& j : report.at("journals")) shards.insert(j.at("shard").get<std::size_t>());
  CHECK(shards == std::set<std::size_t>{0, 1, 2});
  // One node: every shard ran the warm-up block, the merge takes it once.
  REQUIRE(report.at("hosts").size() == 1);
  CHECK(report.at("runs").get<std::size_t>() == measured + warmup / 3);
  bool wall = false;
  for (const json& p : report.at("pooled"))
    if (p.at("metric") == "wall-time") {
      wall = true;
      CHECK(!p.at("verdict").get<std::string>().empty());
    }
  CHECK(wall);
  std::ifstream text(dir / "report.txt");
  const std::string report_text((std::istreambuf_iterator<char>(text)), std::istreambuf_iterator<char>());
  CHECK_THAT(report_text, Catch::Contains("runs merged, each once"));
  CHECK(!fs::exists(job_parent / "INJECTED"));
  CHECK(!fs::exists(dir / "INJECTED"));
  fs::remove_all(job_parent);

  // Down leaves nothing running and nothing behind.
  const std::vector<pid_t> pids = slurm.daemon_pids();
  slurm.down();
  for (const pid_t pid : pids) {
    INFO("daemon pid " << pid);
    CHECK(pid > 0);
    CHECK(!running(pid));
  }
  CHECK(!fs::exists(slurm.state));
}
