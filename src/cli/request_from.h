// cli/: the command line as one typed request (record/request.h), built once where the
// options are read; everything below reads the request's fields (job/check/check_setup.h
// resolves it on this host).
#pragma once

#include "cli/options.h"
#include "job/check/check_setup.h"
#include "job/sweep/sweep_setup.h"
#include "record/request.h"

namespace obscheck {

// The check the user asked for, its backend chosen once for the job
// (job/check/check_setup.h settle_backend) and carried with it.
// Reads the options only; resolves nothing on the host but the simulated geometry
// (--backend sim: valgrind must be there before a journal is written). Throws
// Error(usage) for an observer that cannot act in this mode or under simulation.
SettledRequest check_request_from(const Options& o);

// The request as the options give it, its backend not chosen and nothing resolved: what
// a --resume's command line is compared with (job/journal/resume_options.h).
CheckRequest asked_check_request(const Options& o);

// A bias or compare sweep as the options ask (job/sweep/sweep_setup.h prepare_sweep checks it).
SweepRequest sweep_request_from(const Options& o);

}  // namespace obscheck
