// Do the check's verdicts decide on this host, and how fast? Three live experiments
// with the built obscheck and the bundled workloads, printed as counts and times (a
// benchmark, not a pass/fail test: the host's noise decides the figures):
//
//   aa      an A/A: four software counters on `compute 1000`, external mode, 20 seeds.
//           Counting more software events from outside adds nothing the target runs,
//           so no verdict should be "perturbed", and task-clock and wall-time should
//           be "not perturbed within ±1%". Prints each seed's outcome, the counts and
//           the median seconds a check took.
//   hot     a uprobe on the hot function of `hot` (every call traps): "perturbed", and
//           the seconds until the check decided, 5 seeds.
//   sample  --sample-freq 0,1000,10000 on `compute 1000`, 5 seeds: how often the
//           10 kHz level was voided by drift.
//   compare `compare` of `extrawork 5000` against itself with 10% more work, over
//           environment contexts, 5 runs each at 99%, 20 seeds: how often it says
//           "worse" (the power of the comparison on this host's noise).
//
// Usage: bench_verdicts_live [aa|hot|sample|compare|all] [SEEDS]   (default: all, 20 / 5 / 5 / 20)
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "check_run.h"

namespace {

using nlohmann::json;
using obscheck::bench::metric_verdict;
using obscheck::bench::quote;
using Outcome = obscheck::bench::CheckOutcome;

Outcome check(const std::vector<std::string>& args) { return obscheck::bench::run_check(args, "verdicts"); }

// The seconds into the check of the first look at which `metric` was decided; -1: never.
double decided_after(const Outcome& o, const std::string& metric) {
  for (const json& l : o.looks)
    for (const json& d : l.value("decided", json::array()))
      if (d.value("metric", "") == metric) return l.value("seconds", -1.0);
  return -1;
}

double median(std::vector<double> v) {
  if (v.empty()) return 0;
  std::sort(v.begin(), v.end());
  return v.size() % 2 ? v[v.size() / 2] : (v[v.size() / 2 - 1] + v[v.size() / 2]) / 2;
}

std::string workload(const char* name) { return std::string(OBSCHECK_WORKLOADS) + "/" + name; }

void aa(int seeds) {
  std::printf("A/A: --counters task-clock,page-faults,ctx-switches,tsc -- compute 1000, %d seeds\n", seeds);
  int perturbed = 0, both_within = 0;
  std::vector<double> times;
  for (int s = 1; s <= seeds; ++s) {
    const Outcome o = check({"--counters", "task-clock,page-faults,ctx-switches,tsc", "--seed", std::to_string(s), "--",
                             workload("compute"), "1000"});
    int p = 0;
    for (const auto& v : o.report.value("verdicts", json::array())) p += v.value("verdict", "") == "perturbed";
    perturbed += p;
    const std::string tc = metric_verdict(o.report, "task-clock"), wt = metric_verdict(o.report, "wall-time");
    both_within += tc == "not-perturbed" && wt == "not-perturbed";
    times.push_back(o.seconds);
    const auto ctx = o.report.value("context", json::object());
    std::printf("  seed %2d: %5.1f s, %4zu runs, task-clock %-13s wall-time %-13s perturbed verdicts %d, A/A %s\n", s,
                o.seconds, ctx.value("runs_done", std::size_t{0}), tc.c_str(), wt.c_str(), p,
                o.report.value("aa", json::object()).value("ok", false) ? "ok" : "FAILED");
    std::fflush(stdout);
  }
  std::printf("A/A: 'perturbed' verdicts %d; task-clock and wall-time both 'not perturbed' in %d of %d; "
              "median %.1f s a check\n\n",
              perturbed, both_within, seeds, median(times));
}

void hot(int seeds) {
  std::printf("uprobe on hot_step (hot 5000): --probes hot_step --counters task-clock, %d seeds\n", seeds);
  std::vector<double> times, checks;
  int decided = 0;
  for (int s = 1; s <= seeds; ++s) {
    const Outcome o =
        check({"--probes", "hot_step", "--counters", "task-clock", "--seed", std::to_string(s), "--", workload("hot")});
    const std::string v = metric_verdict(o.report, "task-clock");
    decided += v == "perturbed";
    const double at = decided_after(o, "task-clock");
    times.push_back(at >= 0 ? at : o.seconds);
    checks.push_back(o.seconds);
    // The check goes on while another metric (user-time, at the tick's resolution) can
    // still be decided; task-clock's verdict stood from the look named here.
    std::printf("  seed %d: task-clock %s after %.1f s; the check ended after %.1f s (%zu runs)\n", s, v.c_str(),
                times.back(), o.seconds, o.report.value("context", json::object()).value("runs_done", std::size_t{0}));
    std::fflush(stdout);
  }
  std::printf("hot uprobe: 'perturbed' in %d of %d; median %.1f s to the verdict, %.1f s to the end of the check\n\n",
              decided, seeds, median(times), median(checks));
}

void sample(int seeds) {
  std::printf("sampling: --sample-freq 0,1000,10000 --counters task-clock -- compute 1000, %d seeds\n", seeds);
  int voided = 0;
  for (int s = 1; s <= seeds; ++s) {
    const Outcome o = check({"--sample-freq", "0,1000,10000", "--counters", "task-clock", "--seed", std::to_string(s),
                             "--", workload("compute"), "1000"});
    std::string line;
    for (const auto& v : o.report.value("verdicts", json::array())) {
      if (v.value("metric_name", "") != "task-clock") continue;
      const std::string reason = v.value("reason", "");
      if (v.value("level", "").find("10000") != std::string::npos && reason.rfind("drift", 0) == 0) ++voided;
      line += " " + v.value("level", "") + "=" + v.value("verdict", "");
    }
    std::printf("  seed %d: %.1f s;%s\n", s, o.seconds, line.c_str());
    std::fflush(stdout);
  }
  std::printf("sampling: the 10 kHz level voided by drift in %d of %d\n\n", voided, seeds);
}

}  // namespace

