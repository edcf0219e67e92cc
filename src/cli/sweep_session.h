// cli/: bias and compare from their command lines to their reports. The job itself
// (its request made into contexts and variants, runs, journal, resume and report
// records) is job/sweep_setup.h and job/sweep_job.h; here the options become the
// request, and the report of either, live or from a journal, is printed by one
// function.
#pragma once

#include <string>
#include <vector>

#include "cli/options.h"
#include "job/sweep_job.h"
#include "job/sweep_setup.h"
#include "record/journal_notes.h"

namespace obscheck {

struct JournalData;

// bias or compare as the command line asks: a new sweep (journalled with --journal),
// or with --resume FILE the continuation of the one recorded there (its typed request
// read back, job/sweep_job.h resume_sweep_job). Prints the report and returns the
// exit code, as report_sweep.
int run_sweep_command(const Options& o, JobKind kind);

// A sweep's report from its journal alone: analyses, prints (text, JSON or CSV; --html,
// --svg, --export-*) as the live sweep did, returns the exit code on its findings.
int report_sweep(const Options& o, const JournalData& d);

}  // namespace obscheck
