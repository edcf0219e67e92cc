#include "record/journal_notes.h"

#include <fmt/core.h>

#include <array>
#include <cmath>
#include <limits>
#include <string>
#include <utility>

#include "util/error.h"

namespace obscheck {
namespace {

template <class E, std::size_t N>
std::string_view name_of(const std::array<std::pair<E, std::string_view>, N>& names, E e) {
  for (const auto& [value, name] : names)
    if (value == e) return name;
  return "";
}

template <class E, std::size_t N>
std::optional<E> value_of(const std::array<std::pair<E, std::string_view>, N>& names, std::string_view text) {
  for (const auto& [value, name] : names)
    if (name == text) return value;
  return std::nullopt;
}

constexpr std::array<std::pair<JobKind, std::string_view>, 4> kJobNames{
    {{JobKind::check, "check"}, {JobKind::measure, "measure"}, {JobKind::bias, "bias"}, {JobKind::compare, "compare"}}};
constexpr std::array<std::pair<NoteKind, std::string_view>, 5> kNoteNames{{{NoteKind::look, "look"},
                                                                           {NoteKind::retire, "retire"},
                                                                           {NoteKind::extend, "extend"},
                                                                           {NoteKind::finished, "finished"},
                                                                           {NoteKind::interrupted, "interrupted"}}};
constexpr std::array<std::pair<StopReason, std::string_view>, 7> kStopNames{{{StopReason::decided, "decided"},
                                                                             {StopReason::budget, "budget"},
                                                                             {StopReason::futile, "futile"},
                                                                             {StopReason::cap, "cap"},
                                                                             {StopReason::fixed, "fixed"},
                                                                             {StopReason::interrupted, "interrupted"},
                                                                             {StopReason::failed, "failed"}}};

}  // namespace

std::string_view to_string(JobKind k) { return name_of(kJobNames, k); }
std::optional<JobKind> job_kind_from(std::string_view text) { return value_of(kJobNames, text); }

std::optional<JobKind> job_kind_of(const nlohmann::json& manifest) {
  if (!manifest.is_object() || !manifest.contains("command")) return JobKind::check;
  const nlohmann::json& c = manifest.at("command");
  return c.is_string() ? job_kind_from(c.get_ref<const std::string&>()) : std::nullopt;
}

void put_job_kind(nlohmann::json& manifest, JobKind k) {
  if (k != JobKind::check) manifest["command"] = std::string(to_string(k));
}

bool is_sweep(JobKind k) { return k == JobKind::bias || k == JobKind::compare; }

std::string_view to_string(NoteKind k) { return name_of(kNoteNames, k); }
std::optional<NoteKind> note_kind_from(std::string_view text) { return value_of(kNoteNames, text); }

std::optional<NoteKind> note_kind_of(const nlohmann::json& note) {
  if (!note.is_object() || !note.contains("kind") || !note.at("kind").is_string()) return std::nullopt;
  return note_kind_from(note.at("kind").get_ref<const std::string&>());
}

nlohmann::json end_note(bool interrupted) { return to_json(EndNote{interrupted, std::nullopt, std::nullopt}); }

bool ends_finished(const std::vector<nlohmann::json>& notes) {
  return !notes.empty() && note_kind_of(notes.back()) == NoteKind::finished;
}

// ---- typed notes ------------------------------------------------------------------------

namespace {

// The largest count a note may hold: run indexes are 32-bit (record/run_table.h).
constexpr std::uint64_t kMaxNoteCount = std::numeric_limits<std::uint32_t>::max();
// The most seconds a note may record: far beyond any check (ten years), small enough
// that no sum or product of them overflows.
constexpr double kMaxNoteSeconds = 10.0 * 365 * 24 * 3600;

[[noreturn]] void bad_note_field(const std::string& field, const std::string& why) {
  throw Error(ErrorKind::io, fmt::format("field {} {}", field, why),
              "the journal was damaged or edited: restore it from a copy");
}

const nlohmann::json* note_member(const nlohmann::json& obj, const char* key) {
  const auto it = obj.find(key);
  return it == obj.end() ? nullptr : &*it;
}

// A whole number 0..max at obj[key]; `fallback` when absent and not required.
std::size_t note_count(const nlohmann::json& obj, const char* key, const std::string& where, std::uint64_t max,
                     std::optional<std::size_t> fallback) {
  const nlohmann::json* v = note_member(obj, key);
  const std::string name = where + key;
  if (v == nullptr) {
    if (!fallback) bad_note_field(name, "is missing");
    return *fallback;
  }
  // A parsed journal's counts are unsigned; a note built in code may hold a signed one.
  const bool whole = v->is_number_unsigned() || (v->is_number_integer() && v->get<std::int64_t>() >= 0);
  if (!whole) bad_note_field(name, "is not a whole number of 0 or more");
  const auto n = v->get<std::uint64_t>();
  if (n > max) bad_note_field(name, fmt::format("is {}, beyond {}", n, max));
  return static_cast<std::size_t>(n);
}

// A finite number 0..max at obj[key], 0 when absent.
double note_seconds(const nlohmann::json& obj, const char* key, const std::string& where, double max) {
  const nlohmann::json* v = note_member(obj, key);
  if (v == nullptr) return 0;
  if (!v->is_number()) bad_note_field(where + key, "is not a number");
  const double x = v->get<double>();
  if (!(x >= 0 && x <= max)) bad_note_field(where + key, fmt::format("is {:g}, not a number of seconds from 0 to {:g}", x, max));
  return x;
}

std::string note_text(const nlohmann::json& obj, const char* key, const std::string& where, bool required) {
  const nlohmann::json* v = note_member(obj, key);
  if (v == nullptr) {
    if (required) bad_note_field(where + key, "is missing");
    return {};
  }
  if (!v->is_string()) bad_note_field(where + key, "is not a string");
  return v->get<std::string>();
}

void note_object(const nlohmann::json& j, const std::string& what) {
  if (!j.is_object()) bad_note_field(what, "is not an object");
}

// An end note's "sweep", the key's prefix for messages "sweep.".
SweepStretch stretch_of(const nlohmann::json& sw) {
  note_object(sw, "sweep");
  const std::string at = "sweep.";
  SweepStretch s;
  s.looks = note_count(sw, "looks", at, kMaxNoteCount, 0);
  s.seconds_per_block = note_seconds(sw, "seconds_per_block", at, kMaxNoteSeconds);
  s.analysis_seconds = note_seconds(sw, "analysis_seconds", at, kMaxNoteSeconds);
  s.seconds = note_seconds(sw, "seconds", at, kMaxNoteSeconds);
  s.stopped = note_text(sw, "stopped", at, false);
  s.blocks = note_count(sw, "blocks", at, kMaxMeasuredBlocks, 0);
  s.runs_saved = note_count(sw, "runs_saved", at, kMaxNoteCount, 0);
  s.time_budget = note_seconds(sw, "time_budget", at, kMaxTimeBudgetSeconds);
  return s;
}

nlohmann::json note_of_kind(NoteKind k) { return {{"kind", std::string(to_string(k))}}; }

}  // namespace

nlohmann::json to_json(const EndNote& n) {
  nlohmann::json j = note_of_kind(n.interrupted ? NoteKind::interrupted : NoteKind::finished);
  if (n.runs) j["runs"] = *n.runs;
  if (n.sweep) {
    const SweepStretch& s = *n.sweep;
    j["sweep"] = {{"looks", s.looks},
                  {"seconds_per_block", s.seconds_per_block},
                  {"analysis_seconds", s.analysis_seconds},
                  {"seconds", s.seconds},
                  {"stopped", s.stopped},
                  {"blocks", s.blocks},
                  {"runs_saved", s.runs_saved},
                  {"time_budget", s.time_budget}};
  }
  end_note_from(j);  // what is written reads back
  return j;
}

nlohmann::json to_json(const LookNote& n) {
  nlohmann::json decided = nlohmann::json::array();
  for (const auto& [metric, verdict] : n.decided) decided.push_back({{"metric", metric}, {"verdict", verdict}});
  nlohmann::json j = note_of_kind(NoteKind::look);
  j.update({{"look", n.look}, {"blocks", n.blocks}, {"runs", n.runs}, {"seconds", n.seconds}, {"decided", decided}});
  look_note_from(j);
  return j;
}

nlohmann::json to_json(const RetireNote& n) {
  nlohmann::json j = note_of_kind(NoteKind::retire);
  j.update({{"look", n.look}, {"from_block", n.from_block}, {"configs", n.configs}});
  retire_note_from(j);
  return j;
}

nlohmann::json to_json(const ExtendNote& n) {
  nlohmann::json j = note_of_kind(NoteKind::extend);
  j["max_blocks"] = n.max_blocks;
  if (n.from_blocks) j["from_blocks"] = *n.from_blocks;
  extend_note_from(j);
  return j;
}

EndNote end_note_from(const nlohmann::json& note) {
  note_object(note, "note");
  EndNote n;
  n.interrupted = note_kind_of(note) == NoteKind::interrupted;
  if (note_member(note, "runs")) n.runs = note_count(note, "runs", "", kMaxNoteCount, std::nullopt);
  if (const nlohmann::json* sw = note_member(note, "sweep")) n.sweep = stretch_of(*sw);
  return n;
}

LookNote look_note_from(const nlohmann::json& note) {
  note_object(note, "note");
  LookNote n;
  n.look = note_count(note, "look", "", kMaxNoteCount, 0);
  n.blocks = note_count(note, "blocks", "", kMaxMeasuredBlocks, 0);
  n.runs = note_count(note, "runs", "", kMaxNoteCount, 0);
  n.seconds = note_seconds(note, "seconds", "", kMaxNoteSeconds);
  if (const nlohmann::json* d = note_member(note, "decided")) {
    if (!d->is_array()) bad_note_field("decided", "is not a list");
    for (const nlohmann::json& e : *d) {
      note_object(e, "decided[]");
      std::string metric = note_text(e, "metric", "decided[].", true);  // first: the message names the first fault
      n.decided.emplace_back(std::move(metric), note_text(e, "verdict", "decided[].", true));
    }
  }
  return n;
}

RetireNote retire_note_from(const nlohmann::json& note) {
  note_object(note, "note");
  RetireNote n;
  n.look = note_count(note, "look", "", kMaxNoteCount, 0);
  n.from_block = note_count(note, "from_block", "", kMaxNoteCount, std::nullopt);
  const nlohmann::json* c = note_member(note, "configs");
  if (c == nullptr || !c->is_array() || c->empty()) bad_note_field("configs", "is not a list of configurations");
  for (const nlohmann::json& id : *c) {
    if (!id.is_string()) bad_note_field("configs", "holds something other than a configuration's id");
    n.configs.push_back(id.get<std::string>());
  }
  return n;
}

ExtendNote extend_note_from(const nlohmann::json& note) {
  note_object(note, "note");
  ExtendNote n;
  n.max_blocks = note_count(note, "max_blocks", "", kMaxMeasuredBlocks, std::nullopt);
  if (note_member(note, "from_blocks")) n.from_blocks = note_count(note, "from_blocks", "", kMaxMeasuredBlocks, std::nullopt);
  if (n.from_blocks && *n.from_blocks >= n.max_blocks)
    bad_note_field("max_blocks", fmt::format("is {}, which does not raise the cap from {}", n.max_blocks, *n.from_blocks));
  return n;
}

void check_note(const nlohmann::json& note) {
  const std::optional<NoteKind> kind = note_kind_of(note);
  if (!kind) return;
  switch (*kind) {
    case NoteKind::look: look_note_from(note); return;
    case NoteKind::retire: retire_note_from(note); return;
    case NoteKind::extend: extend_note_from(note); return;
    case NoteKind::finished:
    case NoteKind::interrupted: end_note_from(note); return;
  }
}

std::optional<SweepStretch> last_stretch(const std::vector<nlohmann::json>& notes) {
  for (auto it = notes.rbegin(); it != notes.rend(); ++it) {
    const std::optional<NoteKind> kind = note_kind_of(*it);
    if ((kind == NoteKind::finished || kind == NoteKind::interrupted) && it->contains("sweep"))
      return end_note_from(*it).sweep;
  }
  return std::nullopt;
}

std::string_view to_string(StopReason s) { return name_of(kStopNames, s); }
std::optional<StopReason> stop_reason_from(std::string_view text) { return value_of(kStopNames, text); }

}  // namespace obscheck
