// cli/: bias and compare from their command lines to their reports. The job itself
// (its request made into contexts and variants, runs, journal, resume and report
// records) is job/sweep/sweep_setup.h and job/sweep/sweep_job.h; here the options become the
// request, and the report of either, live or from a journal, is printed by one
// function.
#pragma once

#include <string>
#include <vector>

#include "cli/options.h"
#include "job/sweep/sweep_job.h"
#include "job/sweep/sweep_setup.h"
#include "record/journal_notes.h"

namespace obscheck {

struct JournalData;

// A new bias or compare sweep as the command line asks (journalled with --journal).
// Prints the report and returns the exit code, as report_sweep.
int run_sweep_command(const Options& o, JobKind kind);
// --resume FILE of a `kind` sweep (cli/cmd_check.cpp cmd_resume): the one recorded
// there continued, its typed request read back (job/sweep/sweep_job.h resume_sweep_job).
int resume_sweep(const Options& o, JobKind kind);

// A sweep's report from its journal alone: analyses, prints (text, JSON or CSV; --html,
// --svg, --export-*) as the live sweep did, returns the exit code on its findings.
int report_sweep(const Options& o, const JournalData& d);

}  // namespace obscheck
