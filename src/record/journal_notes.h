// record/: the journal's own words for what ran and how it ended, spelled here alone:
// the command a journal records (the manifest's "command"; a check's manifest has none),
// the kinds of its note lines, and why a check's sweep stopped (the end note's
// "sweep"."stopped"). Writers use to_string; readers use the *_from functions, which
// answer nullopt for a word this version does not know, so a reader decides what an
// unknown word means (a damaged journal's report says what it can).
//
// The plan's own notes, "retire" and "extend", are written and applied by plan/
// (plan/plan.h retire_note, extend_note), which lies below record/; NoteKind names them
// so readers here compare no string.
#pragma once

#include <optional>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

namespace obscheck {

// The command a journal records, one per kind of job.
enum class JobKind { check, measure, bias, compare };
std::string_view to_string(JobKind k);
std::optional<JobKind> job_kind_from(std::string_view text);
// The kind a manifest (a journal's line 1) records: its "command", or check when it has
// none (a check's manifest); nullopt for a command this version does not know.
std::optional<JobKind> job_kind_of(const nlohmann::json& manifest);
// bias and compare: a sweep over measurement contexts.
bool is_sweep(JobKind k);

// The kinds of a journal's note lines ({"type":"note","kind":...}).
enum class NoteKind { look, retire, extend, finished, interrupted };
std::string_view to_string(NoteKind k);
std::optional<NoteKind> note_kind_from(std::string_view text);
// The kind of a note line, nullopt when it has no known "kind".
std::optional<NoteKind> note_kind_of(const nlohmann::json& note);
// The end note of an invocation that ran to its end or was interrupted:
// {"kind":"finished"} or {"kind":"interrupted"}.
nlohmann::json end_note(bool interrupted);
// True when the journal's job ended: its last note says "finished".
bool ends_finished(const std::vector<nlohmann::json>& notes);

// Why a check's sweep stopped: every verdict decided; its time budget spent; the rest
// of the budget could not decide; its cap (--max-runs) reached; its fixed blocks
// (--runs N) done; Ctrl-C; a failed run.
enum class StopReason { decided, budget, futile, cap, fixed, interrupted, failed };
std::string_view to_string(StopReason s);
std::optional<StopReason> stop_reason_from(std::string_view text);

}  // namespace obscheck
