// job/: what --resume accepts from its own command line. A resumed check runs exactly
// as the journal's did, so every option that shapes the runs comes from the journal;
// one given again must say the same, or the command is refused before the journal is
// touched, naming each difference. Only output options may change (is_output_option),
// and for a check this invocation's budget, --decide-all and a raised --max-runs.
#pragma once

#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "record/request.h"

namespace obscheck {

// Options that shape only how this invocation writes its report (--json, --csv, -o,
// --html, --svg, --markdown, --export-json, --export-csv, --color, --verbose, and --resume
// itself): every resumed job takes them from its own command line, never from the
// journal. One list for the check, measure and the sweeps.
bool is_output_option(const std::string& name);
// Those options as a resumed job's refusal names them.
inline constexpr const char* kOutputOptionsText =
    "--json, --csv, -o, --html, --svg, --markdown, --export-json, --export-csv, --color, --verbose";

// Throws Error(usage) naming every option in `given` (long names, as given on the
// command line) whose value in `asked` (the request this command line asks for, its
// backend not yet chosen) differs from what `manifest` recorded, or that the journal
// does not record at all; and the program, when `asked` names one that is not the
// journal's. The field by field comparison of a check's or a measure's request.
void refuse_changed_options(const std::vector<std::string>& given, const CheckRequest& asked,
                            const nlohmann::json& manifest);

// A sweep (bias, compare) resumes as its journal recorded it, its command line parsed
// again: throws Error(usage) naming each option in `given` that is not an output
// option, and the program when `program_given`. `command`: "bias" or "compare".
void refuse_sweep_options(const std::vector<std::string>& given, bool program_given, const std::string& command);

}  // namespace obscheck
