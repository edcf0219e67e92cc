// Calibration support: replaying checks on a recorded journal's real noise.
//
// A replayed check takes a window of consecutive measured blocks of a fixture (the
// blocks a live check completes in its default budget at the recording's pace,
// budget_window; one of the fixture's disjoint slots, rotated within it: draw_window) and
// relabels the configurations within each block by a seeded random permutation, so
// every comparison is a true null by construction while the runs keep the host's real
// run-to-run and block-to-block structure. An effect can then be injected where its
// size is known, and the check is analysed at each look of its schedule, stopping when
// the findings are decisive, as the live check does.
//
// Relabelling. Configurations count different readings (a counter's solo level has
// only that counter), so a run cannot simply change its configuration. Per block a
// permutation s of the configurations is drawn: configuration c takes the run recorded
// for s(c), with its driver metrics (wall time, rusage, exit, output digest) and its
// time slot in the block. Each counter reading r that c must carry is taken from s(c)'s
// run when that run has r, and otherwise from one of the block's runs that have r and
// whose r no configuration took yet, matched at random. For every reading the values
// are so dealt to the configurations that count it by a uniformly random bijection, as
// the driver metrics are, and the readings of one run stay together wherever the
// reading sets allow.
//
// Injected effects multiply the time metrics (task-clock's value and raw count, wall
// time, user time rounded to the microsecond of a struct timeval) of one configuration
// by 1 + effect: in every block (constant), or from the window's middle block on
// (step, for the drift test). A load step slows chosen configurations in a range of
// blocks and writes the host's load (other processes' CPU time, run queue) into every
// run's host load (RunRecord::host) as the runner records it, busy in those blocks and quiet
// elsewhere, with the quantisation of the kernel's tick accounting.
#pragma once

#include <cstddef>
#include <cstdint>
#include <map>
#include <optional>
#include <random>
#include <string>
#include <vector>

#include "analysis/findings.h"
#include "analysis/host_load.h"
#include "calibration/fixture.h"

