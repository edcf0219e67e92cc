// cli/: what --resume accepts from its own command line. A resumed check runs exactly
// as the journal's did, so every option that shapes the runs comes from the journal;
// one given again must say the same, or the command is refused before the journal is
// touched, naming each difference. Only output options may change (is_output_option),
// and for a check this invocation's budget, --decide-all and a raised --max-runs.
#pragma once

#include <string>

#include <nlohmann/json.hpp>

#include "cli/options.h"
#include "job/journal_job.h"

namespace obscheck {

// Options that shape only how this invocation writes its report (--json, --csv, -o,
// --html, --svg, --markdown, --export-json, --export-csv, --color, and --resume
// itself): every resumed job takes them from its own command line, never from the
// journal. One list for the check, measure and the sweeps.
bool is_output_option(const std::string& name);
// Those options as a resumed job's refusal names them.
inline constexpr const char* kOutputOptionsText =
    "--json, --csv, -o, --html, --svg, --markdown, --export-json, --export-csv, --color";

// Throws Error(usage) naming every option (and the target) given with --resume that
// differs from what `manifest` recorded, or that the journal does not record at all.
void refuse_changed_options(const Options& given, const nlohmann::json& manifest);

// --resume of a complete journal: says so on stderr and prints its report as
// `obscheck report` does; appends nothing.
struct JournalData;
int report_complete_journal(const Options& o, const JournalData& d);

}  // namespace obscheck
