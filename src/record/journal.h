// record/: the journal, a JSON Lines file that holds everything a report needs.
//
//   line 1   {"type":"manifest","format":"obscheck-journal","version":1,"created":...,
//             "obscheck":..., "host":{...}, "options":{...}, "seed":N,
//             "target":{"path","argv","sha256"}, "env":[{"name","bytes"}...],
//             "plan":{...plan_to_json...}}
//   then     {"type":"run", ...}  one per run (run_record.h), in the order run
//            {"type":"note", ...}  e.g. {"kind":"interrupted"} or a look's decision
// Readers skip lines of any other type, so later versions can add them.
//
// Durability: each line is written with one write(2) of the whole line and its '\n'
// (looping only if the kernel accepts part of it) before append returns, so it is in
// the kernel's page cache before the next run starts: the file is valid and complete
// after any end of obscheck itself (Ctrl-C, kill -9, a crash of the driver), since the
// runner finishes or abandons a run and never leaves half a line.
// Reaching the disk (fdatasync) is batched: append syncs when kJournalSyncInterval has
// passed since the last sync (so the line of a run that took that long is synced at
// once); append_note and sync() always sync; the destructor syncs what is left,
// without reporting a failure. The manifest is a line like the others: create counts
// it as unsynced, and the first sync also makes the new directory entry durable.
// An operating-system crash or power loss can therefore lose only the lines appended
// since the last sync, all within one interval of it, which --resume runs again (or,
// within the first interval, the new journal itself, with at most that interval's
// runs); it can also tear the last line, which load_journal ignores and
// open_for_resume cuts off.
// Why batched, not a sync per line: one fdatasync costs 0.2-4 ms on the machines this
// was measured on, more than a short target's whole run (the first one of a new file,
// with its metadata, about 1.5 ms), and a background syncing thread would put disk
// I/O and its interrupts inside the runs being measured.
#pragma once

#include <chrono>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <set>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

#include "host/host_info.h"
#include "plan/plan.h"
#include "record/run_record.h"
#include "util/fd.h"