namespace obscheck::calibration {

enum class Shape { constant, step };

struct LoadStep {
  std::size_t first = 0, last = 0;  // busy blocks [first, last) of the replayed check
  double slowdown = 0.10;           // the slowed configurations' time metrics x (1 + slowdown) there
  std::vector<std::size_t> slowed;  // configurations slowed in busy blocks; empty: the injected one
  double busy_cpus = 0.9;           // other processes' CPUs in busy blocks ...
  double quiet_cpus = 0.02;         // ... and elsewhere
};

struct Injection {
  double effect = 0;                  // ratio − 1: +0.02 is +2%, 99 is x100
  Shape shape = Shape::constant;      // step: from block window / 2 of the check on
  std::optional<std::size_t> config;  // unset: injected_config(plan)
  std::optional<LoadStep> load;
};

struct ReplaySpec {
  std::string name;                  // the case's name: part of every replay's stream (draw_window)
  std::size_t window = 200;          // B: measured blocks at most (the check's budget)
  std::vector<std::size_t> looks;    // measured blocks at each look; empty: default_looks(window)
  bool stop_when_decisive = true;    // stop at the first look whose findings are decisive
  Injection injection;
  double margin = 0.01, alpha = 0.05;
  std::size_t threads = 0;           // the analysis's threads (AnalysisOptions::threads)
};

// The live check's look schedule for a budget of `window` blocks (plan/ looks:
// 10, 13, 17, 22, ... and `window` itself).
std::vector<std::size_t> default_looks(std::size_t window);
// The live check's schedule for `plan` over a window: the first look where its Holm
// family can decide anything (analysis/check.h first_look), then plan/'s growth.
std::vector<std::size_t> default_looks(const Plan& plan, std::size_t window);

// The plan of a live check with the fixture's configurations and a budget of `window`
// blocks: the recorded plan with --runs dropped and --max-runs = window, so the
// analysis sees the plan a sequential check of that budget would have. Throws
// Error(internal) if the configurations came out different.
Plan replay_plan(const Fixture& fx, std::size_t window);

// The configuration an effect goes into unless one is named: the most observed level
// of the first layout (the last non-A/A configuration of that layout in plan order).
std::size_t injected_config(const Plan& plan, const Injection& in);

// Which recorded run each configuration of a replayed block takes.
struct ReplayBlock {
  std::size_t source_block = 0;      // into Fixture::blocks
  std::vector<std::size_t> run_of;   // run_of[c]: the recorded configuration whose run c takes
  // reading_of[name][c]: the recorded configuration whose reading `name` c takes
  std::map<std::string, std::vector<std::size_t>> reading_of;
};
struct ReplayWindow {
  std::size_t slot_first = 0;   // the slot's first block, into Fixture::blocks
  std::size_t first_block = 0;  // the replay's first block: slot_first + its rotation
  std::size_t slot = 0;         // which of the series' disjoint windows (0 .. slots - 1)
  std::size_t slots = 1;        // disjoint windows of this size the fixture holds (0: the earlier scheme, none)
  std::size_t window = 0;       // the window's blocks; `blocks` holds the first ones relabelled so far
  std::size_t rotation = 0;     // first_block - slot_first
  std::vector<ReplayBlock> blocks;
  std::uint64_t seed = 0;       // the replay's own seed (host-load quantisation, analysis)
  std::mt19937_64 stream;       // the replay's stream where the next block's relabelling draws
};

// The generator of one replay, or of one series' tiling: std::mt19937_64 seeded by a
// std::seed_seq over the seed, the fixture's name, the case's name, the replay's number
// and the purpose (a replay's relabellings, or the series' tiling), each word of it
// (names by FNV-1a, 64-bit values as two 32-bit words). No two (seed, fixture, case,
// number) share a stream: seeds 1 and 2 have no replay in common, unlike seed + number.
std::mt19937_64 replay_stream(std::uint64_t seed, const std::string& fixture, const std::string& case_name,
                              std::uint64_t number, bool tiling);

// Replay `number` of the series (seed, case_name) on `fx`: a window of `window`
// consecutive blocks and its relabellings. The windows are disjoint: the fixture holds
// m = floor(blocks / window) slots, laid end to end from an offset drawn once per series
// (from its tiling stream, uniform in [0, blocks - m * window]); replay k takes slot
// k mod m, so no replay's blocks leave its slot, and the replays of two slots share no
// block. The j-th replay of a slot (j = k / m) is rotated within it when `rotate`: it
// starts frac(j * 0.618...) of the way in and wraps from the slot's last block to its
// first, so replays that share a slot (with m = 1, all of them) start at nearly evenly
// spread blocks, and a check that stops early (x2 at 6 blocks) reads blocks no other
// replay of the series starts on. Relabellings come from the replay's own stream.
// Throws Error(usage) when the fixture has fewer than `window` blocks or window is 0.
ReplayWindow draw_window(const Fixture& fx, std::size_t window, std::uint64_t seed, const std::string& case_name,
                         std::size_t number, bool rotate = true);
// The same window with no block relabelled yet; relabel_through then relabels its blocks
// in order up to `blocks` (at most the window), drawing from the replay's stream exactly
// as draw_window does, so a check that stops after 6 blocks of 700 relabels 6 and its
// relabellings are draw_window's first 6. draw_window is open_window and
// relabel_through(window).
ReplayWindow open_window(const Fixture& fx, std::size_t window, std::uint64_t seed, const std::string& case_name,
                         std::size_t number, bool rotate = true);
void relabel_through(const Fixture& fx, ReplayWindow& w, std::size_t blocks);

// The live check's default time budget (record/request.h CheckRequest::time_budget).
double live_budget_seconds();

// The window a replay of `fx` takes: the measured blocks a live check at the
// recording's own pace completes within `budget_s`, capped by what the fixture holds.
// The pace is the journal's end note's seconds per block (run/session.cpp: the whole
// invocation's seconds, warm-up and looks included, over its blocks) when it has one;
// a journal written before the note recorded it gives the mean of its blocks' summed
// run wall times instead, a lower bound on the pace (the driver's own time between runs
// is left out), so its window errs long, and the cap decides it.
struct BudgetWindow {
  std::size_t blocks = 0;         // the window: min(within_budget, the fixture's blocks)
  std::size_t within_budget = 0;  // floor(budget_s / seconds_per_block) less the warm-up blocks, at least 1
  double seconds_per_block = 0;
  bool from_note = false;         // the pace is the journal's own (else its runs' wall times)
  bool capped() const { return blocks < within_budget; }
};
BudgetWindow budget_window(const Fixture& fx, double budget_s);

// The replayed check's runs of its first `blocks` blocks (measured blocks numbered
// from the plan's warm-up blocks on, as a live check numbers them), in run order,
// with the injection applied. Throws Error(internal) when fewer of them are relabelled.
std::vector<RunRecord> replay_runs(const Fixture& fx, const ReplayWindow& w, const Injection& in, std::size_t blocks);

// The same runs a block at a time: ReplayRuns::next(k) gives block k's (k = 0, 1, ...
// in turn, each relabelled), drawing the host's load from one stream as replay_runs
// does, so blocks 0 .. n - 1 together are replay_runs(fx, w, in, n). A replayed check
// extends its runs (and their table) by the blocks between two looks with it.
class ReplayRuns {
 public:
  ReplayRuns(const Fixture& fx, const Injection& in, std::uint64_t seed);
  std::vector<RunRecord> next(const ReplayWindow& w, std::size_t k);

