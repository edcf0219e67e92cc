// descendants_overhead: what the check adds between two runs to find (and kill) the
// processes a run left behind, in the common case where there are none.
//
// Measured: kill_descendants() under a DescendantGuard with no child alive (one read
// of /proc/self/task/*/children per thread). Peer: one spawn + wait of /bin/true with
// stdio discarded (the cheapest run the check can make). Interleaved in rounds; the
// medians and their ratio are printed. Target: the ratio well under 0.05.
#include <fmt/core.h>

#include <algorithm>
#include <chrono>
#include <vector>

#include "launch/descendants.h"
#include "launch/launcher.h"

namespace {

constexpr int kCallsPerRound = 200;
constexpr int kRounds = 5;

double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return v[v.size() / 2];
}

}  // namespace

int main() {
  obscheck::DescendantGuard guard;
  obscheck::LaunchSpec spec;
  spec.path = "/bin/true";
  spec.argv = {"/bin/true"};
  spec.env = obscheck::EnvBlock({"PATH=/usr/bin:/bin"});
  std::vector<double> sweep_ns, run_ns;
  using clock = std::chrono::steady_clock;
  for (int round = 0; round < kRounds; ++round) {
    for (int i = 0; i < kCallsPerRound; ++i) {
      const auto t0 = clock::now();
      obscheck::CorkedChild c = obscheck::CorkedChild::spawn(spec);
      c.release();
      c.wait();
      const auto t1 = clock::now();
      obscheck::kill_descendants();
      const auto t2 = clock::now();
      run_ns.push_back(std::chrono::duration<double, std::nano>(t1 - t0).count());
      sweep_ns.push_back(std::chrono::duration<double, std::nano>(t2 - t1).count());
    }
  }
  const double s = median(sweep_ns), r = median(run_ns);
  fmt::print("kill_descendants (nothing left): median {:.1f} us; spawn+wait of /bin/true: median {:.1f} us; "
             "ratio {:.3f} ({} calls each)\n",
             s / 1e3, r / 1e3, s / r, sweep_ns.size());
  return 0;
}
