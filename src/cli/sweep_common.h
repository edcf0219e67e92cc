// cli/: what `obscheck bias` and `obscheck compare` share — turning the options into
// measurement contexts and variants.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "cli/options.h"
#include "job/sweep_job.h"
#include "util/words.h"

namespace obscheck {

// "FROM:TO:STEP" (inclusive of TO when the steps land on it) or "a,b,c". Throws
// Error(usage) naming `option` on anything else, a minus sign, a zero step, FROM > TO,
// a value above `max`, or more values than a sweep takes (checked before allocating).
std::vector<std::size_t> parse_size_list(const std::string& spec, const std::string& option, std::size_t max);


// The sweep's set-up (job/sweep_job.h SweepSetup) from the options. Parses and checks
// the counters (every one must be countable here: Error(event) once, before any run; under --backend sim the simulated events, with kSimContextRuns
// runs per context unless --runs says otherwise, since one run measures exactly and
// a second confirms it, and no warm-up unless -w asks), builds the link variants, crosses the context dimensions
// (environment sizes x argv[0] pads x link orders; the paper's environment sizes
// when no dimension is given) and samples --contexts of them.
SweepSetup prepare_sweep(const Options& o);

// A variant from its words (PROG ARGS...). With --link, PROG must be {out}: the
// linked binary of each context.
VariantSpec make_variant(const Options& o, const std::vector<std::string>& words, const std::string& name);


}  // namespace obscheck
