// spawn_overhead: what obscheck adds per run over the cheapest way to run a program.
//
// obscheck: CorkedChild::spawn + CounterSet::open (task-clock, page-faults) + release
// + wait + read, of /bin/true with stdio discarded. Peer: posix_spawn + wait4 of the
// same program with the same environment and nothing attached. Runs are interleaved
// in rounds (the order alternating) so drift on a shared machine hits both alike; the
// ratio of the medians is printed. Target: <= 1.10.
#include <spawn.h>
#include <sys/resource.h>
#include <sys/wait.h>

#include <fmt/core.h>

#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <vector>

#include "launch/launcher.h"
#include "observe/counters.h"

extern char** environ;

namespace {

using obscheck::CorkedChild;
using obscheck::CounterSet;
using obscheck::EnvBlock;
using obscheck::EventDesc;
using obscheck::EventSet;
using obscheck::LaunchSpec;
using obscheck::Stdio;

constexpr int kRunsPerMethod = 300;
constexpr int kRounds = 6;  // interleaving: each round runs both methods, order alternating
constexpr const char* kTarget = "/bin/true";

EventDesc software(const char* name, std::uint64_t config) {
  EventDesc e;
  e.name = name;
  e.attr.type = PERF_TYPE_SOFTWARE;
  e.attr.size = sizeof(perf_event_attr);
  e.attr.config = config;
  return e;
}

double seconds_since(std::chrono::steady_clock::time_point t0) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
}

double run_obscheck(const LaunchSpec& spec, const EventSet& events) {
  const auto t0 = std::chrono::steady_clock::now();
  CorkedChild child = CorkedChild::spawn(spec);
  const CounterSet counters = CounterSet::open(child.pid(), events);
  child.release();
  const auto exit = child.wait();
  const auto readings = counters.read();
  const double s = seconds_since(t0);
  if (!exit.ok() || readings.size() != events.events.size()) std::abort();
  return s;
}

double run_bare(char* const* argv) {
  const auto t0 = std::chrono::steady_clock::now();
  pid_t pid;
  if (posix_spawn(&pid, kTarget, nullptr, nullptr, argv, environ) != 0) std::abort();
  int status;
  struct rusage ru;
  if (wait4(pid, &status, 0, &ru) != pid || status != 0) std::abort();
  return seconds_since(t0);
}

double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return v[v.size() / 2];
}

}  // namespace

int main() {
  LaunchSpec spec;
  spec.path = kTarget;
  spec.argv = {kTarget};
  spec.env = EnvBlock::from_current();
  spec.out = Stdio::discard;
  EventSet events;
  events.events = {software("task-clock", PERF_COUNT_SW_TASK_CLOCK),
                   software("page-faults", PERF_COUNT_SW_PAGE_FAULTS)};
  events.groups = {{0}, {1}};
  char* argv[] = {const_cast<char*>(kTarget), nullptr};

  const EventSet no_events;

  // Three methods: obscheck with counters, obscheck's launcher alone (to tell the
  // launcher's cost from the counters'), bare posix_spawn.
  std::vector<double> ours, launcher_only, bare;
  const int per_round = kRunsPerMethod / kRounds;
  for (int r = 0; r < kRounds; ++r) {
    for (int m = 0; m < 3; ++m) {
      const int method = (m + r) % 3;  // rotate the order each round
      for (int i = 0; i < per_round; ++i) {
        if (method == 0) ours.push_back(run_obscheck(spec, events));
        if (method == 1) launcher_only.push_back(run_obscheck(spec, no_events));
        if (method == 2) bare.push_back(run_bare(argv));
      }
    }
  }
  const double mo = median(ours), ml = median(launcher_only), mb = median(bare);
  fmt::print("spawn_overhead: {} runs each of {}, {} interleaved rounds\n", kRunsPerMethod, kTarget, kRounds);
  fmt::print("  obscheck (cork + task-clock,page-faults + wait): median {:.1f} us\n", mo * 1e6);
  fmt::print("  obscheck launcher, no counters:                 median {:.1f} us\n", ml * 1e6);
  fmt::print("  posix_spawn + wait4:                            median {:.1f} us\n", mb * 1e6);
  fmt::print("  ratio {:.3f} (target <= 1.10); launcher alone {:.3f}\n", mo / mb, ml / mb);
  return 0;
}
