// job/: a bias or compare sweep as the user asked for it, typed. cli/options.cpp reads
// each option into it once (every list parsed and bounded there); job/sweep/sweep_setup.h
// turns it into contexts and variants; the journal's manifest records it, so a
// --resume reads it back typed and never parses a command line again.
#pragma once

#include <cstddef>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "record/fail_on.h"
#include "record/journal_notes.h"
#include "record/request.h"

namespace obscheck {

// A bias or compare sweep as asked, typed: every list parsed and bounded where its
// option is read (cli/options.cpp), so nothing below parses a word of it again. The
// journal's manifest records it (sweep_request_json) and a --resume reads it back
// (sweep_request_from_json), so a continuation runs as the sweep began.
struct SweepRequest {
  // What a sweep shares with a check: the counters as asked (empty: the backend's
  // default), runs per context (0: the backend's or kDefaultContextRuns), warm-up,
  // seed, backend and --sim-cache, ε (compare's --margin), --allow-multiplex, and how
  // each variant starts (launch; argv: the words after the options, compare's split at
  // ":::"; env_pad given is refused: the sweep varies the environment).
  CheckRequest check;
  std::string metric;                     // --metric ("": the first counter)
  double confidence = 0.95;               // --confidence
  std::vector<std::size_t> env_sizes;     // --env-sizes (empty: not given)
  std::vector<std::size_t> argv0_pads;    // --argv0-pads (empty: not given)
  std::string link_command;               // --link 'CMD {objects} -o {out}'
  std::vector<std::string> link_objects;  // --objects a.o,b.o
  int link_orders = 0;                    // --link-orders N
  int contexts = 0;                       // --contexts N (0: all)
  bool aa = false;                        // compare --aa
  bool allow_output_diff = false;         // compare --allow-output-diff
  FailOn fail_on;                         // --fail-on (empty: the command's default)
  bool operator==(const SweepRequest&) const = default;
};

// --env-sizes and --argv0-pads as their option reads them: "FROM:TO:STEP" (inclusive of
// TO when the steps land on it) or "a,b,c". Throws Error(usage) naming the option on
// anything else, a minus sign, a zero step, FROM > TO, a value above what one execve
// string holds, or more values than a sweep takes (checked before allocating).
std::vector<std::size_t> parse_env_sizes(const std::string& text);
std::vector<std::size_t> parse_argv0_pads(const std::string& text);
// The same bounds on values already parsed (a journal's): Error(usage).
void check_context_sizes(const SweepRequest& r);

// The request as a sweep's manifest records it ("options"), and back. from_json
// throws Error(io) naming a missing or malformed field, and Error(usage) for a value
// no `kind` command line could give (the bounds cli/options.cpp applies), which the
// resume names as the journal's fault (job/sweep/sweep_job.h resume_sweep_job).
nlohmann::json sweep_request_json(const SweepRequest& r);
SweepRequest sweep_request_from_json(const nlohmann::json& j, JobKind kind);

}  // namespace obscheck