namespace obscheck {

inline constexpr const char* kJournalFormat = "obscheck-journal";
inline constexpr int kJournalVersion = 1;

// Longest time an appended line waits for fdatasync while runs keep coming (see the
// durability note above): bounds what a power loss costs to about a second of runs,
// while syncs stay under ~0.5% of a sweep of short runs.
inline constexpr std::chrono::milliseconds kJournalSyncInterval{1000};

struct TargetInfo {
  std::string path;               // resolved executable
  std::vector<std::string> argv;  // argv[0] included
  std::string sha256;             // of the executable file
};

struct ManifestInput {
  std::string obscheck_version;
  std::chrono::system_clock::time_point created;
  nlohmann::json host = nlohmann::json::object();     // host/'s HostInfo, opaque here
  nlohmann::json options = nlohmann::json::object();  // cli/'s Options, opaque here
  TargetInfo target;
  // The target's environment as "NAME=value" entries (EnvBlock::vars()). Only names
  // and sizes reach the journal, never a value: environments hold tokens and passwords.
  std::vector<std::string> env;
  // A check's set-up warnings (dropped counters, counting notes, a wrapper's changes),
  // kept so that every later report of the journal (and its certificate) carries them
  // as the live check printed them: "warnings".
  std::optional<std::vector<std::string>> warnings;
  // The digest of the plan file a shard runs (obscheck run --plan FILE --shard I/N):
  // "plan_digest", written when not empty.
  std::string plan_digest;
};

// The manifest line's JSON. "seed" is the plan's seed.
nlohmann::json make_manifest(const ManifestInput& in, const Plan& plan);
// The set-up warnings a manifest keeps (ManifestInput::warnings), its entries that are
// text; nullopt for a journal written before the manifest kept them (or not a
// check's), or a "warnings" that is not a list.
std::optional<std::vector<std::string>> manifest_warnings(const nlohmann::json& manifest);
// The plan file's digest a manifest records (ManifestInput::plan_digest): "" when it
// records none, or a "plan_digest" that is not text.
std::string manifest_plan_digest(const nlohmann::json& manifest);
// The shard of the plan a manifest records, decoded by plan/'s decoder (plan_from_json):
// nullopt for a plan of every block, or a "plan" that does not decode.
std::optional<Shard> manifest_shard(const nlohmann::json& manifest);
// The host a manifest records (ManifestInput::host, host/'s HostInfo JSON, decoded by
// host/), or an empty object when it records none.
nlohmann::json manifest_host(const nlohmann::json& manifest);
// The target a manifest records ("target": "argv" and "sha256"), typed: argv empty
// and sha256 "" when the manifest records none. Error(io) "field target.argv is not
// a list of strings" or "field target.sha256 is not a string" when one has another
// type (load_journal refuses such a manifest first, naming its file and line 1).
struct ManifestTarget {
  std::vector<std::string> argv;  // argv[0] included
  std::string sha256;             // of the executable file
  bool operator==(const ManifestTarget&) const = default;
};
ManifestTarget manifest_target(const nlohmann::json& manifest);
// A measure's own part of its manifest ("measure"): the notes its report prints (they
// depend on the host that measured) and the simulated events' names, "backend_notes",
// "event_notes", "sim_events", each a list of strings. The decoder answers the empty
// part for a manifest without one, Error(io) "field measure.KEY is not a list of
// strings" for a wrong type (load_journal refuses such a manifest first, at line 1).
struct MeasurePart {
  std::vector<std::string> backend_notes;
  std::vector<std::string> event_notes;
  std::vector<std::string> sim_events;
  bool operator==(const MeasurePart&) const = default;
};
void put_measure_part(nlohmann::json& manifest, const MeasurePart& part);
MeasurePart measure_part_of(const nlohmann::json& manifest);
// The host a manifest records, decoded by host/'s decoder (from_json(HostInfo)):
// nullopt when it records none; Error(io) naming the field when it does not decode
// (load_journal refuses such a manifest first, at line 1).
std::optional<HostInfo> manifest_host_info(const nlohmann::json& manifest);
// The environment summary a manifest records ("env", env_summary's array), or an empty
// array when it records none.
nlohmann::json manifest_env(const nlohmann::json& manifest);
// Whether a JSON line has a manifest's shape as far as a listing needs: an object with
// an "options" object.
bool has_manifest_options(const nlohmann::json& manifest);
// The target's environment block's size in bytes, the sum of the manifest's env_summary
// entries' "bytes" (0 for a manifest without one).
std::uint64_t manifest_env_bytes(const nlohmann::json& manifest);
// The options object a manifest records ("options": a command's typed request, e.g.
// job/sweep/sweep_request.h's), which load_journal requires of every manifest it
// accepts (an object); on a manifest it did not check, nlohmann::json::out_of_range
// when there is none. put_options_backend records the backend that measured in it.
const nlohmann::json& manifest_options(const nlohmann::json& manifest);
void put_options_backend(nlohmann::json& options, std::string_view backend);
// A sweep's own part of its manifest ("sweep": report/sweep_brief.h brief_to_json),
// put by the sweep that writes the journal and got by its readers. The getter throws
// Error(io) "PATH: the manifest has no sweep" for a manifest without one (`path` the
// journal's file); the part's fields are its decoder's to check.
void put_sweep_part(nlohmann::json& manifest, nlohmann::json part);
const nlohmann::json& manifest_sweep_part(const nlohmann::json& manifest, const std::string& path);

// [{"name": NAME, "bytes": size of "NAME=value" plus its NUL}] in the block's order, so
// the sizes sum to EnvBlock::size_bytes(). An entry without '=' is all name.
nlohmann::json env_summary(const std::vector<std::string>& env);

// What differs between a journal's environment summary and this one, in words a user
// can act on ("HOME is 14 bytes here, 19 in the journal"; "FOO is set here, not in the
// journal"; "the variables are in another order"), the first difference only; ""
// when they are the same. Both are env_summary's arrays.
std::string env_difference(const nlohmann::json& recorded, const nlohmann::json& now);

// "2026-11-20T23:59:59Z" (UTC, whole seconds).
std::string utc_iso8601(std::chrono::system_clock::time_point t);

// A journal path that does not exist yet: <dir>/obscheck-YYYYMMDD-HHMMSS.jsonl (UTC),
// else the same with -1, -2, ... before ".jsonl". An empty dir means the current
// directory (a relative path is returned).
std::string default_journal_path(const std::string& dir, std::chrono::system_clock::time_point now);

struct JournalData {
  std::string path;
  nlohmann::json manifest;
  std::vector<RunRecord> runs;        // in file order
  std::vector<nlohmann::json> notes;  // the "note" lines, in file order
  bool torn_tail = false;             // the last line was incomplete and was ignored
  std::uint64_t valid_bytes = 0;      // length of the file without the torn tail
  std::size_t lines = 0;              // lines read, the torn tail excluded
  std::size_t unchecked_lines = 0;    // lines without an integrity check (journal_reader.h)
};

// Reads and validates a journal with the streaming reader of journal_reader.h (the same
// checks, the same bounded memory), keeping each run as a RunRecord. Throws Error(io),
// naming the file and the line, when: the file cannot be read, is not a regular file
// or is empty; line 1 is not a complete manifest of a known format and version; a line
// is not a JSON object with a "type" or fails its integrity check; a run line lacks a
// field, has one of the wrong type or out of range (naming the field); a run index
// repeats an earlier line's. A last line without its '\n', or one that is not JSON at
// all, is a torn tail from a crash: it is ignored and torn_tail is set.
JournalData load_journal(const std::string& path);
// The same for a journal's text already in memory (a decompressed copy, say); `path`
// names it in errors and in JournalData::path.
JournalData parse_journal(std::string_view text, const std::string& path);

// The plan recorded in the manifest, with its notes applied in order: the
// configurations "retire" notes retired and the cap "extend" notes raised
// (record/plan_notes.h apply_plan_notes). Throws Error(io) as plan_from_json, or naming
// a bad note.
Plan plan_from_journal(const JournalData& data);

// The run indexes already in the journal.
std::set<std::size_t> completed_indexes(const JournalData& data);

// The trials of blocks [0, end_block) not yet in the journal, in run order, so a
// resumed sweep loses and repeats no run. Throws Error(io) when a recorded run is not
// the plan's trial at its index (another block, position, configuration or id): the
// journal was not written with this plan.
std::vector<Trial> remaining_trials(const Plan& plan, const JournalData& data, std::size_t end_block);
// The same for runs held in memory (a sweep's runs so far), without copying them into
// a JournalData; `path` names the journal in the error.
std::vector<Trial> remaining_trials(const Plan& plan, std::span<const RunRecord> runs, const std::string& path,
                                    std::size_t end_block);

// How many blocks from block 0 on are fully recorded.
std::size_t completed_blocks(const Plan& plan, const JournalData& data);

struct ResumedJournal;

// Move-only owner of an open journal. Appends only; never rewrites a line. It holds
// the journal's writer lock (an open-file-description write lock on the whole file)
// from creation or resume until its descriptor closes, so a journal has one writer.
class JournalWriter {
 public:
  // Creates `path` (O_CREAT|O_EXCL: an existing file is never overwritten) and writes
  // the manifest line. Throws Error(io) when the file exists (the hint names --resume)
  // or cannot be created or written, Error(internal) when `manifest` is not a manifest.
  static JournalWriter create(const std::string& path, const nlohmann::json& manifest);
  // As create, at default_journal_path(dir, now), taking the next free suffix if
  // another process creates the chosen name first.
  static JournalWriter create_default(const std::string& dir,
                                      std::chrono::system_clock::time_point now,
                                      const nlohmann::json& manifest);
  // Opens `path` for appending and takes its writer lock, then loads and validates
  // it (load_journal). A torn tail (data.torn_tail) is cut off just before the first
  // line is appended, not here: a caller that refuses the resume after opening it
  // leaves the file unchanged. Throws
  // Error(busy), having read and written nothing, when another writer holds the lock;
  // Error(io) as load_journal, or when the file cannot be truncated or opened.
  static ResumedJournal open_for_resume(const std::string& path);

