#include "job/commands/fidelity_job.h"

#include <unistd.h>

#include <fmt/core.h>

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <iterator>
#include <optional>

#include "events/elf_symbols.h"
#include "job/common/exit_codes.h"
#include "events/event.h"
#include "job/check/check_setup.h"
#include "launch/launcher.h"
#include "observe/observer_kinds.h"
#include "observe/profile.h"
#include "run/signals.h"
#include "util/error.h"
#include "util/temp_dir.h"

namespace obscheck {
namespace {

// Two rates a profile is commonly taken at: perf's suggestion for a low-overhead
// profile (99 Hz, off the timer's multiples) and ten times that.
const std::vector<std::uint64_t> kDefaultFrequencies = {99, 999};
// Any host has it; a hardware event needs a PMU (this tool's own sampler chooses the
// same way, job/check/check_setup.cpp sampling_levels). The reference samples it always: it
// measures CPU time.
constexpr const char* kTimeEvent = "cpu-clock";
// Above this share of the program's samples without a function name, the profile has
// no symbols to compare (analysis/fidelity.h unnamed_share).
constexpr double kMostUnnamed = 0.5;
// How much later each look at the pooled profiles comes than the last (is_look_round).
constexpr double kLookGrowth = 1.5;
constexpr const char* kNoSymbolsHint =
    "profile a build that keeps its symbol table (not stripped: no `strip`, no -s at link time); debug "
    "information is not needed";

std::vector<std::uint64_t> frequencies(const std::vector<std::uint64_t>& given, const std::string& event) {
  const std::vector<std::uint64_t> out =
      sample_frequencies(given.empty() ? kDefaultFrequencies : given, parse_events(event).events.at(0));
  for (std::uint64_t hz : out)
    if (hz == 0)
      throw Error(ErrorKind::usage, "obscheck fidelity: --sample-freq 0 takes no profile",
                  "give the rates to compare, e.g. --sample-freq 99,999,4000");
  return out;
}

// A program file without a function symbol (stripped): nothing to compare, refused
// before anything runs. A file that is no ELF object (a script) is left to the profile.
void require_symbols(const std::string& path) {
  std::optional<ElfSymbols> elf;
  try {
    elf = ElfSymbols::load(path);
  } catch (const Error&) {
    return;
  }
  if (elf->functions().empty())
    throw Error(ErrorKind::target,
                fmt::format("cannot compare: no symbols: {} has no function symbols (stripped), so every sample "
                            "would be [unknown]",
                            path),
                kNoSymbolsHint);
}

void require_named(const FunctionCounts& reference, const std::string& path) {
  const double unnamed = unnamed_share(reference);
  if (unnamed > kMostUnnamed)
    throw Error(ErrorKind::target,
                fmt::format("cannot compare: no symbols: {:.0f}% of {}'s own samples are in code without a "
                            "function name ([unknown])",
                            100 * unnamed, path),
                kNoSymbolsHint);
}

double total_samples(const PooledProfile& p) {
  double n = 0;
  for (const auto& [name, c] : p.samples) n += c;
  return n;
}

void pool(PooledProfile& into, const ProfileCounts& samples) {
  ++into.runs;
  for (const auto& [name, c] : samples) into.samples[name] += c;
}

// The rounds' shared state: the program, the pooled profiles, the private directory.
struct Rounds {
  LaunchSpec target;
  std::string event;
  std::string dir;
  PooledProfile reference;
  std::vector<std::uint64_t> hz;
  std::vector<PooledProfile> doses;
  std::vector<std::optional<DoseFidelity>> settled;  // per dose: decided at a look, not profiled again
};

// One profile of round `round`, slot 0 the reference, slot i the dose i - 1.
void profile_slot(Rounds& r, std::size_t round, std::size_t slot) {
  const auto started = [](pid_t group) { InterruptGuard::set_current_group(group); };
  if (slot == 0) {
    const std::uint64_t hz = kReferenceRates[round % std::size(kReferenceRates)];
    pool(r.reference, perf_record_profile(r.target, hz, kTimeEvent, r.dir, started).samples);
  } else {
    pool(r.doses[slot - 1], perf_record_profile(r.target, r.hz[slot - 1], r.event, r.dir, started).samples);
  }
  InterruptGuard::set_current_group(-1);
}

// One round, the reference and every dose in an order rotated by the round's number
// (no profile always first, after the same neighbour). False when a signal stopped it.
bool run_round(Rounds& r, std::size_t round) {
  const std::size_t slots = r.doses.size() + 1;
  for (std::size_t i = 0; i < slots; ++i) {
    if (InterruptGuard::interrupted()) return false;
    const std::size_t slot = (round + i) % slots;
    if (slot > 0 && r.settled[slot - 1]) continue;
    try {
      profile_slot(r, round, slot);
    } catch (const Error&) {
      InterruptGuard::set_current_group(-1);
      if (InterruptGuard::interrupted()) return false;  // the tools killed by us: not a failure
      throw;
    }
    if (InterruptGuard::interrupted()) return false;
  }
  return true;
}

// The look's table with the doses settled before it as they were, and the doses it
// decides settled from now on. True when every dose is settled.
bool settle(FidelityResult& result, Rounds& r) {
  keep_settled(result, r.settled);
  for (std::size_t i = 0; i < result.doses.size(); ++i)
    if (!r.settled[i] && result.doses[i].agreement != Agreement::undecided) r.settled[i] = result.doses[i];
  return std::all_of(r.settled.begin(), r.settled.end(), [](const auto& s) { return s.has_value(); });
}

// The rounds after which the pooled profiles are looked at: 1, 2, 3, 5, 7, 11, 17, 25,
// ..., each about kLookGrowth times the last. Every look spends part of the level, so a
// look after every round would leave the later looks too little of it to decide.
bool is_look_round(std::size_t n) {
  double x = 1;
  while (static_cast<std::size_t>(x) < n) x *= kLookGrowth;
  return static_cast<std::size_t>(x) == n;
}

// Rounds until every dose is settled, the budget would be passed by one more round at
// the mean pace so far, kMaxFidelityRounds, or a signal; looks at the rounds of
// is_look_round and after the last round done.
void run_rounds(Rounds& rounds, const FidelityOptions& fo, double budget, FidelityOutcome& out,
                const std::function<void(const std::string&)>& progress) {
  FidelityRun& run = out.run;
  std::size_t looks = 0, looked_at = 0;
  const auto look = [&] {
    out.result = assess_fidelity(rounds.reference, rounds.doses, fo, ++looks);
    run.complete = settle(out.result, rounds);
    looked_at = run.rounds;
  };
  const auto start = std::chrono::steady_clock::now();
  for (std::size_t round = 0; round < kMaxFidelityRounds && !run.complete; ++round) {
    if (!run_round(rounds, round)) {
      run.interrupted = true;
      break;
    }
    if (round == 0) require_named(rounds.reference.samples, rounds.target.path);
    run.rounds = round + 1;
    const double spent = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    const bool last = run.rounds == kMaxFidelityRounds || (budget > 0 && spent * (run.rounds + 1) / run.rounds > budget);
    if (last || is_look_round(run.rounds)) look();
    progress(fmt::format("round {}: {:.0f} reference samples, {:.1f} s", run.rounds, total_samples(rounds.reference),
                         spent));
    if (last) break;
  }
  if (run.rounds > looked_at) look();  // stopped between looks: the rounds done are looked at
}

}  // namespace

FidelityOutcome run_fidelity(const FidelityRequest& r, const std::function<void(const std::string&)>& progress) {
  if (r.time_budget_auto)
    throw Error(ErrorKind::usage, "obscheck fidelity: --time-budget auto is the check's; give seconds",
                "e.g. --time-budget 60 (the default), or 0: until every dose is decided");
  FidelityOutcome out;
  FidelityRun& run = out.run;
  // The program as the check would run it: resolved on PATH, refused (exit 3) when it
  // is missing or not executable, before any tool starts.
  Rounds rounds;
  LaunchRequest launch;
  launch.argv = r.target;
  launch.run_as = r.run_as;
  rounds.target = launch_spec_for(launch);
  require_symbols(rounds.target.path);
  run.target = r.target;
  run.target.front() = rounds.target.path;
  run.event = r.event.empty() ? kTimeEvent : r.event;
  run.hz = frequencies(r.frequencies, run.event);
  run.run_as = r.run_as;
  run.as_root = r.run_as.empty() && ::geteuid() == 0;
  run.time_budget = r.time_budget;
  rounds.event = run.event;
  rounds.hz = run.hz;
  rounds.reference.label = "reference";
  for (std::uint64_t hz : run.hz) rounds.doses.push_back({fmt::format("{} Hz", hz), 0, {}});
  rounds.settled.resize(rounds.doses.size());

  // The guard outlives the directory: a signal while it is removed still only stops.
  const InterruptGuard guard;
  const TempDir dir = TempDir::create("obscheck-profile");
  rounds.dir = dir.path();
  FidelityOptions fo;
  fo.tolerance = r.tolerance;
  fo.top = r.top;
  fo.confidence = r.confidence;
  run_rounds(rounds, fo, r.time_budget, out, progress);
  return out;
}

int fidelity_exit_code(const FidelityOutcome& f) {
  if (f.run.interrupted) return interrupted_exit_code();
  return f.result.agreement == Agreement::differs ? static_cast<int>(ExitCode::findings)
                                                  : static_cast<int>(ExitCode::ok);
}

}  // namespace obscheck
