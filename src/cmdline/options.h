// cmdline/: the one immutable Options value every command reads, the typed fields the
// command line's options are stored into (cmdline/vocabulary.h names them; cli/ parses).
#pragma once

#include <algorithm>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "job/shards/slurm_job.h"
#include "job/sweep/sweep_request.h"
#include "plan/plan.h"
#include "record/request.h"

namespace obscheck {

enum class Command {
  check, measure, events, doctor, report, demo, bias, compare, plan, run, slurm, completion,
  fidelity, journals, help, version
};

struct Options {
  Command command = Command::check;
  std::vector<std::string> target;  // PROG ARGS... (argv[0] = PROG as written)

  // How often, the analysis' knobs, how the target starts (launch) and the observer's
  // knobs, typed as the check's request (record/request.h) as they are read, the
  // counter list and --leftovers among them; every command reads these there. Its
  // observer's kind and lists are read from the fields below as they are checked; its
  // argv is set from `target` (cli/request_from.h).
  CheckRequest request;
  bool runs_given = false;          // -r given (measure --backend sim runs two by default)
  bool time_budget_auto = false;    // --time-budget auto: sized after the warm-up
  bool decide_all = false;          // --decide-all: stop only when every metric is decided
  bool margin_given = false;        // report: re-judge with a new ε, else the journal's

  // Output.
  bool json = false;                // --json: machine-readable on stdout (or -o)
  bool csv = false;                 // --csv
  bool markdown = false;            // report --markdown: the verdict table as GFM
  std::string html;                 // --html FILE: one self-contained HTML page
  std::string svg_dir;              // report/bias/compare --svg DIR: every figure as its own .svg
  std::string export_json;          // --export-json FILE: the JSON report beside what is printed
  std::string export_csv;           // --export-csv FILE: the CSV beside what is printed
  std::string output;               // -o/--output FILE
  std::string journal;              // --journal FILE
  std::string resume;               // --resume FILE
  std::string report_file;          // report FILE (the first of report_files)
  std::vector<std::string> report_files;  // report FILE...: several shards' journals are merged
  std::string field_separator;      // measure -x SEP: perf stat's field-separated layout
  std::string color_when = "auto";  // --color auto|always|never
  bool color = true;                // always; never; auto: off with NO_COLOR or a stdout not a tty
  bool progress = true;             // stderr is a terminal
  bool all = false;                 // events --all
  bool clean = false;               // journals --clean
  std::string encode;               // events --encode LIST: the encoding of each event
  std::string shell;                // completion SHELL: bash | zsh

  // The observer's lists as written (one observer at a time; default: the counters
  // themselves), read once into request.observer with its kind (job/common/request_bounds.h
  // read_asked_observer); "" when not given.
  std::string probes;               // --probes SYM[,SYM...] | auto:N  (uprobes)
  std::string breakpoints;          // --breakpoints SYM[,...]          (hardware breakpoints)
  std::string sample_freq;          // --sample-freq HZ[,HZ...]
  std::string levels;               // --levels WORD[,WORD...] of --observer-cmd

  // bias / compare: measurement contexts (Mytkowicz et al., "Observer Effect and
  // Measurement Bias in Performance Analysis" §4.2, §5.2), the metric and --aa, stored
  // in the sweep's request (job/sweep/sweep_request.h) as they are read, each list parsed
  // there; its other fields are set from `request` (cli/request_from.h).
  SweepRequest sweep;
  double confidence = 0.95;         // --confidence LEVEL of the intervals and tests
  bool allow_output_diff = false;   // compare: variants whose outputs differ are compared anyway
  bool certificate = false;         // report --certificate: a profiler command's certificate

  // fidelity: a sampling profiler's profile against an exact reference (analysis/fidelity.h).
  double tolerance = 0.05;          // --tolerance: share points (a fraction) a profile may differ
  int top = 5;                      // --top N: the hot list's length

  // Many hosts: plan / run / slurm.
  std::string plan_file;            // plan -o FILE is the output; run --plan FILE
  std::size_t shard_index = 0;      // run --shard I/N (I defaults to $SLURM_ARRAY_TASK_ID)
  std::size_t shard_count = 0;      // 0: not given
  SlurmRequest slurm;               // slurm's own options (job/shards/slurm_job.h), as given
  std::vector<std::string> check_args;  // slurm: everything after --: [check options] PROG ARGS

  // --fail-on LIST: which outcomes make the command exit 1 (job/common/exit_codes.h
  // findings_exit_code); empty: the command's default.
  FailOn fail_on;
  bool verbose = false;             // --verbose: every metric's detail in the text report
  bool summary_only = false;        // not an option: the demo's second part prints its answer alone
  bool demo_part = false;           // not an option: a demo part, whose exit code is the demo's
                                    // (cli/cmd_demo.cpp), so its report names none

  // The long names of the options given on the command line (not defaulted), so a
  // command can tell "given as the default" from "not given" (--resume refuses a
  // given option that differs from the journal's); gave(name) asks for one.
  std::vector<std::string> given;
  bool gave(const std::string& name) const {
    return std::find(given.begin(), given.end(), name) != given.end();
  }
};

}  // namespace obscheck
