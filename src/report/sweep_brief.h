// report/: what a sweep's report needs besides its runs, as its journal records it: the
// manifest's "sweep" part (SweepBrief, one encoder and one decoder; record/journal.h
// puts it into a manifest and gets it out), and each run's own part of its run line
// (SweepRunPart, RunRecord::extra). job/sweep/sweep_job.h makes them and reads them back.
#pragma once

#include <cstddef>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "host/host_info.h"
#include "record/fail_on.h"
#include "report/bias_report.h"

namespace obscheck {

// What a sweep's report needs besides its runs: the manifest's "sweep" object.
struct SweepBrief {
  // The report's header: command, variants, contexts, seed, runs per context, warm-up,
  // events, metric, pad, notes, margin, alpha. No runs, no analysis.
  SweepReport header;
  std::vector<std::string> metrics;    // bias: the metrics analysed, the chosen one first
  double margin = 0.01;                // ε of the analysis (--margin)
  bool aa = false;                     // compare --aa: variant 2 is the baseline's copy
  FailOn fail_on;                      // --fail-on (empty: the command's default)
  // A journal written before the manifest recorded the typed request: its command
  // line, which --resume parses again (empty in a journal written since).
  std::vector<std::string> arguments;
  // --allow-multiplex is in the header (SweepReport::allow_multiplex): the JSON's
  // "allow_multiplex", false when a journal written before it lacks the field.
  // Not in the JSON: the manifest's host, which report_sweep sets so the page describes
  // the host that measured; unset live (this host).
  std::optional<HostInfo> host;
};
nlohmann::json brief_to_json(const SweepBrief& b);
// Throws Error(io) naming a missing or malformed field, or a value no command line
// can give (a level or margin out of its range, a run count out of bounds).
SweepBrief brief_from_json(const nlohmann::json& j);

// A sweep run's own part of its run line ("extra": the context and variant it ran,
// the variant's argv, the binary and its sha256, the program's first line of output).
struct SweepRunPart {
  std::size_t context = 0;
  std::size_t variant = 0;
  std::vector<std::string> argv;
  std::string binary;
  std::string binary_sha256;
  std::string first_line;
};
nlohmann::json sweep_run_extra(const SweepRunPart& p);
// Throws Error(io) "`where`: field KEY is missing or has the wrong type".
SweepRunPart sweep_run_part(const nlohmann::json& extra, const std::string& where);

}  // namespace obscheck
