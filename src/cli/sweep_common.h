// cli/: what `obscheck bias` and `obscheck compare` share — turning the options into
// measurement contexts and variants, and the sweep's runs into report records.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "cli/options.h"
#include "events/event.h"
#include "report/bias_report.h"
#include "observe/sim.h"
#include "run/backend.h"
#include "run/contexts.h"
#include "run/link_order.h"

namespace obscheck {

// The non-empty words of a comma-separated option value ("a,,b" -> a, b).
std::vector<std::string> split_commas(const std::string& s);

// "FROM:TO:STEP" (inclusive of TO when the steps land on it) or "a,b,c". Throws
// Error(usage) naming `option` on anything else, a minus sign, a zero step, FROM > TO,
// a value above `max`, or more values than a sweep takes (checked before allocating).
std::vector<std::size_t> parse_size_list(const std::string& spec, const std::string& option, std::size_t max);


// The driver-side set-up both commands share.
struct SweepSetup {
  std::optional<TempDir> link_dir;        // owns the linked binaries while they run
  std::vector<LinkVariant> links;
  std::vector<ContextSpec> contexts;      // ids 0..n-1 after sampling
  EventSet events;
  std::string metric;
  std::uint64_t seed = 0;
  int runs = kDefaultContextRuns;
  int warmup = 1;
  // Where the counts come from (run/backend.h). Under simulation the runs count
  // sim_events and `events` stays empty. backend_notes: what the report says about it.
  std::shared_ptr<const Backend> backend;
  std::vector<SimEvent> sim_events;
  RunMeasurer measurer;                   // the backend's (Backend::run_measurer)
  std::vector<std::string> backend_notes;
};

// Parses and checks the counters (every one must be countable here: Error(event)
// once, before any run; under --backend sim the simulated events, with kSimContextRuns
// runs per context unless --runs says otherwise, since one run measures exactly and
// a second confirms it, and no warm-up unless -w asks), builds the link variants, crosses the context dimensions
// (environment sizes x argv[0] pads x link orders; the paper's environment sizes
// when no dimension is given) and samples --contexts of them.
SweepSetup prepare_sweep(const Options& o);

// A variant from its words (PROG ARGS...). With --link, PROG must be {out}: the
// linked binary of each context.
VariantSpec make_variant(const Options& o, const std::vector<std::string>& words, const std::string& name);


}  // namespace obscheck
