// Per-run overhead of `obscheck measure` against its peers, measured in one go:
//   obscheck measure -r 300 -e task-clock,page-faults -- /bin/true
//   perf stat -r 300 -e task-clock,page-faults -- /bin/true
//   hyperfine -N --runs 300 /bin/true (where installed: Debian's hyperfine)
//   a bare posix_spawn + wait4 loop of /bin/true, 300 times (the floor)
// Each is timed as a whole process (start-up and report included), and the per-run
// cost is that time over the 300 runs. Prints each and its ratio to the bare loop.
// Rounds are interleaved so that drift on a shared machine hits every contender
// alike; the median round is reported, and beside it the median and middle half of
// each round's ratio to the bare loop of the same round (paired: a slow spell of the
// machine moves both sides of a round's ratio). Target: obscheck <= 1.05x the bare loop.
#include <fcntl.h>
#include <spawn.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

extern char** environ;

namespace {

constexpr int kRuns = 300;   // as the issue states the comparison
constexpr int kRounds = 11;  // interleaved rounds; the median is reported

double now_s() {
  return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count();
}

// Runs argv with stdout/stderr to /dev/null; returns wall seconds and exit status.
double run_command(const std::vector<std::string>& args, int* status) {
  std::vector<char*> argv;
  for (const auto& a : args) argv.push_back(const_cast<char*>(a.c_str()));
  argv.push_back(nullptr);
  posix_spawn_file_actions_t fa;
  posix_spawn_file_actions_init(&fa);
  posix_spawn_file_actions_addopen(&fa, 1, "/dev/null", O_WRONLY, 0);
  posix_spawn_file_actions_addopen(&fa, 2, "/dev/null", O_WRONLY, 0);
  const double t0 = now_s();
  pid_t pid;
  if (posix_spawnp(&pid, argv[0], &fa, nullptr, argv.data(), environ) != 0) {
    *status = -1;
    return 0;
  }
  waitpid(pid, status, 0);
  posix_spawn_file_actions_destroy(&fa);
  return now_s() - t0;
}

double bare_loop() {
  char* argv[] = {const_cast<char*>("/bin/true"), nullptr};
  posix_spawn_file_actions_t fa;
  posix_spawn_file_actions_init(&fa);
  posix_spawn_file_actions_addopen(&fa, 1, "/dev/null", O_WRONLY, 0);
  posix_spawn_file_actions_addopen(&fa, 2, "/dev/null", O_WRONLY, 0);
  const double t0 = now_s();
  for (int i = 0; i < kRuns; ++i) {
    pid_t pid;
    posix_spawn(&pid, "/bin/true", &fa, nullptr, argv, environ);
    int st;
    struct rusage ru;
    wait4(pid, &st, 0, &ru);
  }
  posix_spawn_file_actions_destroy(&fa);
  return now_s() - t0;
}

double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return v[v.size() / 2];
}

// The value at fraction p of sorted v (nearest rank): the quartiles of a few rounds.
double at_fraction(std::vector<double> v, double p) {
  std::sort(v.begin(), v.end());
  return v[static_cast<std::size_t>(p * static_cast<double>(v.size() - 1) + 0.5)];
}

void print_peer(const char* name, const std::vector<double>& rounds, bool ran, const std::vector<double>& bare_rounds,
                const char* hint) {
  if (!ran || rounds.empty()) {
    std::printf("  %s: not runnable here (%s)\n", name, hint);
    return;
  }
  const double p = median(rounds) / kRuns, bare = median(bare_rounds) / kRuns;
  std::vector<double> paired;
  for (std::size_t i = 0; i < rounds.size() && i < bare_rounds.size(); ++i) paired.push_back(rounds[i] / bare_rounds[i]);
  std::printf("  %s: %8.1f us  %.2fx   per round %.2fx [%.2f, %.2f]\n", name, p * 1e6, p / bare,
              at_fraction(paired, 0.5), at_fraction(paired, 0.25), at_fraction(paired, 0.75));
}

}  // namespace

int main() {
  const std::string runs = std::to_string(kRuns);
  const std::vector<std::string> ours = {OBSCHECK_BIN, "measure", "-r", runs, "-w", "0", "-e",
                                         "task-clock,page-faults", "--", "/bin/true"};
  const std::vector<std::string> perf = {"perf", "stat", "-r", runs, "-e", "task-clock,page-faults",
                                         "--", "/bin/true"};
  const std::vector<std::string> hyperfine = {"hyperfine", "-N", "--runs", runs, "--warmup", "0", "--style", "none",
                                              "/bin/true"};
  // OBSCHECK_BENCH_OTHER=/path/to/obscheck: another build timed beside this one (before
  // and after a change, in the same run).
  const char* other_bin = std::getenv("OBSCHECK_BENCH_OTHER");
  std::vector<std::string> other = ours;
  if (other_bin != nullptr) other[0] = other_bin;
  std::vector<double> t_bare, t_ours, t_perf, t_hyperfine, t_other;
  bool have_perf = true, have_hyperfine = true, have_other = other_bin != nullptr;
  for (int r = 0; r < kRounds; ++r) {
    int st = 0;
    t_bare.push_back(bare_loop());
    t_ours.push_back(run_command(ours, &st));
    if (st != 0) {
      std::fprintf(stderr, "obscheck measure failed (status %d)\n", st);
      return 1;
    }
    if (have_perf) {
      t_perf.push_back(run_command(perf, &st));
      have_perf = st == 0;
    }
    if (have_hyperfine) {
      t_hyperfine.push_back(run_command(hyperfine, &st));
      have_hyperfine = st == 0;
    }
    if (have_other) {
      t_other.push_back(run_command(other, &st));
      have_other = st == 0;
    }
  }
  const double bare = median(t_bare) / kRuns;
  std::printf("per-run cost over %d runs of /bin/true (median of %d interleaved rounds; per round: the median\n"
              "and quartiles of each round's ratio to that round's bare loop). Target: obscheck <= 1.05x\n",
              kRuns, kRounds);
  std::printf("  bare posix_spawn+wait4 : %8.1f us  1.00x\n", bare * 1e6);
  print_peer("obscheck measure       ", t_ours, true, t_bare, "");
  print_peer("perf stat -r           ", t_perf, have_perf, t_bare, "install linux-perf");
  print_peer("hyperfine -N           ", t_hyperfine, have_hyperfine, t_bare, "install hyperfine");
  if (other_bin != nullptr) print_peer("OBSCHECK_BENCH_OTHER   ", t_other, have_other, t_bare, other_bin);
  return 0;
}
