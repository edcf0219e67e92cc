// The calibration table (tests/calibration/README.md):
// replayed checks on the committed real-noise fixtures, per case, fixture and seed,
// with the rates the verdicts must reach. Prints; never fails on a rate (the
// calibration test asserts them). Each fixture's window is the blocks its recording's
// pace fits in the live default budget (replay.h budget_window) unless --window says;
// with several seeds a "mean" line (and the lowest and highest seed) follows each case.
//
// With --forecast it prints instead, per fixture and seed, the first look's forecast
// against the interval each replayed null check reached (calibration/forecast_replay.h):
// the share within 2x, and with --each a line per replay.
//
//   bench_calibration [--replays N] [--window B] [--fixture NAME[,NAME...]] [--case NAME[,NAME...]]
//                     [--seeds S1,S2,...] [--threads T] [--forecast [--each]]
#include <fmt/core.h>
#include <fmt/format.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <sstream>
#include <string>
#include <vector>

#include "calibration/fixture.h"
#include "calibration/forecast_replay.h"
#include "calibration/replay.h"
#include "util/error.h"

using namespace obscheck;
using namespace obscheck::calibration;

namespace {

std::string pct(double x) { return fmt::format("{:5.1f}%", 100 * x); }

int usage() {
  fmt::print(stderr,
             "usage: bench_calibration [--replays N] [--window B] [--fixture NAME,...] [--case NAME,...] [--seeds S1,S2,...] "
             "[--threads T] [--forecast [--each]]\n");
  return 2;
}

std::vector<std::string> items(const char* text) {
  std::vector<std::string> out;
  std::stringstream in(text);
  for (std::string item; std::getline(in, item, ',');)
    if (!item.empty()) out.push_back(item);
  return out;
}

std::vector<std::uint64_t> seed_list(const char* text) {
  std::vector<std::uint64_t> out;
  for (const std::string& item : items(text)) out.push_back(std::strtoull(item.c_str(), nullptr, 10));
  return out;
}

// Empty `only` selects everything.
bool selected(const std::vector<std::string>& only, const std::string& name) {
  return only.empty() || std::find(only.begin(), only.end(), name) != only.end();
}

// The rates a row prints, in its columns' order.
std::vector<double> columns(const CaseRates& r) {
  return {r.any_perturbed, r.primary_perturbed, r.time_not_perturbed, r.detected_task_clock, r.detected_wall,
          r.first_look_decided, r.decided_some_look, r.decided_by_4, r.decided_by_6, r.drift_injected_level,
          r.drift_any, r.load_found};
}

void print_row(const std::string& fixture, const std::string& name, const std::string& seed, const std::vector<std::string>& cells,
               std::size_t window, double at_blk, double looks, double blocks, double s) {
  fmt::print("{:<12} {:<10} {:>5} {:>6}", fixture, name, seed, window);
  for (const std::string& c : cells) fmt::print(" {:>9}", c);
  fmt::print(" {:>7.1f} {:>6.2f} {:>7.1f} {:>7.1f}\n", at_blk, looks, blocks, s);
  std::fflush(stdout);
}

const char* const kFixtures[] = {"compute-a", "pagetouch-a", "compute-b", "compute-c", "pagetouch-c"};

double median_of(std::vector<double> v) {
  if (v.empty()) return NAN;
  std::sort(v.begin(), v.end());
  return v[v.size() / 2];
}

// One fixture's forecast rows: per seed the share within 2x, the replays whose forecast
// was too wide (ratio > 2) or too narrow (< 1/2), and the medians of the ratio and of its
// two factors (the first look's noise estimate, forecast / at-last; the projection,
// at-last / reached).
void print_forecast(const std::string& name, const Fixture& fx, ReplaySpec spec, const std::vector<std::uint64_t>& seeds,
                    std::size_t replays, bool each) {
  double sum = 0, lo = 1, hi = 0;
  for (const std::uint64_t seed : seeds) {
    const std::vector<ForecastReplay> r = forecast_replays(fx, spec, replays, seed);
    std::size_t wide = 0, narrow = 0;
    std::vector<double> ratio, estimate, projection;
    for (std::size_t k = 0; k < r.size(); ++k) {
      const ForecastReplay& x = r[k];
      wide += x.ratio() > 2;
      narrow += x.ratio() < 0.5;
      ratio.push_back(x.ratio());
      estimate.push_back(x.forecast / x.at_last);
      projection.push_back(x.at_last / x.reached);
      if (each)
        fmt::print("{} seed {} replay {}: from block {}, look {}: sigma {:.4f} floor {:.4f} (last {:.4f} {:.4f}); "
                   "forecast ±{:.3g}% at {} blocks (±{:.3g}% at {}), from the last look ±{:.3g}%, reached ±{:.3g}% "
                   "({} of {} blocks, {}); ratio {:.2f}\n",
                   name, seed, k, x.first_block, x.look_blocks, x.sigma, x.floor, x.sigma_last, x.floor_last,
                   100 * x.forecast, x.reached_blocks, 100 * x.as_printed, spec.window, 100 * x.at_last,
                   100 * x.reached, x.reached_blocks, x.check_blocks, x.decisive ? "decided" : "window", x.ratio());
    }
    const double rate = within_2x_rate(r);
    sum += rate;
    lo = std::min(lo, rate);
    hi = std::max(hi, rate);
    fmt::print("{:<12} seed {:>3} window {:>5}: within 2x {}  too wide {:>3}  too narrow {:>3}  median ratio {:.2f} "
               "(estimate {:.2f}, projection {:.2f}); as printed, for the window's blocks: within 2x {}\n",
               name, seed, spec.window, pct(rate), wide, narrow, median_of(ratio), median_of(estimate),
               median_of(projection), pct(printed_within_2x_rate(r)));
    std::fflush(stdout);
  }
  if (seeds.size() > 1)
    fmt::print("{:<12} mean within 2x {} (min {}, max {}) over {} seeds\n", name, pct(sum / static_cast<double>(seeds.size())),
               pct(lo), pct(hi), seeds.size());
}

int forecast_table(const std::vector<std::string>& only_fixture, const std::vector<std::uint64_t>& seeds,
                   std::size_t replays, std::size_t window, std::size_t threads, bool each) {
  fmt::print("forecast: the first look's (>= 10 blocks) forecast against the interval each replayed null check reached, "
             "{} replays per seed\n",
             replays);
  for (const char* name : kFixtures) {
    if (!selected(only_fixture, name)) continue;
    const Fixture fx = load_fixture(std::string(OBSCHECK_FIXTURES) + "/" + name + ".jsonl.gz");
    const BudgetWindow bw = budget_window(fx, live_budget_seconds());
    for (NamedCase& c : standard_cases(window ? window : bw.blocks)) {
      if (c.name != "null") continue;
      c.spec.threads = threads;
      print_forecast(name, fx, c.spec, seeds, replays, each);
    }
  }
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  std::size_t replays = kDefaultReplays, window = 0, threads = 0;
  std::vector<std::uint64_t> seeds{kCalibrationSeed};
  std::vector<std::string> only_fixture, only_case;
  bool forecast = false, each = false;
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    if (a == "--forecast" || a == "--each") {
      (a == "--forecast" ? forecast : each) = true;
      continue;
    }
    if (i + 1 >= argc) return usage();
    const char* v = argv[++i];
    if (a == "--replays") replays = std::strtoull(v, nullptr, 10);
    else if (a == "--window") window = std::strtoull(v, nullptr, 10);
    else if (a == "--seed" || a == "--seeds") seeds = seed_list(v);
    else if (a == "--threads") threads = std::strtoull(v, nullptr, 10);
    else if (a == "--fixture") only_fixture = items(v);
    else if (a == "--case") only_case = items(v);
    else return usage();
  }
  if (seeds.empty()) return usage();
  try {
    if (forecast) return forecast_table(only_fixture, seeds, replays, window, threads, each);
    fmt::print("calibration: {} replayed checks per case and seed, window {}, looks {}, seeds {}\n", replays,
               window ? fmt::format("{} blocks", window) : "the blocks the recording's pace fits in the default budget",
               "per plan (first_look, then a quarter more)", fmt::join(seeds, ","));
    fmt::print("rates are fractions of replayed checks; time metrics = task-clock and wall-time; "
               "'injected' = the level the effect went into;\n"
               "some-look: both time metrics detected at some look, at-blk: the mean blocks of the first such look;\n"
               "by-4/by-6: ... at a look of at most 4/6 blocks; prim-pert: some primary verdict perturbed;\n"
               "a 'mean' row gives the mean over the seeds and, below it, 'min'/'max' the lowest and highest seed\n\n");
    fmt::print("{:<12} {:<10} {:>5} {:>6} {:>9} {:>9} {:>9} {:>9} {:>9} {:>9} {:>9} {:>9} {:>9} {:>9} {:>9} {:>9} {:>7} {:>6} {:>7} {:>7}\n",
               "fixture", "case", "seed", "window", "any-pert", "prim-pert", "time-null", "det-tc", "det-wall", "1st-look",
               "some-look", "by-4", "by-6", "drift-inj", "drift-any", "load-found", "at-blk", "looks", "blocks", "s");
    for (const char* name : kFixtures) {
      if (!selected(only_fixture, name)) continue;
      const Fixture fx = load_fixture(std::string(OBSCHECK_FIXTURES) + "/" + name + ".jsonl.gz");
      const BudgetWindow bw = budget_window(fx, live_budget_seconds());
      fmt::print("# {}: {} blocks, {:.4f} s a block ({}), {} blocks within {} s{}\n", name, fx.blocks.size(),
                 bw.seconds_per_block, bw.from_note ? "its end note" : "its runs' wall times, a lower bound",
                 bw.within_budget, live_budget_seconds(), bw.capped() ? ": capped by the fixture" : "");
      for (NamedCase& c : standard_cases(window ? window : bw.blocks)) {
        if (!selected(only_case, c.name)) continue;
        c.spec.threads = threads;
        std::vector<std::vector<double>> per_seed;
        double at_blk = 0, looks = 0, blocks = 0, secs = 0;
        for (const std::uint64_t seed : seeds) {
          const auto t0 = std::chrono::steady_clock::now();
          const CaseRates r = run_case(fx, c.spec, replays, seed);
          const double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
          per_seed.push_back(columns(r));
          std::vector<std::string> cells;
          for (double x : per_seed.back()) cells.push_back(pct(x));
          print_row(name, c.name, std::to_string(seed), cells, c.spec.window, r.mean_decided_blocks, r.mean_looks, r.mean_blocks, s);
          at_blk += r.mean_decided_blocks;
          looks += r.mean_looks;
          blocks += r.mean_blocks;
          secs += s;
        }
        if (seeds.size() < 2) continue;
        const auto n = static_cast<double>(seeds.size());
        for (const std::string what : {"mean", "min", "max"}) {
          std::vector<std::string> cells;
          for (std::size_t j = 0; j < per_seed.front().size(); ++j) {
            double lo = 1, hi = 0, sum = 0;
            for (const auto& row : per_seed) {
              lo = std::min(lo, row[j]);
              hi = std::max(hi, row[j]);
              sum += row[j];
            }
            cells.push_back(pct(what == "mean" ? sum / n : what == "min" ? lo : hi));
          }
          print_row(name, c.name, what, cells, c.spec.window, at_blk / n, looks / n, blocks / n, secs / n);
        }
      }
    }
  } catch (const Error& e) {
    fmt::print(stderr, "bench_calibration: {}\n", e.what());
    return 1;
  }
  return 0;
}
