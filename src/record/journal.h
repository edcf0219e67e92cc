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
// (looping only if the kernel accepts part of it), then fdatasync'd. The file is
// therefore valid after any interruption between appends (Ctrl-C included: the runner
// finishes or abandons a run, it never leaves half a line); only a crash or power
// loss in the middle of an append can leave a torn last line, which load_journal
// ignores and open_for_resume cuts off.
#pragma once

#include <chrono>
#include <cstddef>
#include <cstdint>
#include <set>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "plan/plan.h"
#include "record/run_record.h"
#include "util/fd.h"

namespace obscheck {

inline constexpr const char* kJournalFormat = "obscheck-journal";
inline constexpr int kJournalVersion = 1;

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
};

// The manifest line's JSON. "seed" is the plan's seed.
nlohmann::json make_manifest(const ManifestInput& in, const Plan& plan);

// [{"name": NAME, "bytes": size of "NAME=value" plus its NUL}] in the block's order, so
// the sizes sum to EnvBlock::size_bytes(). An entry without '=' is all name.
nlohmann::json env_summary(const std::vector<std::string>& env);

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
};

// Reads and validates a journal. Throws Error(io), naming the file and the line, when:
// the file cannot be read or is empty; line 1 is not a complete manifest of a known
// format and version; a line is not a JSON object with a "type"; a run line lacks a
// field or has one of the wrong type; a run index repeats an earlier line's. A last
// line without its '\n', or one that is not JSON at all, is a torn tail from a crash:
// it is ignored and torn_tail is set.
JournalData load_journal(const std::string& path);

// The plan recorded in the manifest. Throws Error(io) as plan_from_json.
Plan plan_from_journal(const JournalData& data);

// The run indexes already in the journal.
std::set<std::size_t> completed_indexes(const JournalData& data);

// The trials of blocks [0, end_block) not yet in the journal, in run order, so a
// resumed sweep loses and repeats no run. Throws Error(io) when a recorded run is not
// the plan's trial at its index (another block, position, configuration or id): the
// journal was not written with this plan.
std::vector<Trial> remaining_trials(const Plan& plan, const JournalData& data, std::size_t end_block);

// How many blocks from block 0 on are fully recorded.
std::size_t completed_blocks(const Plan& plan, const JournalData& data);

struct ResumedJournal;

// Move-only owner of an open journal. Appends only; never rewrites a line.
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
  // Loads and validates `path` (load_journal), cuts off a torn tail (data.torn_tail
  // says it did), and opens it for appending. Throws Error(io) as load_journal, or
  // when the file cannot be truncated or opened for writing.
  static ResumedJournal open_for_resume(const std::string& path);

  JournalWriter(JournalWriter&&) noexcept = default;
  JournalWriter& operator=(JournalWriter&&) noexcept = default;
  JournalWriter(const JournalWriter&) = delete;
  JournalWriter& operator=(const JournalWriter&) = delete;
  ~JournalWriter() = default;

  // One line, durable on return. Throws Error(io) (disk full, I/O error).
  void append(const RunRecord& run);
  // A {"type":"note", ...} line; `note` must be an object ("type" is set here).
  void append_note(const nlohmann::json& note);
  const std::string& path() const { return path_; }

 private:
  JournalWriter(UniqueFd fd, std::string path) : fd_(std::move(fd)), path_(std::move(path)) {}
  void write_line(const nlohmann::json& line);

  UniqueFd fd_;
  std::string path_;
};

struct ResumedJournal {
  JournalWriter writer;
  JournalData data;  // as loaded; torn_tail is true when the tail was cut off
};

}  // namespace obscheck
