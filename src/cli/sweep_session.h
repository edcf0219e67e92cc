// cli/: one sweep of `obscheck bias` or `obscheck compare`, live or from its journal.
//
// A sweep is planned through plan/ (run/contexts.h sweep_plan: one configuration per
// context and variant), and with --journal FILE every run is recorded as it ends, in
// the check's journal format: the manifest names the command and carries the sweep's
// brief (below), each run line its context, variant, argv, binary and first line.
// Ctrl-C leaves the journal valid (exit 130); --resume FILE runs what is missing, each
// planned run once; obscheck report FILE prints the report again from the file alone.
// The live report and the journal's are made by the same functions from the same
// records (each run goes through its journal line, kept or not), so they are the same
// bytes.
#pragma once

#include <functional>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "cli/options.h"
#include "cli/sweep_common.h"
#include "host/host_info.h"
#include "record/run_record.h"
#include "report/bias_report.h"
#include "run/contexts.h"

namespace obscheck {

class JournalWriter;
struct JournalData;

// What a sweep's report needs besides its runs: the manifest's "sweep" object.
struct SweepBrief {
  // The report's header: command, variants, contexts, seed, runs per context, warm-up,
  // events, metric, pad, notes, margin, alpha. No runs, no analysis.
  SweepReport header;
  std::vector<std::string> metrics;    // bias: the metrics analysed, the chosen one first
  double margin = 0.01;                // ε of the analysis (--margin)
  bool aa = false;                     // compare --aa: variant 2 is the baseline's copy
  std::vector<std::string> fail_on;    // --fail-on as given (empty: the command's default)
  std::vector<std::string> arguments;  // the command line, parsed again by --resume
  // Not in the JSON: the manifest's host, which report_sweep sets so the page describes
  // the host that measured; unset live (this host).
  std::optional<HostInfo> host;
};
nlohmann::json brief_to_json(const SweepBrief& b);
// Throws Error(io) naming a missing or malformed field.
SweepBrief brief_from_json(const nlohmann::json& j);

// What one command runs: the setup (it owns the linked binaries), the runner's spec, its
// plan and the brief.
struct SweepJob {
  SweepSetup setup;
  SweepSpec spec;
  std::optional<Plan> plan;  // sweep_plan(spec); none when no context could be prepared
  SweepBrief brief;
};

// The job under the options: the setup first (prepare_sweep), then the variants from
// `variants` (so a bad context option is said before a bad program), the header from
// both, the metrics, margin, A/A and --fail-on from the options.
SweepJob sweep_job(const Options& o, const std::string& command,
                   const std::function<std::vector<VariantSpec>()>& variants);

// A run as the journal records it, and back as the report reads it.
RunRecord sweep_run_record(const Plan& plan, const Trial& trial, const SweepRun& run);
SweepRunRecord sweep_record_of(const RunRecord& r);

// The report of a sweep's runs: analyses, prints (text, JSON or CSV; --html, --svg,
// --export-*), returns the exit code. `interrupted`: the runs stop short (Ctrl-C, or a
// journal without its "finished" note); `live`: this invocation was interrupted, so it
// exits 130, where a report exits on its findings. One per command (cmd_bias.cpp,
// cmd_compare.cpp).
using SweepFinish = std::function<int(const Options& o, SweepReport report, const SweepBrief& brief, bool interrupted,
                                      bool live)>;
int finish_bias(const Options& o, SweepReport report, const SweepBrief& brief, bool interrupted, bool live);
int finish_compare(const Options& o, SweepReport report, const SweepBrief& brief, bool interrupted, bool live);

// bias or compare as the command line asks: a new sweep (journalled with --journal),
// or with --resume FILE the continuation of the one recorded there. `build` makes the
// command's job from options (for --resume: the journal's options).
int run_sweep_command(const Options& o, const std::string& command,
                      const std::function<SweepJob(const Options&)>& build, const SweepFinish& finish);

// A sweep's journal (its manifest says "command": "bias" or "compare"), its report from
// the file alone, and its continuation for obscheck --resume FILE (`manifest`: its line 1).
bool is_sweep_journal(const nlohmann::json& manifest);
int report_sweep(const Options& o, const JournalData& d);
int resume_sweep_journal(const Options& o, const nlohmann::json& manifest);

}  // namespace obscheck
