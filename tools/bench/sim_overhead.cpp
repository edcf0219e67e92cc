// sim_overhead: what the simulated backend adds per run over running cachegrind by hand.
//
// obscheck: run_sim (temporary directory, corked spawn of valgrind with the geometry
// spelled out, wait, read and parse cachegrind's file, derive every simulated event,
// remove the directory) of `compute 100`. Peer: posix_spawn + wait4 of the same
// valgrind binary with the same flags, geometry, environment and target, writing its
// output file to one fixed path, with nothing read afterwards. Runs are interleaved in
// rounds (the order alternating) so drift on a shared machine hits both alike; the
// ratio of the medians is printed. Target: <= 1.05.
//
// Second figure, the whole command as a user runs it: `obscheck measure --backend sim
// -r 10 -w 0` (option parsing, host geometry from sysfs, ten simulated runs, the
// report) against ten runs of valgrind by hand, interleaved over three rounds; the
// ratio of the median totals is printed.
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <fmt/core.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

#include "launch/launcher.h"
#include "observe/sim.h"

namespace {

using namespace obscheck;

constexpr int kRunsPerMethod = 30;
constexpr int kRounds = 6;  // interleaving: each round runs both methods, order alternating
// compute at scale 100: ~0.8M iterations of its kernel, about 0.5 s under cachegrind,
// long enough that a millisecond of driver work would show as 0.2%.
constexpr const char* kScale = "100";

double seconds_since(std::chrono::steady_clock::time_point t0) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
}

double run_driver(const LaunchSpec& target, const SimGeometry& g, const std::vector<SimEvent>& events) {
  const auto t0 = std::chrono::steady_clock::now();
  const SimRun r = run_sim(target, g, events);
  const double s = seconds_since(t0);
  if (!r.exit.ok() || r.readings.size() != events.size()) std::abort();
  return s;
}

double run_plain(const LaunchSpec& spec) {
  std::vector<char*> argv;
  for (const auto& a : spec.argv) argv.push_back(const_cast<char*>(a.c_str()));
  argv.push_back(nullptr);
  std::vector<char*> envp;
  for (const auto& v : spec.env.vars()) envp.push_back(const_cast<char*>(v.c_str()));
  envp.push_back(nullptr);
  posix_spawn_file_actions_t fa;
  posix_spawn_file_actions_init(&fa);
  posix_spawn_file_actions_addopen(&fa, 1, "/dev/null", 0x1 /* O_WRONLY */, 0);
  posix_spawn_file_actions_addopen(&fa, 2, "/dev/null", 0x1, 0);
  const auto t0 = std::chrono::steady_clock::now();
  pid_t pid = 0;
  if (posix_spawn(&pid, spec.path.c_str(), &fa, nullptr, argv.data(), envp.data()) != 0) std::abort();
  int status = 0;
  if (::waitpid(pid, &status, 0) != pid || !WIFEXITED(status) || WEXITSTATUS(status) != 0) std::abort();
  const double s = seconds_since(t0);
  posix_spawn_file_actions_destroy(&fa);
  return s;
}

// Spawns argv (stdout and stderr to /dev/null) and waits: the wall time, in seconds.
double run_command(const std::vector<std::string>& words) {
  LaunchSpec spec;
  spec.path = words.at(0);
  spec.argv = words;
  spec.env = EnvBlock::from_current();
  return run_plain(spec);
}

double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  const std::size_t n = v.size();
  return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

}  // namespace

int main() {
  LaunchSpec target;
  target.path = resolve_target(std::string(OBSCHECK_WORKLOADS) + "/compute");
  target.argv = {target.path, kScale};
  target.env = EnvBlock({"PATH=/usr/bin:/bin", "LC_ALL=C"});
  target.aslr = true;  // the peer cannot turn ASLR off; valgrind places the client itself
  target.out = Stdio::discard;
  const SimGeometry g = host_sim_geometry();
  const std::vector<SimEvent> events = sim_events();

  char dir[] = "/tmp/obscheck-sim-bench-XXXXXX";
  if (::mkdtemp(dir) == nullptr) std::abort();
  const std::string out = std::string(dir) + "/cachegrind.out", log = std::string(dir) + "/valgrind.log";
  const LaunchSpec plain = sim_launch_spec(target, g, out, log);

  std::vector<double> driver, peer;
  const int per_round = kRunsPerMethod / kRounds;
  for (int round = 0; round < kRounds; ++round) {
    for (int i = 0; i < per_round; ++i) {
      if ((round + i) % 2 == 0) {
        driver.push_back(run_driver(target, g, events));
        peer.push_back(run_plain(plain));
      } else {
        peer.push_back(run_plain(plain));
        driver.push_back(run_driver(target, g, events));
      }
    }
  }
  const double md = median(driver), mp = median(peer);
  fmt::print("sim_overhead: compute {} under cachegrind ({}), {} runs each, interleaved\n", kScale,
             format_sim_geometry(g), driver.size());
  fmt::print("  obscheck run_sim      median {:.4f} s\n", md);
  fmt::print("  valgrind by hand      median {:.4f} s\n", mp);
  fmt::print("  ratio {:.4f} (target <= 1.05)\n", md / mp);

  constexpr int kCommandRuns = 10, kCommandRounds = 3;
  const std::vector<std::string> command = {OBSCHECK_BIN, "measure", "--backend", "sim", "-r",
                                            std::to_string(kCommandRuns), "-w", "0", "--", target.path, kScale};
  std::vector<double> whole, by_hand;
  for (int round = 0; round < kCommandRounds; ++round) {
    double hand = 0;
    if (round % 2 == 0) whole.push_back(run_command(command));
    for (int i = 0; i < kCommandRuns; ++i) hand += run_plain(plain);
    by_hand.push_back(hand);
    if (round % 2 == 1) whole.push_back(run_command(command));
  }
  std::remove(out.c_str());
  std::remove(log.c_str());
  const double mw = median(whole), mh = median(by_hand);
  fmt::print("  obscheck measure --backend sim -r {}   median {:.3f} s\n", kCommandRuns, mw);
  fmt::print("  {} x valgrind by hand                   median {:.3f} s\n", kCommandRuns, mh);
  fmt::print("  ratio {:.4f} (target <= 1.05)\n", mw / mh);
  ::rmdir(dir);
  return 0;
}
