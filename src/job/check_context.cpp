#include "job/check_context.h"

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

// A journal's field, or the default when it is absent or of another type (a damaged
// journal's report says what it can).
std::string text_field(const nlohmann::json& j, const char* key) {
  return j.contains(key) && j.at(key).is_string() ? j.at(key).get<std::string>() : std::string();
}
double number_field(const nlohmann::json& j, const char* key) {
  return j.contains(key) && j.at(key).is_number() ? j.at(key).get<double>() : 0.0;
}

// An end note's reason to stop, in words; a word this version does not know, as written.
std::string stop_text(const nlohmann::json& sweep) {
  const std::string why = text_field(sweep, "stopped");
  const double budget = number_field(sweep, "time_budget");
  const std::optional<StopReason> stop = stop_reason_from(why);
  if (!stop) return why;
  switch (*stop) {
    case StopReason::decided: return "decided";
    case StopReason::budget: return fmt::format("stopped by the time budget ({:g} s)", budget);
    case StopReason::futile: return fmt::format("stopped: the rest of the time budget ({:g} s) could not decide", budget);
    case StopReason::cap: return "stopped at --max-runs";
    case StopReason::fixed: return "its --runs blocks done";
    case StopReason::interrupted:
    case StopReason::failed: break;
  }
  return why;
}

std::string stretches_line(const std::vector<nlohmann::json>& notes) {
  std::string line;
  std::size_t before = 0;
  for (const nlohmann::json& n : notes) {
    const std::optional<NoteKind> kind = note_kind_of(n);
    if (kind != NoteKind::finished && kind != NoteKind::interrupted) continue;
    if (!n.contains("sweep") || !n.at("sweep").is_object() || !n.at("sweep").contains("stopped")) continue;
    const nlohmann::json& sw = n.at("sweep");
    const auto blocks = static_cast<std::size_t>(std::max(0.0, number_field(sw, "blocks")));
    const std::string added = line.empty() ? fmt::format("{} blocks", blocks)
                                           : fmt::format("then +{} blocks", blocks >= before ? blocks - before : 0);
    line += (line.empty() ? "" : "; ") + added + ", " + stop_text(sw);
    before = blocks;
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

std::vector<std::string> observations(const Plan& plan, const std::vector<RunRecord>& runs) {
  struct Range {
    double lo = 1e300, hi = -1e300, sum = 0;
    std::size_t n = 0;
    void add(double v) { lo = std::min(lo, v); hi = std::max(hi, v); sum += v; ++n; }
    int digits = 0;
    std::string text() const {
      return lo == hi ? fmt::format("{:.{}f}", lo, digits)
                      : fmt::format("{:.{}f}..{:.{}f} (mean {:.{}f})", lo, digits, hi, digits, sum / n, digits);
    }
  };
  std::map<std::size_t, std::map<std::string, Range>> per_level;
  for (const RunRecord& r : runs) {
    if (r.warmup) continue;
    const std::size_t level = plan.configs.at(r.config).level_index;
    if (r.extra.contains("probe_hits"))
      for (const auto& [name, hits] : r.extra.at("probe_hits").items()) per_level[level][name + " hits"].add(hits.get<double>());
    if (r.extra.contains("profiler_ns")) {
      Range& own = per_level[level]["profiler command's own time (ms)"];
      own.digits = 1;
      own.add(r.extra.at("profiler_ns").get<double>() / 1e6);
    }
    if (r.extra.contains("sampling")) {
      per_level[level]["samples taken"].add(r.extra.at("sampling").value("samples", 0.0));
      per_level[level]["samples lost"].add(r.extra.at("sampling").value("lost", 0.0));
    }
  }
  std::vector<std::string> out;
  for (const auto& [level, items] : per_level)
    for (const auto& [what, range] : items)
      out.push_back(fmt::format("{}: {} per run = {}", plan.spec.levels.at(level).label, what, range.text()));
  return out;
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

CheckContext manifest_context(const JournalData& d, const Plan& plan) {
  const nlohmann::json& m = d.manifest;
  const CheckRequest request = request_from_manifest(m);
  CheckContext ctx;
  ctx.argv = request.launch.argv;
  ctx.mode = std::string(to_string(request.mode));
  ctx.seed = plan.seed();
  ctx.journal_path = d.path;
  ctx.host = m.value("host", nlohmann::json::object());
  ctx.doctor = doctor_of(ctx.host);
  for (const auto& e : m.value("env", nlohmann::json::array())) ctx.env_bytes += e.value("bytes", std::size_t{0});
  ctx.runs_planned = runs_for(plan, plan_looks(plan).back());
  ctx.runs_done = d.runs.size();
  // The last word of the sweep decides: a resumed sweep that finished is complete.
  const std::optional<NoteKind> last = d.notes.empty() ? std::nullopt : note_kind_of(d.notes.back());
  if (!d.notes.empty() && d.notes.back().contains("sweep") && d.notes.back().at("sweep").is_object())
    ctx.seconds_per_block = d.notes.back().at("sweep").value("seconds_per_block", 0.0);
  ctx.complete = last == NoteKind::finished;
  std::size_t saved = 0;
  for (const nlohmann::json& n : d.notes)
    if (n.is_object() && n.contains("sweep") && n.at("sweep").is_object() && n.at("sweep").contains("runs_saved") &&
        n.at("sweep").at("runs_saved").is_number_unsigned())
      saved = n.at("sweep").at("runs_saved").get<std::size_t>();
  ctx.sweep = sweep_lines(d.notes, plan, saved);
  for (const auto& w : request.dropped) ctx.warnings.push_back("dropped (--allow-missing): " + w);
  ctx.backend = choose_backend(request)->notes(request.counters.items());
  if (last == NoteKind::interrupted) ctx.warnings.push_back("interrupted: continue with obscheck --resume " + d.path);
  return ctx;
}

bool journal_counts_exactly(const nlohmann::json& m) {
  // An unreadable or malformed first line is not an exact check: the reader refuses it
  // later and names why.
  if (m.is_null()) return false;
  try {
    return choose_backend(request_from_manifest(m))->exact();
  } catch (const Error&) {
    return false;
  }
}

std::size_t looks_of(const JournalData& d) {
  if (d.notes.empty() || !d.notes.back().contains("sweep") || !d.notes.back().at("sweep").is_object()) return 1;
  const auto n = d.notes.back().at("sweep").value("looks", std::size_t{1});
  return n > 0 ? n : 1;
}

}  // namespace obscheck
