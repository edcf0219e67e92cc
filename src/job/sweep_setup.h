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
#include "job/sweep_job.h"
#include "util/words.h"

namespace obscheck {

// A bias or compare sweep as asked: what to count, the context dimensions, how each
// variant is started. Every field is an option's value as given ("" or 0: not given).
struct SweepRequest {
  std::string counters;                // -e: the event list as given ("": the backend's default)
  std::string metric;                  // --metric ("": the first counter)
  int runs = 0;                        // -r per context (0: the backend's or kDefaultContextRuns)
  int warmup = 1;                      // -w
  bool warmup_given = false;
  std::uint64_t seed = 0;              // --seed, used when seed_given
  bool seed_given = false;
  BackendKind backend = BackendKind::native;
  std::string sim_cache;               // --sim-cache ("": the host's geometry)
  double confidence = 0.95;            // --confidence
  std::string env_sizes;               // --env-sizes FROM:TO:STEP or a,b,c
  std::string argv0_pads;              // --argv0-pads
  std::string link_command;            // --link 'CMD {objects} -o {out}'
  std::string link_objects;            // --objects a.o,b.o
  int link_orders = 0;                 // --link-orders N
  int contexts = 0;                    // --contexts N (0: all)
  // How each variant starts; argv is not used (each variant brings its words), and
  // env_pad given is refused: the sweep varies the environment.
  LaunchRequest launch;
};

// "FROM:TO:STEP" (inclusive of TO when the steps land on it) or "a,b,c". Throws
// Error(usage) naming `option` on anything else, a minus sign, a zero step, FROM > TO,
// a value above `max`, or more values than a sweep takes (checked before allocating).
std::vector<std::size_t> parse_size_list(const std::string& spec, const std::string& option, std::size_t max);


// The sweep's set-up (job/sweep_job.h SweepSetup) from the request. Parses and checks
// the counters (every one must be countable here: Error(event) once, before any run; under --backend sim the simulated events, with kSimContextRuns
// runs per context unless --runs says otherwise, since one run measures exactly and
// a second confirms it, and no warm-up unless -w asks), builds the link variants, crosses the context dimensions
// (environment sizes x argv[0] pads x link orders; the paper's environment sizes
// when no dimension is given) and samples --contexts of them.
SweepSetup prepare_sweep(const SweepRequest& o);

// A variant from its words (PROG ARGS...). With --link, PROG must be {out}: the
// linked binary of each context.
VariantSpec make_variant(const SweepRequest& o, const std::vector<std::string>& words, const std::string& name);

// compare's variants from its words split at ::: (job/sweep_verdicts.h split_variants):
// the baseline, the contender and, with `aa`, a copy of the baseline for the A/A control.
std::vector<VariantSpec> compare_variants(
    const SweepRequest& r, const std::pair<std::vector<std::string>, std::vector<std::string>>& words, bool aa);


}  // namespace obscheck
