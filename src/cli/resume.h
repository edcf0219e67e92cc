// cli/: what --resume accepts from its own command line. A resumed check runs exactly
// as the journal's did, so every option that shapes the runs comes from the journal;
// one given again must say the same, or the command is refused before the journal is
// touched, naming each difference. Only output options may change: --json, --csv,
// -o/--output, --html, --svg.
#pragma once

#include <nlohmann/json.hpp>

#include "cli/options.h"
#include "launch/launcher.h"

namespace obscheck {

// The manifest (line 1) of the journal at `path`, or null when it cannot be read as
// one (load_journal then reports why, with the line).
nlohmann::json read_manifest_line(const std::string& path);

// Throws Error(usage) naming every option (and the target) given with --resume that
// differs from what `manifest` recorded, or that the journal does not record at all.
void refuse_changed_options(const Options& given, const nlohmann::json& manifest);

// A resumed `what` ("check", "measure", "sweep") runs the binary and the environment
// its journal began with, or the target's layout would move: Error(usage) naming the
// difference otherwise, before the journal is touched.
void refuse_changed_binary(const nlohmann::json& manifest, const std::string& path, const std::string& what);
void refuse_changed_environment(const nlohmann::json& manifest, const EnvBlock& env, const std::string& what);

// True when the journal's sweep ended: its last note says "finished".
bool journal_complete(const std::vector<nlohmann::json>& notes);

// --resume of a complete journal: says so on stderr and prints its report as
// `obscheck report` does; appends nothing.
struct JournalData;
int report_complete_journal(const Options& o, const JournalData& d);

}  // namespace obscheck
