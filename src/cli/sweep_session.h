// cli/: bias and compare from their command lines to their reports. The job itself
// (its runs, journal, resume checks and report records) is job/sweep_job.h; here the
// options become the job, a --resume's options are checked, the journal's recorded
// command line is parsed again, and the report of either, live or from a journal, is
// printed by one function.
#pragma once

#include <functional>
#include <string>
#include <vector>

#include "cli/options.h"
#include "job/sweep_job.h"
#include "job/sweep_setup.h"
#include "record/journal_notes.h"

namespace obscheck {

struct JournalData;

// The job under the options: the setup first (job/sweep_setup.h prepare_sweep), then
// the variants from `variants` (so a bad context option is said before a bad program),
// the header from both, the metrics, margin, A/A and --fail-on from the options.
using SweepVariants = std::function<std::vector<VariantSpec>(const SweepRequest&)>;
SweepJob sweep_job(const Options& o, JobKind kind, const SweepVariants& variants);

// bias or compare as the command line asks: a new sweep (journalled with --journal),
// or with --resume FILE the continuation of the one recorded there. `build` makes the
// command's job from options (for --resume: the journal's options). Prints the report
// and returns the exit code, as report_sweep.
int run_sweep_command(const Options& o, JobKind kind, const std::function<SweepJob(const Options&)>& build);

// A sweep's report from its journal alone: analyses, prints (text, JSON or CSV; --html,
// --svg, --export-*) as the live sweep did, returns the exit code on its findings.
int report_sweep(const Options& o, const JournalData& d);

}  // namespace obscheck