 private:
  const Fixture& fx_;
  const Injection& in_;
  std::size_t target_;
  std::mt19937_64 host_rng_;
  std::size_t next_ = 0;
};

struct ReplayedCheck {
  std::size_t first_block = 0;  // the window's start in the fixture
  std::size_t looks_taken = 0;
  std::size_t blocks = 0;       // measured blocks at the last look taken
  bool decisive = false;        // the last look's findings were decisive
  Findings first;               // at the first look
  Findings last;                // at the last look taken
  std::vector<std::size_t> look_blocks;  // measured blocks at each look taken
  std::vector<Findings> at_look;         // the findings of each look taken
  std::vector<RunRecord> runs;  // the runs the last look analysed
};

// One replayed check: each look of the schedule in turn through analyse_look
// (adapter.h), stopping when decisive if the spec says so, and then also retiring
// after each look the configurations no unsettled comparison needs (analysis/
// settled.h), whose later runs are left out, as the live check does.
ReplayedCheck replay_check(const Fixture& fx, const ReplaySpec& spec, std::uint64_t seed, std::size_t number);

// What a series of replayed checks of one case decided; each rate is a fraction of
// the replays. "Time metrics" are task-clock and wall-time; the "injected level" is
// the level of the injected configuration.
struct CaseRates {
  std::size_t replays = 0;
  double any_perturbed = 0;         // some verdict "perturbed" at some look (every one is false at effect 0)
  double time_not_perturbed = 0;    // every task-clock and wall-time verdict "not perturbed"
  double detected_task_clock = 0;   // injected level: task-clock "perturbed", effect of the injected sign
  double detected_wall = 0;         // the same for wall-time
  double first_look_decided = 0;    // injected level: both time metrics "perturbed" at the first look
  double drift_injected_level = 0;  // the drift test flagged a time metric at the injected level
  double drift_any = 0;             // the drift test flagged some time-metric verdict
  double load_found = 0;            // (load step) busy_phase_found for the injected busy blocks
  double mean_looks = 0, mean_blocks = 0;
  // Effect cases: the replays in which both time metrics were detected at some look,
  // and the mean blocks at the first such look (NaN when none was).
  double decided_some_look = 0, mean_decided_blocks = 0;
  // Effect cases: both time metrics detected at a look of at most 4 / 6 measured blocks.
  double decided_by_4 = 0, decided_by_6 = 0;
  // Some verdict of the primary family (the counters' readings and wall time) "perturbed":
  // the overall answer's false alarms (any_perturbed also counts the rusage family's).
  double primary_perturbed = 0;
};

CaseRates run_case(const Fixture& fx, const ReplaySpec& spec, std::size_t replays, std::uint64_t seed);

// The host-load pass found one busy phase, contiguous, whose ends lie within
// `tolerance` blocks of `first` and `last` (measured block numbers): a tick of
// /proc/stat is 10 ms, so the block where a load starts is known to a block or two.
bool busy_phase_found(const HostLoad& h, std::size_t first, std::size_t last, std::size_t tolerance = 2);

// The cases of the calibration's acceptance rates (README.md), shared by the calibration test and benchmark:
//   null, +0.5%, -0.5%, +2%, -2%, +10%, -10%, x2, x100   constant effects, default looks,
//                                                     stopping when decisive;
//   null-full, step+10%   no effect / a +10% step at the window's middle, analysed at
//                         one look of the whole window (a check that stopped early
//                         would never see the step): the drift test's two rates;
//   load-step             no effect, the host busy (0.9 CPUs) in blocks
//                         [window/4, window/2), the injected configuration 10% slower
//                         there; the whole window at one look.
struct NamedCase {
  std::string name;
  ReplaySpec spec;
};
std::vector<NamedCase> standard_cases(std::size_t window);

// The replays per case of a series.
inline constexpr std::size_t kDefaultReplays = 100;
// The load-step case's own window (its busy phase is its second quarter).
inline constexpr std::size_t kLoadStepWindow = 200;
inline constexpr std::uint64_t kCalibrationSeed = 14;

}  // namespace obscheck::calibration
