// How long until the check answers, on programs of about 5 ms, 50 ms, 0.5 s and 2 s a
// run, under effects of known size (a benchmark, not a pass/fail test: the host's
// noise decides the figures).
//
// The program is the bundled `compute N`, N sized from a timed `compute 1000` so a run
// takes about the row's time. The effects:
//   A/A   --counters task-clock,page-faults: counting one more software event from
//         outside adds nothing the target runs;
//   +3%, x2, x100
//         --counters task-clock --observer-cmd 'env COMPUTE_EXTRA_PERMILLE={level} {argv}'
//         --levels 0,P: at the dose the target does P/1000 of its work again (30, 1000,
//         99000), the reference runs bare. task-clock counts the target alone; wall
//         time also pays for env's exec (about a millisecond, which is part of the
//         effect on wall time: on the 5 ms program +3% of work is not +3% of wall time).
// Per row: the seconds to the overall answer (the first look at which task-clock and
// wall-time were both decided, from the journal's look notes), to the end of the
// check, the blocks, the runs saved by retiring settled configurations, and the
// verdicts. x100 on the 0.5 s and 2 s programs is left out unless asked for (a run
// then takes 50 s and 200 s).
//
// Usage: bench_time_to_answer [--budget S] [--seed S] [--all] [ROW...]
//   ROW: 5ms | 50ms | 0.5s | 2s, optionally :aa | :3% | :x2 | :x100 (default: every row)
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

Outcome check(const std::vector<std::string>& args) { return obscheck::bench::run_check(args, "tta"); }

std::string workload(const char* name) { return std::string(OBSCHECK_WORKLOADS) + "/" + name; }

double seconds_of(const std::string& cmd) {
  const auto t0 = std::chrono::steady_clock::now();
  if (std::system(cmd.c_str()) != 0) return -1;
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
}

// The seconds of the first look at which every one of `metrics` was decided; -1: never.
double answered_after(const Outcome& o, const std::vector<std::string>& metrics) {
  for (const json& l : o.looks) {
    std::size_t found = 0;
    for (const std::string& m : metrics)
      for (const json& d : l.value("decided", json::array())) found += d.value("metric", "") == m ? 1 : 0;
    if (found == metrics.size()) return l.value("seconds", -1.0);
  }
  return -1;
}

struct Program {
  const char* name;
  double target_s;
};
struct Effect {
  const char* name;
  long permille;  // -1: the A/A
};

std::vector<std::string> args_for(const Effect& e, long n, const std::string& budget, const std::string& seed) {
  std::vector<std::string> a = {"--time-budget", budget, "--seed", seed};
  if (e.permille < 0) {
    a.insert(a.end(), {"--counters", "task-clock,page-faults"});
  } else {
    a.insert(a.end(), {"--counters", "task-clock", "--observer-cmd", "/usr/bin/env COMPUTE_EXTRA_PERMILLE={level} {argv}",
                       "--levels", "0," + std::to_string(e.permille)});
  }
  a.insert(a.end(), {"--", workload("compute"), std::to_string(n)});
  return a;
}

bool wanted(const std::vector<std::string>& rows, const Program& p, const Effect& e, bool all) {
  const std::string prog = p.name, eff = e.name;
  if (rows.empty()) return all || !(e.permille > 10000 && p.target_s >= 0.5);
  for (const std::string& r : rows)
    if (r == prog || r == prog + ":" + eff) return true;
  return false;
}

}  // namespace

int main(int argc, char** argv) {
  std::string budget = "60", seed = "1";
  bool all = false;
  std::vector<std::string> rows;
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    if (a == "--budget" && i + 1 < argc) budget = argv[++i];
    else if (a == "--seed" && i + 1 < argc) seed = argv[++i];
    else if (a == "--all") all = true;
    else rows.push_back(a);
  }
  // compute 1000's seconds, the fastest of three (the least disturbed).
  double per_1000 = 1e9;
  for (int i = 0; i < 3; ++i)
    per_1000 = std::min(per_1000, seconds_of(quote(workload("compute")) + " 1000 >/dev/null"));
  if (!(per_1000 > 0)) {
    std::fprintf(stderr, "bench_time_to_answer: cannot run %s\n", workload("compute").c_str());
    return 1;
  }
  std::printf("time to answer: compute 1000 takes %.1f ms here; --time-budget %s, seed %s\n", per_1000 * 1e3,
              budget.c_str(), seed.c_str());
  std::printf("%-6s %-8s %-6s %9s %8s %6s %5s %5s  %-14s %-14s %s\n", "run", "N", "effect", "answer s", "end s", "blocks",
              "runs", "saved", "task-clock", "wall-time", "overall");
  const Program programs[] = {{"5ms", 0.005}, {"50ms", 0.05}, {"0.5s", 0.5}, {"2s", 2.0}};
  const Effect effects[] = {{"aa", -1}, {"3%", 30}, {"x2", 1000}, {"x100", 99000}};
  for (const Program& p : programs) {
    const long n = std::max(1L, static_cast<long>(p.target_s / per_1000 * 1000));
    for (const Effect& e : effects) {
      if (!wanted(rows, p, e, all)) continue;
      const Outcome o = check(args_for(e, n, budget, seed));
      const double answer = answered_after(o, {"task-clock", "wall-time"});
      const json ans = o.report.value("answer", json::object());
      const std::string overall = ans.contains("overall") && ans["overall"].is_string() ? ans["overall"].get<std::string>() : "none";
      std::printf("%-6s %-8ld %-6s %9s %8.1f %6zu %5zu %5zu  %-14s %-14s %s\n", p.name, n, e.name,
                  answer < 0 ? "-" : std::to_string(answer).substr(0, std::to_string(answer).find('.') + 2).c_str(),
                  o.seconds, o.end.value("blocks", std::size_t{0}),
                  o.report.value("context", json::object()).value("runs_done", std::size_t{0}),
                  o.end.value("runs_saved", std::size_t{0}), metric_verdict(o.report, "task-clock").c_str(),
                  metric_verdict(o.report, "wall-time").c_str(), overall.c_str());
      std::fflush(stdout);
    }
  }
  return 0;
}
