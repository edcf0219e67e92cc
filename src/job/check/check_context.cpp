#include "job/check/check_context.h"

#include <fmt/core.h>
#include <fmt/ranges.h>

#include <map>
#include <optional>

#include "host/doctor.h"
#include "host/host_info.h"
#include "record/journal.h"
#include "record/journal_notes.h"
#include "run/backend.h"

namespace obscheck {
namespace {

std::vector<nlohmann::json> doctor_of(const nlohmann::json& host_json) {
  HostInfo host;
  from_json(host_json, host);
  std::vector<nlohmann::json> out;
  for (const Finding& f : doctor_checks(host)) out.push_back(f);
  return out;
}

// An end note's reason to stop, in words; a word this version does not know, as written.
std::string stop_text(const SweepStretch& sweep) {
  const std::optional<StopReason> stop = stop_reason_from(sweep.stopped);
  if (!stop) return sweep.stopped;
  switch (*stop) {
    case StopReason::decided: return "decided";
    case StopReason::budget: return fmt::format("stopped by the time budget ({:g} s)", sweep.time_budget);
    case StopReason::futile:
      return fmt::format("stopped: the rest of the time budget ({:g} s) could not decide", sweep.time_budget);
    case StopReason::cap: return "stopped at --max-runs";
    case StopReason::fixed: return "its --runs blocks done";
    case StopReason::interrupted:
    case StopReason::failed: break;
  }
  return sweep.stopped;
}

// What each invocation added: its blocks and why it stopped (its end note), and each
// cap a resume raised (its extend note), in the journal's order. The notes were checked
// when the journal was read (record/journal_notes.h).
std::string stretches_line(const std::vector<nlohmann::json>& notes) {
  std::string line;
  std::size_t before = 0;
  for (const nlohmann::json& n : notes) {
    const std::optional<NoteKind> kind = note_kind_of(n);
    std::string part;
    if (kind == NoteKind::extend) {
      const ExtendNote e = extend_note_from(n);
      part = e.from_blocks ? fmt::format("a resume raised the cap from {} to {} blocks", *e.from_blocks, e.max_blocks)
                           : fmt::format("a resume raised the cap to {} blocks", e.max_blocks);
    } else if (kind == NoteKind::finished || kind == NoteKind::interrupted) {
      const std::optional<SweepStretch> sw = end_note_from(n).sweep;
      if (!sw || sw->stopped.empty()) continue;
      part = (line.empty() ? fmt::format("{} blocks", sw->blocks)
                           : fmt::format("then +{} blocks", sw->blocks >= before ? sw->blocks - before : 0)) +
             ", " + stop_text(*sw);
      before = sw->blocks;
    } else {
      continue;
    }
    line += (line.empty() ? "" : "; ") + part;
  }
  return line;
}

}  // namespace

std::vector<std::string> sweep_lines(const std::vector<nlohmann::json>& notes, const Plan& plan, std::size_t runs_saved) {
  std::vector<std::string> out;
  if (std::string line = stretches_line(notes); !line.empty()) out.push_back(std::move(line));
  std::map<std::size_t, std::vector<std::string>> by_block;
  for (const Retirement& r : plan.retired) by_block[r.from_block].push_back(plan.configs.at(r.config).id);
  std::vector<std::string> parts;
  for (const auto& [block, ids] : by_block) parts.push_back(fmt::format("{} from block {}", fmt::join(ids, ", "), block));
  if (!parts.empty())
    out.push_back(fmt::format("stopped running once settled: {} ({} runs saved)", fmt::join(parts, "; "), runs_saved));
  return out;
}

namespace {

// One quantity's runs at one level.
struct Range {
  Observation o;
  double sum = 0;
  void add(double v) {
    o.min = o.n ? std::min(o.min, v) : v;
    o.max = o.n ? std::max(o.max, v) : v;
    sum += v;
    o.mean = sum / static_cast<double>(++o.n);
  }
};

// A profiler cost's value as a double, when the run has it.
template <class T>
std::optional<double> amount(const std::optional<T>& v) {
  if (!v) return std::nullopt;
  return static_cast<double>(*v);
}

// Whether no profiler runs at the level (a profiler command's level "0"): a journal
// written before the profiler's cost was left out there still holds obscheck-exec's.
bool bare_level(const Level& level) {
  return wrap_word(level) == std::optional<std::string>("0");
}

struct Quantity {
  std::optional<double> (*of)(const ProfilerCost&);  // the run's value
  const char* name;  // Observation::key
  const char* what;
  const char* unit;
  double scale;
  int digits;
  bool profiler;  // the profiler's own: never at a bare level
};
constexpr Quantity kQuantities[] = {
    {[](const ProfilerCost& c) { return amount(c.profiler_ns); }, "profiler_wall_ms", "profiler command's own time",
     "ms", 1e-6, 1, true},
    {[](const ProfilerCost& c) { return amount(c.profiler_cpu_ns); }, "profiler_cpu_ms",
     "profiler command's own CPU time", "ms", 1e-6, 1, true},
    {[](const ProfilerCost& c) { return amount(c.profiler_samples); }, "profiler_samples",
     "samples the profiler reported", "count", 1, 0, true},
    {[](const ProfilerCost& c) { return amount(c.profiler_rate_hz); }, "profiler_rate_hz",
     "profiler's achieved sampling rate (its samples over the target's task-clock)", "Hz", 1, 0, true},
    {[](const ProfilerCost& c) { return amount(c.max_sample_rate); }, "max_sample_rate",
     "kernel.perf_event_max_sample_rate after the run", "Hz", 1, 0, false},
};

}  // namespace

std::vector<Observation> observations(const Plan& plan, const std::vector<RunRecord>& runs) {
  std::map<std::size_t, std::map<std::string, Range>> per_level;
  const auto at = [&](std::size_t level, const std::string& key, const std::string& what, const char* unit,
                      int digits) -> Range& {
    Range& r = per_level[level][key];
    r.o.key = key;
    r.o.what = what;
    r.o.unit = unit;
    r.o.digits = digits;
    return r;
  };
  for (const RunRecord& r : runs) {
    if (r.warmup) continue;
    const std::size_t level = plan.configs.at(r.config).level_index;
    const bool bare = bare_level(plan.spec.levels.at(level));
    for (const auto& [name, hits] : r.probe_hits)
      at(level, "probe_hits:" + name, name + " hits", "count", 0).add(static_cast<double>(hits));
    for (const Quantity& q : kQuantities)
      if (r.profiler && !(q.profiler && bare))
        if (const auto v = q.of(*r.profiler)) at(level, q.name, q.what, q.unit, q.digits).add(*v * q.scale);
    if (const std::optional<SamplingRecord>& s = r.sampling) {
      at(level, "samples_taken", "samples taken", "count", 0).add(static_cast<double>(s->samples));
      at(level, "samples_lost", "samples lost", "count", 0).add(static_cast<double>(s->lost));
      // Journals before the rate was recorded have neither field.
      if (s->achieved_hz) {
        at(level, "samples_achieved_hz", "achieved rate (Hz of the target's run time)", "Hz", 0).add(*s->achieved_hz);
        at(level, "samples_throttled", "throttlings", "count", 0).add(static_cast<double>(s->throttles.value_or(0)));
      }
    }
  }
  std::vector<Observation> out;
  for (const auto& [level, items] : per_level)
    for (const auto& [key, range] : items) {
      Observation o = range.o;
      o.level = plan.spec.levels.at(level).label;
      o.dose = plan.spec.levels.at(level).dose;
      out.push_back(std::move(o));
    }
  return out;
}

std::string command_wall_warning(const Plan& plan, const std::vector<RunRecord>& runs) {
  if (!plan.spec.doses_wrap_a_command()) return {};
  std::size_t command = 0;
  for (const RunRecord& r : runs) {
    if (!r.profiler || r.warmup) continue;
    const bool older = r.profiler->profiler_ns && !r.profiler->command_wall_ns;
    if (older || r.profiler->wall_of_command) ++command;
  }
  if (command == 0) return {};
  return fmt::format("wall-time is the whole profiler command's, not the target's, in {} run(s): the journal was "
                     "written before obscheck took the target's own, or the target's exit could not be watched (no "
                     "pidfd_open before Linux 5.3)",
                     command);
}

CheckContext session_context(const Session& s, const SessionOutcome& out, const nlohmann::json& host,
                             std::vector<std::string> warnings, std::vector<std::string> backend_notes) {
  CheckContext ctx;
  ctx.argv = s.spec.base.argv;
  ctx.mode = std::string(to_string(s.spec.mode));
  ctx.seed = s.plan.seed();
  ctx.journal_path = s.journal_path;
  ctx.host = host;
  ctx.doctor = doctor_of(host);
  ctx.env_bytes = s.spec.base.env.size_bytes();
  ctx.runs_done = s.runs.size();
  ctx.runs_planned = out.runs_planned;
  ctx.complete = !out.interrupted && out.failure.empty();
  ctx.warnings = std::move(warnings);
  if (auto w = left_behind_warning(s.runs); !w.empty()) ctx.warnings.push_back(w);
  if (auto w = command_wall_warning(s.plan, s.runs); !w.empty()) ctx.warnings.push_back(w);
  ctx.observations = observations(s.plan, s.runs);
  ctx.backend = std::move(backend_notes);
  if (out.interrupted) ctx.warnings.push_back("interrupted: continue with obscheck --resume " + s.journal_path);
  ctx.seconds_per_block = out.seconds_per_block;
  if (!out.failure.empty()) ctx.warnings.push_back(out.failure);
  std::vector<nlohmann::json> notes = s.journal_notes;
  if (!out.end_note.is_null()) notes.push_back(out.end_note);
  ctx.sweep = sweep_lines(notes, s.plan, out.runs_saved);
  return ctx;
}

CheckContext manifest_context(const JournalData& d, const Plan& plan, const Backend& backend) {
  const nlohmann::json& m = d.manifest;
  const CheckRequest request = request_from_manifest(m);
  CheckContext ctx;
  ctx.argv = request.launch.argv;
  ctx.mode = std::string(to_string(request.mode));
  ctx.seed = plan.seed();
  ctx.journal_path = d.path;
  ctx.host = manifest_host(m);
  ctx.doctor = doctor_of(ctx.host);
  ctx.env_bytes = manifest_env_bytes(m);
  ctx.runs_planned = runs_for(plan, plan_looks(plan).back());
  ctx.runs_done = d.runs.size();
  // The last word of the sweep decides: a resumed sweep that finished is complete.
  const std::optional<NoteKind> last = d.notes.empty() ? std::nullopt : note_kind_of(d.notes.back());
  const std::optional<SweepStretch> stretch = last_stretch(d.notes);
  const bool ends_with_stretch = last && (*last == NoteKind::finished || *last == NoteKind::interrupted) &&
                                 end_note_from(d.notes.back()).sweep.has_value();
  if (ends_with_stretch) ctx.seconds_per_block = stretch->seconds_per_block;
  ctx.complete = last == NoteKind::finished;
  ctx.sweep = sweep_lines(d.notes, plan, stretch ? stretch->runs_saved : 0);
  // The set-up's own warnings as the live check printed them; an older journal's
  // dropped counters from its request.
  if (const auto setup = manifest_warnings(m)) ctx.warnings = *setup;
  else
    for (const auto& w : request.dropped) ctx.warnings.push_back("dropped (--allow-missing): " + w);
  ctx.backend = backend.notes(request.counters.items());
  if (last == NoteKind::interrupted) ctx.warnings.push_back("interrupted: continue with obscheck --resume " + d.path);
  return ctx;
}

std::vector<std::string> continue_warnings(StopReason stopped, double time_budget_s, std::size_t max_blocks,
                                           const std::string& journal, const Findings& f) {
  std::vector<std::string> out;
  if (stopped == StopReason::cap && !f.answered)
    out.push_back(fmt::format("stopped at the cap of {} measured blocks (--max-runs) before every verdict was decided; "
                              "continue with obscheck --resume {} (as many blocks again; --max-runs N for a cap of N)",
                              max_blocks, journal));
  if (continuable_stop(stopped) && !f.decisive)
    out.push_back(fmt::format("stopped {} before every verdict was decided; continue with obscheck --resume {} "
                              "(more blocks; --time-budget SECONDS to change the budget)",
                              fmt::format("by the time budget ({:g} s)", time_budget_s), journal));
  return out;
}

std::vector<std::string> journal_continue_warnings(const std::vector<nlohmann::json>& notes, const Plan& plan,
                                                   const std::string& journal, const Findings& f) {
  for (auto it = notes.rbegin(); it != notes.rend(); ++it) {
    const std::optional<NoteKind> kind = note_kind_of(*it);
    if (kind != NoteKind::finished && kind != NoteKind::interrupted) continue;
    const std::optional<SweepStretch> how = end_note_from(*it).sweep;
    if (!how) return {};
    const auto stopped = stop_reason_from(how->stopped);
    if (!stopped) return {};
    return continue_warnings(*stopped, how->time_budget, plan.spec.max_blocks, journal, f);
  }
  return {};
}


std::size_t looks_of(const JournalData& d) {
  const std::optional<NoteKind> last = d.notes.empty() ? std::nullopt : note_kind_of(d.notes.back());
  if (last != NoteKind::finished && last != NoteKind::interrupted) return 1;
  const std::optional<SweepStretch> sw = end_note_from(d.notes.back()).sweep;
  return sw && sw->looks > 0 ? sw->looks : 1;
}

}  // namespace obscheck
