#include "run/session.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <exception>
#include <optional>
#include <set>
#include <thread>

#include "record/plan_notes.h"

namespace obscheck {
namespace {

using Clock = std::chrono::steady_clock;

// The loop's running account of this invocation.
struct Pace {
  explicit Pace(SessionClock clock) : now(clock ? std::move(clock) : SessionClock(&Clock::now)) {}
  SessionClock now;
  Clock::time_point started = now();
  double seconds_since(Clock::time_point t) const { return std::chrono::duration<double>(now() - t).count(); }
  double elapsed() const { return seconds_since(started); }
  double analysis_s = 0;  // spent analysing at the looks (their cost, for the benchmark)
  double per_block = 0;   // seconds a block, rounded to the microsecond: the report
                          // prints it from the journal's note, and must print the same
  std::set<std::size_t> blocks;  // the blocks this invocation ran a run of
  // Whole blocks' pace: a retired configuration makes later blocks shorter, so this
  // errs long, and a budget cut by it errs short.
  void update() {
    if (!blocks.empty()) per_block = std::round(elapsed() / static_cast<double>(blocks.size()) * 1e6) / 1e6;
  }
};

// Runs `pending` with progress towards look `look`; appends them to the session.
SweepResult run_pending(Session& s, JournalWriter& journal, const std::vector<Trial>& pending, std::size_t look,
                        Pace& pace, const SessionProgressFn& progress) {
  const std::size_t before = s.runs.size();
  SweepProgressFn each;
  if (progress)
    each = [&](const SweepProgress& p) {
      const double elapsed = pace.elapsed();
      const double rate = p.done > 0 ? elapsed / static_cast<double>(p.done) : 0;
      progress({before + p.done, look, rate * static_cast<double>(pending.size() - p.done), elapsed,
                s.plan.spec.fixed_blocks ? 0.0 : s.time_budget_s, p.config});
    };
  // run_trials' last report (no configuration) ends the look's progress line.
  SweepResult r = run_trials(s.plan, s.spec, pending, journal, each, s.measurer);
  for (auto& rec : r.appended) {
    pace.blocks.insert(rec.block);
    s.runs.push_back(std::move(rec));
  }
  r.appended.clear();
  pace.update();
  return r;
}

std::vector<Trial> pending_to(const Session& s, std::size_t end_block) {
  return remaining_trials(s.plan, s.runs, s.journal_path, end_block);
}

// The look's analysis, while the journal goes to the disk when the session has ended:
// an fdatasync mostly waits for the device, and neither needs the other.
LookOutcome look_and_sync(const Session& s, JournalWriter& journal, const LookFn& look, std::size_t looks, bool ended,
                          Pace& pace) {
  std::exception_ptr sync_failure;
  std::jthread syncer;
  if (ended) syncer = std::jthread([&] {
    try {
      journal.sync();
    } catch (...) {
      sync_failure = std::current_exception();
    }
  });
  const auto started = pace.now();
  LookOutcome out = look(s.runs, looks);
  pace.analysis_s += pace.seconds_since(started);
  if (syncer.joinable()) syncer.join();
  if (sync_failure) std::rethrow_exception(sync_failure);
  return out;
}

void write_look_note(JournalWriter& journal, const Session& s, const LookOutcome& seen, std::size_t look,
                     std::size_t at, const Pace& pace) {
  LookNote note{look, at, s.runs.size(), std::round(pace.elapsed() * 1e3) / 1e3, {}};
  for (const auto& [metric, verdict] : seen.decided) note.decided.emplace_back(metric, verdict);
  journal.append_note(to_json(note), JournalWriter::Durable::at_next_sync);
}

// The look's settled configurations stop running from the next block on; the journal
// says which, so a resumed or re-read check leaves out the same trials.
void retire_settled(Session& s, JournalWriter& journal, const LookOutcome& seen, std::size_t at, std::size_t look) {
  if (s.plan.spec.fixed_blocks) return;  // one look: nothing comes after it
  const std::size_t from = end_block_for(s.plan, at);
  std::vector<std::size_t> fresh;
  for (std::size_t c : seen.settled_configs)
    if (c < s.plan.configs.size() && runs_in(s.plan, c, from)) fresh.push_back(c);
  if (fresh.empty()) return;
  for (std::size_t c : fresh) s.plan.retired.push_back({c, from});
  journal.append_note(to_json(retire_note(s.plan, fresh, from, look)), JournalWriter::Durable::at_next_sync);
}

void write_end_note(JournalWriter& journal, const Session& s, SessionOutcome& o, const Pace& pace) {
  if (!o.failure.empty()) return;  // a failure has no end note: the sweep did not end
  const SweepStretch how{.looks = o.looks,
                         .seconds_per_block = pace.per_block,
                         .analysis_seconds = std::round(pace.analysis_s * 1e6) / 1e6,
                         .seconds = std::round(pace.elapsed() * 1e6) / 1e6,
                         .stopped = std::string(to_string(o.stopped)),
                         .blocks = o.measured_blocks,
                         .runs_saved = o.runs_saved,
                         .time_budget = o.time_budget_s};
  o.end_note = to_json(EndNote{o.interrupted, s.runs.size(), how});
  journal.append_note(o.end_note, JournalWriter::Durable::on_return);
}

// The measured blocks, from the first, whose every trial is in the session's runs: where
// a resumed check's journal got to.
std::size_t complete_blocks(const Session& s, std::size_t max_blocks) {
  std::set<std::size_t> done;
  for (const RunRecord& r : s.runs) done.insert(r.index);
  std::size_t m = 0;
  for (std::size_t b = s.plan.spec.warmup_blocks; m < max_blocks; ++b) {
    if (!runs_block(s.plan, b)) continue;
    for (const Trial& t : trials(s.plan, b, b + 1))
      if (!done.count(t.index)) return m;
    ++m;
  }
  return m;
}


// The measured blocks the rest of the budget allows at this invocation's pace (at least
// one: a look always runs a block).
std::size_t budget_blocks(double budget, const Pace& pace, std::size_t cap) {
  const double left = budget - pace.elapsed();
  if (pace.per_block <= 0 || left <= pace.per_block) return 1;
  // Bounded before the conversion: a double at or beyond 2^64 converts to nothing
  // defined (it was 0 blocks a look, and a check that never ended).
  const double blocks = left / pace.per_block;
  return blocks >= static_cast<double>(cap) ? std::max<std::size_t>(cap, 1) : static_cast<std::size_t>(blocks);
}

// Runs the warm-up blocks this invocation still owes, then asks after_warmup for the
// budget. False when the warm-up was interrupted or failed.
bool run_warmup(Session& s, JournalWriter& journal, Pace& pace, const SessionProgressFn& progress,
                SessionOutcome& out, double& budget) {
  const auto pending = pending_to(s, s.plan.spec.warmup_blocks);
  if (pending.empty()) return true;
  const SweepResult r = run_pending(s, journal, pending, 0, pace, progress);
  out.interrupted = r.interrupted;
  out.failure = r.failure;
  if (r.interrupted || !r.failure.empty()) return false;
  if (s.after_warmup) {
    const double blocks = static_cast<double>(std::max<std::size_t>(1, s.plan.spec.warmup_blocks));
    const double chosen = s.after_warmup({pace.elapsed() / blocks, &s.runs, budget});
    if (!s.plan.spec.fixed_blocks) budget = chosen;
  }
  return true;
}

// "decided" only when every answer is in: verdicts left inconclusive because the cap
// is too near to decide them end the check at its cap, which a resume may raise.
StopReason decided_or_cap(const Session& s, const LookOutcome& seen) {
  if (seen.answered) return StopReason::decided;
  return s.plan.spec.fixed_blocks ? StopReason::fixed : StopReason::cap;
}

// Why the sweep stops after this look; nullopt: it goes on.
std::optional<StopReason> stop_reason(const Session& s, const SessionOutcome& o, const LookOutcome& seen, bool futile,
                                      bool last) {
  if (o.interrupted) return StopReason::interrupted;
  if (!o.failure.empty()) return StopReason::failed;
  if (seen.decisive) return decided_or_cap(s, seen);
  if (o.budget_spent) return StopReason::budget;
  if (futile) return StopReason::futile;
  if (last) return s.plan.spec.fixed_blocks ? StopReason::fixed : StopReason::cap;
  return std::nullopt;
}

}  // namespace

bool continuable_stop(StopReason stopped) {
  return stopped == StopReason::budget || stopped == StopReason::futile;
}

std::size_t measured_blocks_run(const std::vector<RunRecord>& runs) {
  std::set<std::size_t> blocks;
  for (const RunRecord& r : runs)
    if (!r.warmup) blocks.insert(r.block);
  return blocks.size();
}

SessionOutcome run_session(Session& s, JournalWriter& journal, const LookFn& look, const SessionProgressFn& progress) {
  const auto schedule = plan_looks(s.plan, s.first_look);
  SessionOutcome out;
  out.runs_planned = runs_for(s.plan, schedule.back());
  // --time-budget: the sweep stops at the first look after the budget is spent, and a
  // look is shortened so as not to run past it (at this invocation's pace). A plan
  // with a fixed number of blocks (--runs N) asked for exactly those: no budget applies.
  double budget = s.plan.spec.fixed_blocks ? 0.0 : s.time_budget_s;
  Pace pace(s.clock);
  // Measured blocks whose trials have all run: a resumed check does not look again
  // where its journal already did.
  std::size_t reached = complete_blocks(s, schedule.back());
  bool warm = run_warmup(s, journal, pace, progress, out, budget);
  out.time_budget_s = budget;
  for (std::size_t i = 0; warm && i < schedule.size(); ++i) {
    std::size_t at = schedule[i];
    if (at <= reached && i + 1 < schedule.size()) continue;
    // Within the budget: as many blocks as the rest of it allows at this pace; one
    // block first when the pace is not known yet (a resumed check).
    if (budget > 0 && at > reached)
      at = std::min(at, reached + (pace.blocks.empty() ? 1 : budget_blocks(budget, pace, s.plan.spec.max_blocks)));
    ++out.looks;
    const SweepResult r = run_pending(s, journal, pending_to(s, end_block_for(s.plan, at)), at, pace, progress);
    reached = at;
    out.interrupted = r.interrupted;
    out.failure = r.failure;
    out.budget_spent = budget > 0 && pace.elapsed() >= budget;
    const bool at_end = at == schedule.back();
    const bool ended = out.interrupted || !out.failure.empty() || at_end || out.budget_spent;
    const LookOutcome seen = look_and_sync(s, journal, look, out.looks, ended, pace);
    write_look_note(journal, s, seen, out.looks, at, pace);
    // Stop as soon as more runs cannot change an answer: every verdict decided, or the
    // undecided ones need more blocks than the rest of the time budget allows.
    const bool futile = budget > 0 && !out.budget_spent && seen.could_decide_by &&
                        !seen.could_decide_by(at + budget_blocks(budget, pace, s.plan.spec.max_blocks));
    if (const auto stop = stop_reason(s, out, seen, futile, at_end)) {
      out.stopped = *stop;
      break;
    }
    retire_settled(s, journal, seen, at, out.looks);
    // Every configuration settled: nothing left to run could change an answer.
    if (configs_in_block(s.plan, end_block_for(s.plan, at)) == 0) {
      out.stopped = decided_or_cap(s, seen);
      break;
    }
    if (at < schedule[i]) --i;  // a look the budget cut short: the scheduled one is still ahead
  }
  if (!warm) out.stopped = out.interrupted ? StopReason::interrupted : StopReason::failed;
  out.measured_blocks = measured_blocks_run(s.runs);
  out.runs_saved = runs_retired(s.plan, end_block_for(s.plan, reached));
  out.seconds_per_block = pace.per_block;
  write_end_note(journal, s, out, pace);
  return out;
}

}  // namespace obscheck
