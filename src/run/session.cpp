#include "run/session.h"

#include <chrono>
#include <cmath>
#include <exception>
#include <thread>

namespace obscheck {
namespace {

using Clock = std::chrono::steady_clock;

double seconds_since(Clock::time_point t) { return std::chrono::duration<double>(Clock::now() - t).count(); }

// The loop's running account of this invocation.
struct Pace {
  Clock::time_point started = Clock::now();
  std::size_t runs_at_start = 0;
  double analysis_s = 0;  // spent analysing at the looks (their cost, for the benchmark)
  double per_block = 0;   // seconds a measured block, rounded to the microsecond: the
                          // report prints it from the journal's note, and must print the same
  double blocks_run(const Session& s) const {
    return static_cast<double>(s.runs.size() - runs_at_start) / static_cast<double>(s.plan.block_size());
  }
};

// Runs one look's pending trials, with progress; appends them to the session.
SweepResult run_to_look(Session& s, JournalWriter& journal, std::size_t look, const Pace& pace,
                        const SessionProgressFn& progress) {
  const auto pending = remaining_trials(s.plan, s.runs, s.journal_path, end_block_for(s.plan, look));
  const std::size_t before = s.runs.size();
  SweepProgressFn each;
  if (progress)
    each = [&](const SweepProgress& p) {
      const double elapsed = seconds_since(pace.started);
      const double rate = p.done > 0 ? elapsed / static_cast<double>(p.done) : 0;
      progress({before + p.done, look, rate * static_cast<double>(pending.size() - p.done), elapsed,
                s.plan.spec.fixed_blocks ? 0.0 : s.time_budget_s, p.config});
    };
  // run_sweep's last report (no configuration) ends the look's progress line.
  SweepResult r = run_sweep(s.plan, s.spec, pending, journal, each);
  for (auto& rec : r.appended) s.runs.push_back(std::move(rec));
  r.appended.clear();
  return r;
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
  const auto started = Clock::now();
  LookOutcome out = look(s.runs, looks);
  pace.analysis_s += seconds_since(started);
  if (syncer.joinable()) syncer.join();
  if (sync_failure) std::rethrow_exception(sync_failure);
  return out;
}

void write_end_note(JournalWriter& journal, const Session& s, const SessionOutcome& o, const Pace& pace) {
  if (!o.failure.empty()) return;  // a failure has no end note: the sweep did not end
  const nlohmann::json how{{"looks", o.looks},
                           {"seconds_per_block", pace.per_block},
                           {"analysis_seconds", std::round(pace.analysis_s * 1e6) / 1e6},
                           {"seconds", std::round(seconds_since(pace.started) * 1e6) / 1e6}};
  journal.append_note({{"kind", o.interrupted ? "interrupted" : "finished"}, {"runs", s.runs.size()}, {"sweep", how}},
                      JournalWriter::Durable::on_return);
}

}  // namespace

SessionOutcome run_session(Session& s, JournalWriter& journal, const LookFn& look, const SessionProgressFn& progress) {
  const auto schedule = plan_looks(s.plan, s.first_look);
  SessionOutcome out;
  out.runs_planned = runs_for(s.plan, schedule.back());
  // --time-budget: the sweep stops at the first look after the budget is spent, and a
  // look is shortened so as not to run far past it (at this invocation's pace). A plan
  // with a fixed number of blocks (--runs N) asked for exactly those: no budget applies.
  const double budget = s.plan.spec.fixed_blocks ? 0.0 : s.time_budget_s;
  Pace pace;
  pace.runs_at_start = s.runs.size();
  std::size_t cap = 0;  // the budget's cap on the next look, in measured blocks (0: none)
  for (std::size_t at : schedule) {
    if (cap > 0 && at > cap) at = cap;
    ++out.looks;
    const SweepResult r = run_to_look(s, journal, at, pace, progress);
    out.interrupted = r.interrupted;
    out.failure = r.failure;
    std::size_t budget_blocks = 0;  // the measured blocks the rest of the budget allows
    const double spent = seconds_since(pace.started), blocks_run = pace.blocks_run(s);
    if (budget > 0) {
      out.budget_spent = spent >= budget;
      if (!out.budget_spent && blocks_run > 0) {
        budget_blocks = std::max<std::size_t>(1, static_cast<std::size_t>((budget - spent) / (spent / blocks_run)));
        cap = at + budget_blocks;
      }
    }
    if (blocks_run >= 1) pace.per_block = std::round(spent / blocks_run * 1e6) / 1e6;
    const bool ended = out.interrupted || !out.failure.empty() || at == schedule.back() || out.budget_spent;
    const LookOutcome seen = look_and_sync(s, journal, look, out.looks, ended, pace);
    nlohmann::json decided = nlohmann::json::array();
    for (const auto& [metric, verdict] : seen.decided) decided.push_back({{"metric", metric}, {"verdict", verdict}});
    journal.append_note({{"kind", "look"},
                         {"look", out.looks},
                         {"blocks", at},
                         {"runs", s.runs.size()},
                         {"seconds", std::round(seconds_since(pace.started) * 1e3) / 1e3},
                         {"decided", decided}},
                        JournalWriter::Durable::at_next_sync);
    // Stop as soon as more runs cannot change an answer: every verdict decided, or the
    // undecided ones need more blocks than the rest of the time budget allows.
    const bool futile = budget_blocks > 0 && seen.could_decide_by && !seen.could_decide_by(at + budget_blocks);
    if (ended || seen.decisive || futile) break;
  }
  out.seconds_per_block = pace.per_block;
  write_end_note(journal, s, out, pace);
  return out;
}

}  // namespace obscheck
