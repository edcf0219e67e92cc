// record/: the journal's own words for what ran and how it ended, spelled here alone:
// the command a journal records (the manifest's "command"; a check's manifest has none),
// the kinds of its note lines, and why a check's sweep stopped (the end note's
// "sweep"."stopped"). Writers use to_string; readers use the *_from functions, which
// answer nullopt for a word this version does not know, so a reader decides what an
// unknown word means (a damaged journal's report says what it can).
//
// Each kind of note is a typed struct with one encoder (to_json) and one decoder
// (*_note_from), which checks every field's type and range and throws Error(io) naming
// the field: a note is checked before it is appended (the encoder's input is the
// writer's own) and when it is read (record/journal_reader.cpp decodes every note of a
// kind it knows, so a forged or damaged note is an error naming the file and line,
// exit 6, never a JSON type error later). The plan's own notes, "retire" and
// "extend", are made from and applied to a plan, typed, by record/plan_notes.h.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
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
// Records the kind in a manifest: its "command", written for every kind but check.
void put_job_kind(nlohmann::json& manifest, JobKind k);
// bias and compare: a sweep over measurement contexts.
bool is_sweep(JobKind k);

// The longest time budget taken, from the command line or a journal: a year. Any
// longer is a typo or a forgery, and 1e308 s once became, as a count of blocks beyond
// 2^64, zero blocks a look: a check that never ended.
inline constexpr double kMaxTimeBudgetSeconds = 365.0 * 24 * 3600;
// The most measured blocks a check's cap may reach: on the command line (--runs,
// --max-runs), in a journal's plan, and after a resume raised it (an "extend" note).
// A forged cap of 477 million blocks once kept `report` busy for a minute.
inline constexpr std::size_t kMaxMeasuredBlocks = 1000000;

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

// How one invocation's sweep went: its end note's "sweep" (run/session.cpp). `stopped`
// is a StopReason's word, or a later version's word kept as written.
struct SweepStretch {
  std::size_t looks = 0;
  double seconds_per_block = 0;  // finite, >= 0
  double analysis_seconds = 0;
  double seconds = 0;
  std::string stopped;
  std::size_t blocks = 0;        // measured blocks when it stopped, <= kMaxMeasuredBlocks
  std::size_t runs_saved = 0;
  double time_budget = 0;        // 0..kMaxTimeBudgetSeconds
  bool operator==(const SweepStretch&) const = default;
};

// {"kind":"finished"|"interrupted","runs":N,"sweep":{...}}: a check's has all three,
// a measure's or a sweep's only the kind.
struct EndNote {
  bool interrupted = false;
  std::optional<std::size_t> runs;
  std::optional<SweepStretch> sweep;
  bool operator==(const EndNote&) const = default;
};

// {"kind":"look","look":N,"blocks":B,"runs":R,"seconds":S,"decided":[{"metric","verdict"}]}
struct LookNote {
  std::size_t look = 0;
  std::size_t blocks = 0;
  std::size_t runs = 0;
  double seconds = 0;
  std::vector<std::pair<std::string, std::string>> decided;  // (metric, verdict)
  bool operator==(const LookNote&) const = default;
};

// {"kind":"retire","look":N,"from_block":B,"configs":["counters=.../held",...]}
struct RetireNote {
  std::size_t look = 0;
  std::size_t from_block = 0;
  std::vector<std::string> configs;  // configuration ids, at least one
  bool operator==(const RetireNote&) const = default;
};

// {"kind":"extend","max_blocks":M,"from_blocks":C}: a resume raised the cap from C
// (absent in journals written before it was recorded) to M <= kMaxMeasuredBlocks.
struct ExtendNote {
  std::size_t max_blocks = 0;
  std::optional<std::size_t> from_blocks;
  bool operator==(const ExtendNote&) const = default;
};

nlohmann::json to_json(const EndNote& n);
nlohmann::json to_json(const LookNote& n);
nlohmann::json to_json(const RetireNote& n);
nlohmann::json to_json(const ExtendNote& n);
// Decoders: Error(io) "field NAME ..." for a missing required field, a wrong type or a
// value out of range; a field a later version added is ignored.
EndNote end_note_from(const nlohmann::json& note);
LookNote look_note_from(const nlohmann::json& note);
RetireNote retire_note_from(const nlohmann::json& note);
ExtendNote extend_note_from(const nlohmann::json& note);
// Decodes `note` by its kind (discarding the result): Error(io) as above; a note of a
// kind this version does not know, or without one, passes.
void check_note(const nlohmann::json& note);
// The last end note among `notes` that records its sweep, decoded; nullopt when none
// does. `notes` were checked when read, so this does not throw for a loaded journal.
std::optional<SweepStretch> last_stretch(const std::vector<nlohmann::json>& notes);

// Why a check's sweep stopped: every verdict decided; its time budget spent; the rest
// of the budget could not decide; its cap (--max-runs) reached; its fixed blocks
// (--runs N) done; Ctrl-C; a failed run.
enum class StopReason { decided, budget, futile, cap, fixed, interrupted, failed };
std::string_view to_string(StopReason s);
std::optional<StopReason> stop_reason_from(std::string_view text);

}  // namespace obscheck