void compare_power(int seeds) {
  std::printf("compare: extrawork 5000 ::: extrawork 5000 10 (10%% more work), 5 runs per context, %d seeds\n", seeds);
  int worse = 0;
  std::vector<double> times;
  for (int s = 1; s <= seeds; ++s) {
    const std::string cmd = quote(OBSCHECK_BIN) + " compare --json --confidence 0.99 --env-sizes 0:2000:400 -r 5 --seed " +
                            std::to_string(s) + " -- " + quote(workload("extrawork")) + " 5000 ::: " +
                            quote(workload("extrawork")) + " 5000 10 2>/dev/null";
    const auto t0 = std::chrono::steady_clock::now();
    FILE* p = popen(cmd.c_str(), "r");
    std::string out;
    char buf[65536];
    while (p && !feof(p)) out.append(buf, fread(buf, 1, sizeof buf, p));
    if (p) pclose(p);
    times.push_back(std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count());
    std::string outcome = "unparsed";
    try {
      outcome = json::parse(out).at("comparison").at("outcome").get<std::string>();
    } catch (const std::exception&) {
    }
    worse += outcome == "worse";
    std::printf("  seed %2d: %-14s %.1f s\n", s, outcome.c_str(), times.back());
  }
  std::printf("  worse in %d of %d seeds; median %.1f s a comparison\n", worse, seeds, median(times));
}

int main(int argc, char** argv) {
  const std::string what = argc > 1 ? argv[1] : "all";
  const int seeds = argc > 2 ? std::atoi(argv[2]) : 0;
  if (what == "aa" || what == "all") aa(seeds > 0 ? seeds : 20);
  if (what == "hot" || what == "all") hot(seeds > 0 ? seeds : 5);
  if (what == "sample" || what == "all") sample(seeds > 0 ? seeds : 5);
  if (what == "compare" || what == "all") compare_power(seeds > 0 ? seeds : 20);
  return 0;
}
