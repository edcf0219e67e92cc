#include "job/check/check_resume.h"

#include <fmt/core.h>

#include <algorithm>
#include <vector>

#include "job/check/check_context.h"
#include "job/journal/journal_job.h"
#include "record/journal_notes.h"
#include "record/plan_notes.h"
#include "record/request.h"
#include "run/backend.h"
#include "util/error.h"

namespace obscheck {
namespace {

// Why the journal's last invocation stopped (nullopt when its end note does not say).
std::optional<StopReason> last_stop(const std::vector<nlohmann::json>& notes) {
  const std::optional<SweepStretch> sw = last_stretch(notes);
  return sw ? stop_reason_from(sw->stopped) : std::nullopt;
}

// Whether a resume already raised the cap after the last invocation that ended: one
// killed (kill -9, a full disk) before its end note leaves the extend note last. Its
// stop at the cap was answered then; answering it again doubled the cap again.
bool extended_since_last_end(const std::vector<nlohmann::json>& notes) {
  for (auto it = notes.rbegin(); it != notes.rend(); ++it) {
    const std::optional<NoteKind> kind = note_kind_of(*it);
    if (kind == NoteKind::extend) return true;
    if (kind == NoteKind::finished || kind == NoteKind::interrupted) return false;
  }
  return false;
}

// The budget a resume keeps: the one given, else the one the journal's last stretch
// kept (--time-budget auto's choice too), else the one the check was started with.
double resumed_budget(const CheckResumeAsk& ask, const std::vector<nlohmann::json>& notes, double recorded) {
  if (ask.time_budget) return *ask.time_budget;
  const std::optional<SweepStretch> sw = last_stretch(notes);
  return sw ? sw->time_budget : recorded;
}

// The cap (measured blocks) a resume runs to: the --max-runs given with it, which may
// only raise the journal's; else, for a check stopped at its cap and not raised since,
// as many blocks again (at most kMaxMeasuredBlocks); else the journal's. Throws Error(usage) for a --max-runs below the journal's cap.
std::size_t resumed_cap(const CheckResumeAsk& ask, const Plan& plan, std::optional<StopReason> stopped,
                        bool extended) {
  const std::size_t cap = plan.spec.max_blocks;
  if (ask.max_runs) {
    const auto asked = static_cast<std::size_t>(*ask.max_runs);
    if (plan.spec.fixed_blocks)
      throw Error(ErrorKind::usage, fmt::format("--max-runs with --resume: the journal's check runs a fixed {} blocks (--runs)",
                                                *plan.spec.fixed_blocks),
                  "leave --max-runs out");
    if (asked < cap)
      throw Error(ErrorKind::usage, fmt::format("--max-runs {} is below the journal's cap of {} blocks: a resume can only raise it", asked, cap),
                  fmt::format("give --max-runs above {}, or leave it out", cap));
    return asked;
  }
  if (stopped == StopReason::cap && !plan.spec.fixed_blocks && !extended) return std::min(cap + cap, kMaxMeasuredBlocks);
  return cap;
}

// The journal's request resolved here, in a session over the journal's plan and runs;
// refuses a changed binary, environment or doses.
void prepare_resumed(ResumedCheck& c, const Plan& recorded, double time_budget) {
  const nlohmann::json& m = c.journal.data.manifest;
  CheckRequest request = request_from_manifest(m);
  request.time_budget = time_budget;
  SettledRequest settled = settled_as_recorded(std::move(request));
  settled.backend->require_here();
  c.prepared = prepare_check(std::move(settled));
  Session& s = c.session;
  s.plan = recorded;
  s.spec = c.prepared.spec;
  s.runs = c.journal.data.runs;
  s.journal_path = c.journal.writer.path();
  s.journal_notes = c.journal.data.notes;
  refuse_changed_binary(m, s.spec.base.path, "check");
  refuse_changed_environment(m, s.spec.base.env, "check");
  if (c.prepared.plan.levels != s.plan.spec.levels)
    throw Error(ErrorKind::usage, "the observer's doses differ from the journal's (a rebuilt variant, a changed symbol?)",
                "start a new check");
  c.host = manifest_host(m);
}

}  // namespace

ResumedCheck resume_check(const std::string& path, const CheckResumeAsk& ask) {
  if (ask.time_budget_auto)  // before the journal is opened: it is left as it was
    throw Error(ErrorKind::usage,
                "--time-budget auto is sized once, after the warm-up of a new check: a resume has no warm-up to size it by",
                "leave it out to keep the budget the journal's check chose, or give one in seconds");
  ResumedCheck c{JournalWriter::open_for_resume(path)};
  const JournalData& d = c.journal.data;
  const std::optional<StopReason> stopped = last_stop(d.notes);
  const Plan recorded = plan_from_journal(d);
  const std::size_t cap = resumed_cap(ask, recorded, stopped, extended_since_last_end(d.notes));
  const bool raised = cap > recorded.spec.max_blocks;
  const bool continued = ends_finished(d.notes) && ((stopped && continuable_stop(*stopped)) || (stopped == StopReason::cap && raised));
  c.complete = ends_finished(d.notes) && !continued;
  if (c.complete) return c;
  prepare_resumed(c, recorded, resumed_budget(ask, d.notes, request_from_manifest(d.manifest).time_budget));
  Session& s = c.session;
  if (raised) {
    // Recorded before any run past the old cap, so every reader knows those runs; and
    // only once applied to a copy of the plan: a cap the plan refuses (beyond 2^32 runs)
    // is never written, or every later reader would refuse the journal.
    const ExtendNote extend{cap, recorded.spec.max_blocks};
    Plan extended = s.plan;
    apply_extend_note(extended, extend);
    const nlohmann::json note = to_json(extend);
    c.journal.writer.append_note(note);
    s.plan = std::move(extended);
    s.journal_notes.push_back(note);
  }
  if (continued)
    c.notice = fmt::format("continuing {} after {} measured blocks ({}), up to {} blocks, with a time budget of {:g} s",
                           s.journal_path, measured_blocks_run(s.runs),
                           stopped == StopReason::cap ? fmt::format("stopped at its cap of {} blocks", recorded.spec.max_blocks)
                                                      : std::string("stopped by its time budget"),
                           cap, c.prepared.request.time_budget);
  // The set-up's warnings (dropped counters, counting notes) as the check began with
  // them: its report after a resume carries them as `obscheck report` does.
  c.prepared.warnings = manifest_warnings(d.manifest).value_or(std::vector<std::string>{});
  if (d.torn_tail) c.prepared.warnings.push_back(kTornTailNotice);
  return c;
}

}  // namespace obscheck
