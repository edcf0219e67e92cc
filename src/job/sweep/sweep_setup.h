// job/: what `obscheck bias` and `obscheck compare` share — turning the sweep's typed
// request (cli/request_from.h sweep_request_from builds it from the options) into
// measurement contexts and variants.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "record/request.h"
#include "job/sweep/sweep_job.h"
#include "util/words.h"

namespace obscheck {

// The sweep's set-up (job/sweep/sweep_job.h SweepSetup) from the request. Parses and checks
// the counters (every one must be countable here: Error(event) once, before any run; under --backend sim the simulated events, with kSimContextRuns
// runs per context unless --runs says otherwise, since one run measures exactly and
// a second confirms it, and no warm-up unless -w asks), builds the link variants, crosses the context dimensions
// (environment sizes x argv[0] pads x link orders; the paper's environment sizes
// when no dimension is given) and samples --contexts of them.
SweepSetup prepare_sweep(const SweepRequest& o);

// A variant from its words (PROG ARGS...). With --link, PROG must be {out}: the
// linked binary of each context.
VariantSpec make_variant(const SweepRequest& o, const std::vector<std::string>& words, const std::string& name);

// compare's variants from its words split at ::: (job/sweep/sweep_verdicts.h split_variants):
// the baseline, the contender and, with `aa`, a copy of the baseline for the A/A control.
std::vector<VariantSpec> compare_variants(
    const SweepRequest& r, const std::pair<std::vector<std::string>, std::vector<std::string>>& words, bool aa);

// The `kind` (bias or compare) job the request asks for: its setup (prepare_sweep), then
// its variants from the request's words (bias: one program; compare: split at ":::",
// with the A/A copy when asked), so a bad context option is said before a bad program.
// A compare whose outputs differ in every context after the first round stops there,
// unless --allow-output-diff.
SweepJob sweep_job_for(const SweepRequest& r, JobKind kind);

}  // namespace obscheck
