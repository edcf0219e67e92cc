// How `obscheck report` scales with the journal: a real --runs 20 check of the bundled
// compute workload (2 counters: 5 configurations with the A/A copy, 105 runs) is recorded with the built
// obscheck, then relabelled into journals of 10k, 100k and 1M runs (its measured runs
// repeated over more blocks: index and block renumbered, the plan's block count set to
// match, every line's integrity check recomputed; the manifest otherwise kept). For
// each, `obscheck report --json FILE` is timed (wall time, and peak RSS from wait4's
// ru_maxrss) next to the parse-only floor over the same file in the same run: the
// streaming reader alone filling a RunTable (read_journal_table), in a child process
// so its peak RSS is its own. Prints both, their ratio, and each one's growth from
// 100k to 1M runs (linear would be 10x). Last, the looks' share of a live check's
// time: a check of /bin/true looked at as the live check looks, every look analysed.
//
//   bench_analysis_scaling [RUNS...]     default 10000 100000 1000000
// OBSCHECK_BENCH_KEEP=1 keeps the journals (in a new $TMPDIR/obscheck-bench-scaling-XXXXXX/, named).
// OBSCHECK_BENCH_OTHER=/path/to/obscheck times another build's report of the same
// journals right after this one's (before and after a change, in the same run), with
// its ratio to the same parse floor.
//
// A report that takes longer than kReportLimit is stopped and shown as "> limit".
#include <fcntl.h>
#include <signal.h>
#include <spawn.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <ctime>
#include <fstream>
#include <optional>
#include <string>
#include <thread>
#include <vector>

#include "record/journal.h"
#include "record/journal_reader.h"

extern char** environ;

namespace {

// Beyond this a report is stopped: the bench must finish on a slow analysis too.
constexpr std::chrono::seconds kReportLimit{600};

double now_s() {
  return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count();
}

struct Timing {
  double seconds = 0;
  double cpu_s = 0;  // user + system, from wait4: what a shared machine's load moves least
  double peak_mb = 0;
  int status = -1;
  bool stopped = false;
};

// Waits for `pid`, stopping it (SIGKILL) after `limit`.
Timing wait_timed(pid_t pid, double t0, std::chrono::seconds limit) {
  Timing t;
  struct rusage u {};
  int st = 0;
  for (;;) {
    const pid_t r = ::wait4(pid, &st, WNOHANG, &u);
    if (r == pid) break;
    if (now_s() - t0 > static_cast<double>(limit.count()) && !t.stopped) {
      ::kill(pid, SIGKILL);
      t.stopped = true;
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(2));
  }
  t.seconds = now_s() - t0;
  t.peak_mb = static_cast<double>(u.ru_maxrss) / 1024.0;
  const auto secs = [](const struct timeval& tv) { return static_cast<double>(tv.tv_sec) + tv.tv_usec / 1e6; };
  t.cpu_s = secs(u.ru_utime) + secs(u.ru_stime);
  t.status = WIFEXITED(st) ? WEXITSTATUS(st) : -1;
  return t;
}

Timing run(const std::vector<std::string>& args, std::chrono::seconds limit) {
  std::vector<char*> argv;
  for (const auto& a : args) argv.push_back(const_cast<char*>(a.c_str()));
  argv.push_back(nullptr);
  posix_spawn_file_actions_t fa;
  posix_spawn_file_actions_init(&fa);
  posix_spawn_file_actions_addopen(&fa, 1, "/dev/null", O_WRONLY, 0);
  posix_spawn_file_actions_addopen(&fa, 2, "/dev/null", O_WRONLY, 0);
  pid_t pid;
  const double t0 = now_s();
  if (posix_spawn(&pid, argv[0], &fa, nullptr, argv.data(), environ) != 0) return {};
  posix_spawn_file_actions_destroy(&fa);
  return wait_timed(pid, t0, limit);
}

// Counts the run lines the reader passes, keeping nothing of them.
class CountingSink : public obscheck::JournalSink {
 public:
  void run(const obscheck::RunFields&, std::size_t) override { ++runs; }
  std::size_t runs = 0;
};

// One reader of `path`, in a child so that its peak RSS is the reader's: the parse
// floor (`table` false) or the run table.
Timing read_in_child(const std::string& path, std::size_t expect_runs, bool table) {
  const double t0 = now_s();
  const pid_t pid = ::fork();
  if (pid == 0) {
    try {
      std::size_t runs = 0;
      if (table) {
        runs = obscheck::read_journal_table(path).runs.size();
      } else {
        CountingSink sink;
        obscheck::scan_journal(path, sink);
        runs = sink.runs;
      }
      ::_exit(runs == expect_runs ? 0 : 2);
    } catch (const std::exception& e) {
      std::fprintf(stderr, "%s\n", e.what());
      ::_exit(1);
    }
  }
  return wait_timed(pid, t0, kReportLimit);
}

// The recorded journal's runs relabelled to `runs` runs (whole blocks), written to `out`.
std::size_t synthesize(const obscheck::JournalData& src, std::size_t runs, const std::string& out) {
  const std::size_t bs = src.manifest.at("plan").at("configs").size();
  const std::size_t warmup = src.manifest.at("plan").at("warmup_blocks").get<std::size_t>();
  std::vector<const obscheck::RunRecord*> measured;
  for (const auto& r : src.runs)
    if (!r.warmup) measured.push_back(&r);
  const std::size_t blocks = (runs + bs - 1) / bs;  // warm-up included
  nlohmann::json m = src.manifest;
  m["plan"]["fixed_blocks"] = blocks - warmup;
  std::ofstream f(out, std::ios::binary | std::ios::trunc);
  std::string buf;
  obscheck::append_checked_line(buf, m.dump());
  std::size_t written = 0;
  for (std::size_t b = 0; b < blocks; ++b)
    for (std::size_t p = 0; p < bs; ++p) {
      obscheck::RunRecord r;
      if (b < warmup) {
        r = src.runs.at(b * bs + p);
      } else {
        r = *measured.at(((b - warmup) * bs + p) % measured.size());
        r.warmup = false;
      }
      r.block = b;
      r.position = p;
      r.index = b * bs + p;
      r.config_id = m["plan"]["configs"][r.config]["id"];
      obscheck::append_checked_line(buf, obscheck::run_line(r));
      ++written;
      if (buf.size() > (1 << 20)) {
        f << buf;
        buf.clear();
      }
    }
  obscheck::append_checked_line(buf, nlohmann::json{{"type", "note"}, {"kind", "finished"}}.dump());
  f << buf;
  return written;
}

// Which host and when: the figures are this host's, on this day, at this load.
void print_host() {
  char host[256] = "?";
  ::gethostname(host, sizeof host - 1);
  double load[3] = {0, 0, 0};
  ::getloadavg(load, 3);
  const std::time_t now = std::time(nullptr);
  char when[64];
  std::strftime(when, sizeof when, "%Y-%m-%d %H:%M UTC", std::gmtime(&now));
  std::printf("host %s, %ld CPUs, %s, load average %.2f %.2f %.2f\n", host, ::sysconf(_SC_NPROCESSORS_ONLN), when,
              load[0], load[1], load[2]);
}

std::string seconds(const Timing& t) {
  if (t.stopped) return "> " + std::to_string(kReportLimit.count()) + " s";
  char b[32];
  std::snprintf(b, sizeof b, "%.2f s", t.seconds);
  return b;
}

}  // namespace

