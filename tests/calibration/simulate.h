// Calibration support: simulated checks whose truth is known, run through the check's
// own analysis at every look of the live schedule, with the live check's retirements.
//
// A simulated check is a plan of a profiler command's doses (level 0, the target not
// wrapped, and one or six doses) measuring task-clock and page-faults, plus the
// driver's metrics. Every run's values come from a noise family:
//   gaussian       log-normal run-to-run noise (sd 1%)
//   bimodal        each run fast or 2.5 times slower (a third slow), the fast mode ±1%:
//                  runs of 1.2 or 3.0 ms
//   heavy-tail     1% times a Student-t with 2 degrees of freedom (no finite variance)
//   position       the gaussian noise, and the first run of every block 50% slower
//   intermittent   the gaussian noise on the times; page-faults 145 in every run, and
//                  64 more in one run of four of every dose (its mean +11%)
// and every dose multiplies the time metrics by 1 + effect (the same in every run).
// A replay draws every value from its own engine, seeded from (seed, family, replay)
// through std::seed_seq: no two replays, seeds or families share a stream.
//
// Each look analyses the runs so far (analysis/check.h analyse_check), stops when the
// primary family is decided, and otherwise retires the configurations that no
// unsettled comparison needs (analysis/settled.h), as the live check does: their later
// blocks are not run, and what was decided about them stays as it was.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

namespace obscheck::calibration {

enum class Noise { gaussian, bimodal, heavy_tail, position, intermittent };
std::string to_string(Noise n);
// Every family, in the order of the docs' table.
const std::vector<Noise>& all_noises();

struct SimSpec {
  Noise noise = Noise::gaussian;
  std::size_t doses = 1;     // dose levels beside level 0 (1 or 6 in the table)
  double effect = 0;         // every dose's time metrics x (1 + effect); spread by `effect_step` per dose
  double effect_step = 0;    // dose i (0-based) gets effect + i * effect_step
  std::size_t window = 200;  // the budget: measured blocks at most
  bool fixed = false;        // --runs window: one look at `window` blocks, no retirement
  double margin = 0.01, alpha = 0.05;
};

// What one simulated check said. "Primary" is the family that stops a check:
// task-clock, page-faults and wall time.
struct SimOutcome {
  bool perturbed_time_any_look = false;   // task-clock or wall-time "perturbed" at some look
  bool perturbed_faults_any_look = false; // page-faults "perturbed" at some look
  bool faults_not_perturbed_any_look = false;  // page-faults "not perturbed" at some look
  bool faults_not_perturbed = false;      // ... at the last look: what the check reports
  bool time_not_perturbed = false;        // at the last look every task-clock and wall-time verdict "not perturbed"
  bool time_detected = false;             // at the last look every dose's task-clock and wall-time "perturbed", right sign
  std::size_t blocks = 0;                 // measured blocks at the last look
  std::size_t looks = 0;
};

SimOutcome simulate_check(const SimSpec& spec, std::uint64_t seed, std::size_t replay);

struct SimRates {
  std::size_t replays = 0;
  double false_time = 0;        // task-clock or wall-time "perturbed" at some look (false when |effect| <= margin)
  double faults_perturbed = 0;  // page-faults "perturbed" at some look
  double faults_not_perturbed = 0;  // page-faults "not perturbed" at the last look
  double faults_not_perturbed_any_look = 0;  // ... at some look (a look the check did not stop at)
  double time_null = 0;         // decisive nulls: every time verdict "not perturbed" at the end
  double detected = 0;          // every dose's time metrics "perturbed" at the end
  double mean_blocks = 0;
};

SimRates simulate_rates(const SimSpec& spec, std::size_t replays, std::uint64_t seed);

}  // namespace obscheck::calibration
