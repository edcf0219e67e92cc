// job/: what every command's journal shares, whatever the job (record/journal_notes.h
// JobKind): the manifest a new journal starts with; for --resume, the manifest read
// before the journal is touched, the refusal of a journal of another kind of job, and
// the refusal of a changed binary or environment (the target's layout would move);
// the notice of a torn tail. The end note is record/journal_notes.h end_note.
#pragma once

#include <string>

#include <nlohmann/json.hpp>

#include "launch/launcher.h"
#include "plan/plan.h"
#include "record/journal_notes.h"

namespace obscheck {

// Said when open_for_resume cut off the journal's torn last line.
inline constexpr const char* kTornTailNotice =
    "the journal's last line was incomplete (cut off mid-write) and was removed; that run is run again";

// The first line of a new journal of a `kind` job (record/journal.h make_manifest):
// this obscheck's version, now, `host`, `options` as the job records them, the target
// (`launch`'s path and argv, its binary's `sha256`), its environment's names and sizes,
// and the plan; "command" names the kind, except a check's (its manifest has none).
nlohmann::json job_manifest(JobKind kind, const nlohmann::json& host, nlohmann::json options, const LaunchSpec& launch,
                            const std::string& sha256, const Plan& plan);

// The manifest (line 1) of the journal at `path`, or null when it cannot be read as
// one (load_journal then reports why, with the line).
nlohmann::json read_manifest_line(const std::string& path);

// The kind of job the journal at `path` records: a check when its manifest names none
// or cannot be read (resuming it then says why).
JobKind journal_kind(const std::string& path);

// The manifest of the journal at `path` that --resume of a `kind` job continues, read
// before the journal is touched; null when it cannot be read as one (open_for_resume
// says why). Throws Error(usage) when it records another kind of job, naming the
// command that continues it.
nlohmann::json manifest_to_resume(const std::string& path, JobKind kind);

// A resumed `what` ("check", "measure", "sweep") runs the binary and the environment
// its journal began with, or the target's layout would move: Error(usage) naming the
// difference otherwise, before the journal is touched.
void refuse_changed_binary(const nlohmann::json& manifest, const std::string& path, const std::string& what);
void refuse_changed_environment(const nlohmann::json& manifest, const EnvBlock& env, const std::string& what);

}  // namespace obscheck
