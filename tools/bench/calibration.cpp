// The calibration table (tests/calibration/README.md):
// replayed checks on the committed real-noise fixtures, per case and fixture, with
// the rates the verdicts must reach. Prints; never fails on a rate (the calibration
// test asserts them).
//
//   bench_calibration [--replays N] [--window B] [--fixture NAME] [--case NAME]
//                     [--seed S] [--threads T]
#include <fmt/core.h>
#include <fmt/format.h>

#include <chrono>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

#include "calibration/fixture.h"
#include "calibration/replay.h"
#include "util/error.h"

using namespace obscheck;
using namespace obscheck::calibration;

namespace {

std::string pct(double x) { return fmt::format("{:5.1f}%", 100 * x); }

int usage() {
  fmt::print(stderr,
             "usage: bench_calibration [--replays N] [--window B] [--fixture NAME] [--case NAME] [--seed S] "
             "[--threads T]\n");
  return 2;
}

}  // namespace

int main(int argc, char** argv) {
  std::size_t replays = kDefaultReplays, window = kDefaultWindow, threads = 0;
  std::uint64_t seed = kCalibrationSeed;
  std::string only_fixture, only_case;
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    if (i + 1 >= argc) return usage();
    const char* v = argv[++i];
    if (a == "--replays") replays = std::strtoull(v, nullptr, 10);
    else if (a == "--window") window = std::strtoull(v, nullptr, 10);
    else if (a == "--seed") seed = std::strtoull(v, nullptr, 10);
    else if (a == "--threads") threads = std::strtoull(v, nullptr, 10);
    else if (a == "--fixture") only_fixture = v;
    else if (a == "--case") only_case = v;
    else return usage();
  }
  try {
    fmt::print("calibration: {} replayed checks per case, window {} blocks, looks {}, seed {}\n", replays, window,
               "per plan (first_look, then a quarter more)", seed);
    fmt::print("rates are fractions of replayed checks; time metrics = task-clock and wall-time; "
               "'injected' = the level the effect went into;\n"
               "some-look: both time metrics detected at some look, at-blk: the mean blocks of the first such look;\n"
               "by-4/by-6: ... at a look of at most 4/6 blocks; prim-pert: some primary verdict perturbed\n\n");
    fmt::print("{:<12} {:<10} {:>9} {:>9} {:>9} {:>9} {:>9} {:>9} {:>9} {:>9} {:>9} {:>9} {:>9} {:>9} {:>7} {:>6} {:>7} {:>7}\n",
               "fixture", "case", "any-pert", "prim-pert", "time-null", "det-tc", "det-wall", "1st-look", "some-look", "by-4", "by-6", "drift-inj",
               "drift-any", "load-found", "at-blk", "looks", "blocks", "s");
    for (const char* name : {"compute-a", "pagetouch-a", "compute-b"}) {
      if (!only_fixture.empty() && only_fixture != name) continue;
      const Fixture fx = load_fixture(std::string(OBSCHECK_FIXTURES) + "/" + name + ".jsonl.gz");
      for (NamedCase& c : standard_cases(window)) {
        if (!only_case.empty() && only_case != c.name) continue;
        c.spec.threads = threads;
        const auto t0 = std::chrono::steady_clock::now();
        const CaseRates r = run_case(fx, c.spec, replays, seed);
        const double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
        fmt::print("{:<12} {:<10} {:>9} {:>9} {:>9} {:>9} {:>9} {:>9} {:>9} {:>9} {:>9} {:>9} {:>9} {:>9} {:>7.1f} {:>6.2f} {:>7.1f} {:>7.1f}\n",
                   name, c.name, pct(r.any_perturbed), pct(r.primary_perturbed), pct(r.time_not_perturbed),
                   pct(r.detected_task_clock), pct(r.detected_wall), pct(r.first_look_decided), pct(r.decided_some_look),
                   pct(r.decided_by_4), pct(r.decided_by_6),
                   pct(r.drift_injected_level), pct(r.drift_any), pct(r.load_found), r.mean_decided_blocks,
                   r.mean_looks, r.mean_blocks, s);
        std::fflush(stdout);
      }
    }
  } catch (const Error& e) {
    fmt::print(stderr, "bench_calibration: {}\n", e.what());
    return 1;
  }
  return 0;
}
