#include "job/check/check_job.h"

#include <fmt/core.h>

#include <chrono>

#include "analysis/deterministic.h"
#include "analysis/settled.h"
#include "job/check/check_context.h"
#include "job/check/forecast.h"
#include "host/host_info.h"
#include "run/backend.h"
#include "util/state_dir.h"
#include "util/error.h"

namespace obscheck {

// Each look analyses every run so far: exact counts when the backend counts exactly,
// else the paired sequential analysis over a table the look appends to. The check
// stops when the stopping family is decided (--decide-all: every metric), and stops
// running the configurations that family no longer needs (analysis/settled.h).
LookFn analysis_at_looks(const CheckRequest& r, bool exact, bool decide_all, const Plan& plan, RunTable& table,
                         Findings& findings) {
  return [&r, exact, decide_all, &plan, &table, &findings](const std::vector<RunRecord>& runs, std::size_t looks) {
    if (exact) {
      findings = analyse_deterministic(plan, runs, r.margin);
    } else {
      while (table.size() < runs.size()) table.add(runs[table.size()]);
      AnalysisOptions o{r.margin, 0.05, looks, plan.seed()};
      o.fixed_design = plan.spec.fixed_blocks.has_value();  // --runs N: one look
      o.allow_multiplex = r.allow_multiplex;
      findings = analyse_check(plan, table, o);
    }
    LookOutcome out{decide_all ? findings.all_decided : findings.decisive,
                    decide_all ? findings.all_answered : findings.answered,
                    [&findings, decide_all](std::size_t b) { return more_blocks_could_decide(findings, b, decide_all); }, {}, {}};
    if (!exact) out.settled_configs = settled_configs(plan, findings, decide_all);
    // Every configuration settled for the stopping family: its answer is in, whatever
    // the other metrics still say.
    if (!exact && !plan.spec.fixed_blocks && out.settled_configs.size() == plan.configs.size()) out.decisive = true;
    for (std::size_t m = 0; m < findings.metrics.size() && m < findings.metric_verdicts.size(); ++m) {
      bool compared = false, decided = true;
      for (const LevelVerdict& v : findings.verdicts)
        if (v.metric == m) {
          compared = true;
          decided = decided && v.verdict != Verdict::inconclusive;
        }
      if (compared && decided)
        out.decided.emplace_back(findings.metrics[m].name, std::string(verdict_key(findings.metric_verdicts[m])));
    }
    return out;
  };
}

namespace {

// What the report says of a check that stopped before every verdict was decided: how
// to continue it.
void say_how_to_continue(const Session& s, const SessionOutcome& out, const Findings& findings, CheckContext& ctx) {
  for (std::string& w : continue_warnings(out.stopped, out.time_budget_s, s.plan.spec.max_blocks, s.journal_path, findings))
    ctx.warnings.push_back(std::move(w));
}

}  // namespace

namespace {

void refuse_unsized_auto_budget(const PreparedCheck& p) {
  if (p.spec.backend->exact())
    throw Error(ErrorKind::usage, "--time-budget auto sizes the budget by the noise of the warm-up: --backend sim has none",
                "leave --time-budget out: a simulated check is decided at its first look");
  if (p.request.warmup == 0)
    throw Error(ErrorKind::usage, "--time-budget auto is sized after the warm-up: -w 0 leaves none to size it by",
                "give a warm-up (-w 1 or more) or a budget in seconds");
}

}  // namespace

StartedCheck start_check(PreparedCheck p, const std::string& journal_path, const std::string& plan_digest,
                         bool time_budget_auto) {
  if (time_budget_auto) refuse_unsized_auto_budget(p);
  Session s;
  s.spec = p.spec;
  s.plan = make_plan(p.plan);
  nlohmann::json host = read_host();
  const nlohmann::json manifest = check_manifest(p, s.plan, host, plan_digest);
  JournalWriter journal = journal_path.empty()
                              ? JournalWriter::create_default(journal_directory(), std::chrono::system_clock::now(), manifest)
                              : JournalWriter::create(journal_path, manifest);
  s.journal_path = journal.path();
  return StartedCheck{std::move(p), std::move(s), std::move(journal), std::move(host)};
}

namespace {

// "2/3 decided: page-faults not-perturbed, wall-time perturbed": the answer's metrics
// (the named counters and wall time) at the last look, verdicts by their short keys;
// "" before it.
std::string verdicts_so_far(const Findings& f) {
  std::size_t asked = 0;
  std::string decided;
  std::size_t n_decided = 0;
  for (std::size_t m = 0; m < f.metrics.size() && m < f.metric_verdicts.size(); ++m) {
    if (!f.metrics[m].primary) continue;
    ++asked;
    if (f.metric_verdicts[m] == Verdict::inconclusive) continue;
    ++n_decided;
    decided += fmt::format("{}{} {}", decided.empty() ? "" : ", ", f.metrics[m].name, verdict_key(f.metric_verdicts[m]));
  }
  if (asked == 0) return {};
  return fmt::format("{}/{} decided{}{}", n_decided, asked, decided.empty() ? "" : ": ", decided);
}

}  // namespace

CheckRun run_check_session(const PreparedCheck& p, Session& s, JournalWriter& journal, const nlohmann::json& host,
                           const CheckRunAsk& ask, const SessionProgressFn& progress) {
  s.time_budget_s = p.request.time_budget;
  const bool exact = p.spec.backend->exact();
  s.first_look = exact ? kFirstLook : first_look(s.plan);
  auto clock = std::make_shared<ForecastClock>();
  clock->clock = s.clock;
  clock->started = s.clock ? s.clock() : std::chrono::steady_clock::now();
  clock->budget_s = s.plan.spec.fixed_blocks ? 0.0 : s.time_budget_s;
  if (!exact) s.after_warmup = warmup_forecast(ask.time_budget_auto, s.plan, p.request.margin, clock);
  RunTable table;
  CheckRun run;
  // The progress line shows the verdicts of the last look (run.findings, updated at each).
  SessionProgressFn shown;
  if (progress)
    shown = [&progress, &run](const SessionProgress& at) {
      SessionProgress with = at;
      with.verdicts = verdicts_so_far(run.findings);
      progress(with);
    };
  LookFn look = analysis_at_looks(p.request, exact, ask.decide_all, s.plan, table, run.findings);
  if (!exact) look = with_first_look_forecast(std::move(look), s.plan, run.findings, clock);
  run.outcome = run_session(s, journal, look, shown);
  run.ctx = session_context(s, run.outcome, host, p.warnings, p.backend_notes);
  say_how_to_continue(s, run.outcome, run.findings, run.ctx);
  return run;
}

}  // namespace obscheck