int main(int argc, char** argv) {
  std::vector<std::size_t> sizes;
  for (int i = 1; i < argc; ++i) sizes.push_back(std::strtoull(argv[i], nullptr, 10));
  if (sizes.empty()) sizes = {10'000, 100'000, 1'000'000};

  const bool keep = std::getenv("OBSCHECK_BENCH_KEEP") != nullptr;
  const char* other_bin = std::getenv("OBSCHECK_BENCH_OTHER");
  // A new directory of this user's only (mkdtemp: not a name another user can guess
  // and create first).
  const char* tmp = std::getenv("TMPDIR");
  std::string dir_template = std::string(tmp && *tmp ? tmp : "/tmp") + "/obscheck-bench-scaling-XXXXXX";
  if (::mkdtemp(dir_template.data()) == nullptr) return std::perror("mkdtemp"), 1;
  const std::string dir = dir_template;
  const std::string recorded = dir + "/recorded.jsonl";
  const Timing check = run({OBSCHECK_BIN, "--json", "--counters", "task-clock,page-faults", "--runs", "20", "--seed",
                            "1", "--journal", recorded, "--", std::string(OBSCHECK_WORKLOADS) + "/compute", "1000"},
                           kReportLimit);
  if (check.status != 0 && check.status != 1) {
    std::fprintf(stderr, "the check failed (exit %d)\n", check.status);
    return 1;
  }
  const obscheck::JournalData src = obscheck::load_journal(recorded);
  std::printf("analysis_scaling: a --runs 20 check of compute 1000 (task-clock,page-faults, %zu runs) relabelled\n",
              src.runs.size());
  print_host();
  std::printf("%10s %9s | %12s %9s %7s | %10s %9s %7s | %10s %9s | %12s %9s\n", "runs", "file MB", "report", "peak MB",
              "CPU s", "parse", "peak MB", "CPU s", "table", "peak MB", "report/parse", "CPU ratio");
  struct Row {
    std::size_t runs;
    Timing report, floor, table;
  };
  std::vector<Row> rows;
  for (std::size_t n : sizes) {
    const std::string path = dir + "/runs-" + std::to_string(n) + ".jsonl";
    const std::size_t runs = synthesize(src, n, path);
    struct stat st {};
    ::stat(path.c_str(), &st);
    const Timing floor = read_in_child(path, runs, false);
    const Timing table = read_in_child(path, runs, true);
    const Timing report = run({OBSCHECK_BIN, "report", "--json", path}, kReportLimit);
    if (floor.status != 0 || table.status != 0) std::fprintf(stderr, "the reader failed on %s\n", path.c_str());
    if (!report.stopped && report.status != 0 && report.status != 1)
      std::fprintf(stderr, "report exited %d on %s\n", report.status, path.c_str());
    std::printf("%10zu %9.1f | %12s %9.1f %7.2f | %8.2f s %9.1f %7.2f | %8.2f s %9.1f | %11.2fx %8.2fx\n", runs,
                static_cast<double>(st.st_size) / 1e6, seconds(report).c_str(), report.peak_mb, report.cpu_s,
                floor.seconds, floor.peak_mb, floor.cpu_s, table.seconds, table.peak_mb, report.seconds / floor.seconds,
                report.cpu_s / floor.cpu_s);
    if (other_bin) {
      const Timing other = run({other_bin, "report", "--json", path}, kReportLimit);
      if (!other.stopped && other.status != 0 && other.status != 1)
        std::fprintf(stderr, "the other report exited %d on %s\n", other.status, path.c_str());
      std::printf("%10s %9s | %12s %9.1f %7.2f | OBSCHECK_BENCH_OTHER's report: report/parse %.2fx, CPU ratio %.2fx\n",
                  "", "", seconds(other).c_str(), other.peak_mb, other.cpu_s, other.seconds / floor.seconds,
                  other.cpu_s / floor.cpu_s);
    }
    std::fflush(stdout);
    rows.push_back({runs, report, floor, table});
    if (!keep) ::unlink(path.c_str());
  }
  for (std::size_t i = 0; i + 1 < rows.size(); ++i) {
    const Row& a = rows[i];
    const Row& b = rows[i + 1];
    const double more = static_cast<double>(b.runs - a.runs);
    const auto per_run = [&](const Timing& x, const Timing& y) { return (y.peak_mb - x.peak_mb) * 1048576.0 / more; };
    std::printf("growth %zu -> %zu runs (%.1fx the data): time: report %.1fx%s, parse %.1fx, table %.1fx; "
                "memory per added run: report %.0f B, parse %.0f B, table %.0f B\n",
                a.runs, b.runs, static_cast<double>(b.runs) / static_cast<double>(a.runs),
                b.report.seconds / a.report.seconds, b.report.stopped ? " (at least)" : "",
                b.floor.seconds / a.floor.seconds, b.table.seconds / a.table.seconds, per_run(a.report, b.report),
                per_run(a.floor, b.floor), per_run(a.table, b.table));
  }
  // The looks' cost in a live check: a long check of /bin/true (the shortest runs, so
  // the analyses weigh the most), every look analysed, the share of the check's time
  // they took (from the sweep's end note: analysis_seconds over seconds).
  for (const char* blocks : {"500", "4000"}) {
    const std::string live = dir + "/live-" + std::string(blocks) + ".jsonl";
    const Timing t = run({OBSCHECK_BIN, "--json", "--counters", "task-clock,page-faults", "--max-runs", blocks,
                          "--time-budget", "0", "--seed", "2", "--journal", live, "--", "/bin/true"},
                         kReportLimit);
    const obscheck::JournalData d = obscheck::load_journal(live);
    if (!d.notes.empty() && d.notes.back().contains("sweep")) {
      const auto& sweep = d.notes.back().at("sweep");
      const double a = sweep.value("analysis_seconds", 0.0), all = sweep.value("seconds", 0.0);
      std::printf("live check of /bin/true, up to %s blocks: %zu runs, %zu looks, analyses %.3f s of %.2f s = %.1f%%\n",
                  blocks, d.runs.size(), sweep.value("looks", std::size_t{0}), a, all, all > 0 ? 100 * a / all : 0.0);
    } else {
      std::fprintf(stderr, "the live check of /bin/true left no end note (exit %d)\n", t.status);
    }
    if (!keep) ::unlink(live.c_str());
  }
  if (keep) std::printf("journals kept in %s\n", dir.c_str());
  if (!keep) {
    ::unlink(recorded.c_str());
    ::rmdir(dir.c_str());
  } else {
    std::printf("analysis_scaling: the journals are kept in %s\n", dir.c_str());
  }
  return 0;
}
