// The driver's share of a full check's wall time: a check of /bin/true with four
// software counters, external mode, 20 measured blocks (+1 warm-up), against the sum
// of the targets' own wall times recorded in its journal. Also prints a bare
// posix_spawn+wait4 loop over the same number of runs, measured in the same go, so
// the figure can be read against the floor of starting processes at all.
// Target (issue): the driver's share under 15%.
#include <fcntl.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <string>
#include <vector>

#include "record/journal.h"

extern char** environ;

namespace {

constexpr int kBlocks = 20;

double now_s() {
  return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count();
}

int run(const std::vector<std::string>& args) {
  std::vector<char*> argv;
  for (const auto& a : args) argv.push_back(const_cast<char*>(a.c_str()));
  argv.push_back(nullptr);
  posix_spawn_file_actions_t fa;
  posix_spawn_file_actions_init(&fa);
  posix_spawn_file_actions_addopen(&fa, 1, "/dev/null", O_WRONLY, 0);
  posix_spawn_file_actions_addopen(&fa, 2, "/dev/null", O_WRONLY, 0);
  pid_t pid;
  if (posix_spawn(&pid, argv[0], &fa, nullptr, argv.data(), environ) != 0) return -1;
  int st = 0;
  waitpid(pid, &st, 0);
  posix_spawn_file_actions_destroy(&fa);
  return WIFEXITED(st) ? WEXITSTATUS(st) : -1;
}

}  // namespace

int main() {
  const std::string journal = "/tmp/obscheck-bench-check-" + std::to_string(getpid()) + ".jsonl";
  const double t0 = now_s();
  const int rc = run({OBSCHECK_BIN, "--json", "--counters", "task-clock,page-faults,ctx-switches,migrations",
                      "--runs", std::to_string(kBlocks), "--seed", "1", "--journal", journal, "--", "/bin/true"});
  const double total = now_s() - t0;
  if (rc != 0 && rc != 1) {
    std::fprintf(stderr, "the check failed (exit %d)\n", rc);
    return 1;
  }
  const obscheck::JournalData d = obscheck::load_journal(journal);
  double targets = 0;
  for (const auto& r : d.runs) targets += static_cast<double>(r.exit.wall_ns) * 1e-9;
  unlink(journal.c_str());

  const double b0 = now_s();
  for (std::size_t i = 0; i < d.runs.size(); ++i) run({"/bin/true"});
  const double bare = now_s() - b0;

  std::printf("full check of /bin/true, 4 software counters, %d blocks + warm-up = %zu runs\n", kBlocks, d.runs.size());
  std::printf("  total wall time              : %8.3f s\n", total);
  std::printf("  targets' own wall time (sum) : %8.3f s\n", targets);
  std::printf("  driver's share               : %8.1f %%   (target < 15%%)\n", 100.0 * (total - targets) / total);
  std::printf("  bare posix_spawn loop, same runs: %.3f s (%.2fx the check's total)\n", bare, bare / total);
  return 0;
}
