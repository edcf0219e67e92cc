// cli/: what --resume accepts from its own command line. A resumed check runs exactly
// as the journal's did, so every option that shapes the runs comes from the journal;
// one given again must say the same, or the command is refused before the journal is
// touched, naming each difference. Only output options may change: --json, --csv,
// -o/--output, --html, --svg.
#pragma once

#include <nlohmann/json.hpp>

#include "cli/options.h"
#include "job/journal_job.h"

namespace obscheck {

// Throws Error(usage) naming every option (and the target) given with --resume that
// differs from what `manifest` recorded, or that the journal does not record at all.
void refuse_changed_options(const Options& given, const nlohmann::json& manifest);

// --resume of a complete journal: says so on stderr and prints its report as
// `obscheck report` does; appends nothing.
struct JournalData;
int report_complete_journal(const Options& o, const JournalData& d);

}  // namespace obscheck