  // Moving carries the unsynced lines along; assigning over an open writer syncs it
  // first, as its destructor would.
  JournalWriter(JournalWriter&&) noexcept = default;
  JournalWriter& operator=(JournalWriter&& o) noexcept;
  JournalWriter(const JournalWriter&) = delete;
  JournalWriter& operator=(const JournalWriter&) = delete;
  // Syncs lines not yet synced (best effort: a destructor cannot report a failure;
  // call sync() first to have it thrown).
  ~JournalWriter();

  // One line, written on return (synced per the durability note). Throws Error(io)
  // (disk full, I/O error), also for a failed sync of this or an earlier line.
  void append(const RunRecord& run);
  // A {"type":"note", ...} line; `note` must be an object ("type" is set here). Durable
  // on return, with every line before it, unless `when` is Durable::at_next_sync: then
  // it waits, as a run line does, for the next sync (which the caller may run on
  // another thread while it does other work; nothing else may touch the writer then).
  enum class Durable { on_return, at_next_sync };
  void append_note(const nlohmann::json& note, Durable when = Durable::on_return);
  // Every line appended so far durable on return. Throws Error(io) when the sync fails.
  void sync();
  // Lines written but not yet synced.
  std::size_t unsynced_lines() const { return unsynced_; }
  // The batching interval (kJournalSyncInterval unless set): 0 syncs every line.
  void set_sync_interval(std::chrono::nanoseconds interval) { sync_interval_ = interval; }
  const std::string& path() const { return path_; }

 private:
  JournalWriter(UniqueFd fd, std::string path) : fd_(std::move(fd)), path_(std::move(path)) {}
  void write_line(const std::string& bytes);  // one whole line, its '\n' included
  void cut_torn_tail();                        // the pending cut of open_for_resume, once
  void sync_quietly() noexcept;

  UniqueFd fd_;
  std::string path_;
  std::size_t unsynced_ = 0;
  bool new_entry_ = false;  // created here: the directory entry waits for the first sync
  std::chrono::steady_clock::time_point last_sync_ = std::chrono::steady_clock::now();
  std::chrono::nanoseconds sync_interval_ = kJournalSyncInterval;
  std::optional<std::uint64_t> cut_to_;  // a torn tail to cut off before the first append
};

struct ResumedJournal {
  JournalWriter writer;
  JournalData data;  // as loaded; torn_tail: the tail is cut off before the first append
};

}  // namespace obscheck
