#include "record/journal_notes.h"

#include <array>
#include <string>
#include <utility>

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

bool is_sweep(JobKind k) { return k == JobKind::bias || k == JobKind::compare; }

std::string_view to_string(NoteKind k) { return name_of(kNoteNames, k); }
std::optional<NoteKind> note_kind_from(std::string_view text) { return value_of(kNoteNames, text); }

std::optional<NoteKind> note_kind_of(const nlohmann::json& note) {
  if (!note.is_object() || !note.contains("kind") || !note.at("kind").is_string()) return std::nullopt;
  return note_kind_from(note.at("kind").get_ref<const std::string&>());
}

nlohmann::json end_note(bool interrupted) {
  return {{"kind", std::string(to_string(interrupted ? NoteKind::interrupted : NoteKind::finished))}};
}

bool ends_finished(const std::vector<nlohmann::json>& notes) {
  return !notes.empty() && note_kind_of(notes.back()) == NoteKind::finished;
}

std::string_view to_string(StopReason s) { return name_of(kStopNames, s); }
std::optional<StopReason> stop_reason_from(std::string_view text) { return value_of(kStopNames, text); }

}  // namespace obscheck
