// The option table: each command's groups of options, as --help lists them.
#include "cmdline/vocabulary.h"

namespace obscheck {
namespace {

// The options read by cli/options.cpp from their word rather than stored as parsed.
template <class Kind>
Field word(Options&) {
  return Kind{};
}

// Options several groups declare, each with its group's text where their texts differ.
OptionSpec csv(const char* help = "write CSV") {
  return {"csv", [](Options& o) -> Field { return &o.csv; }, help};
}
const OptionSpec kHtml{"html", [](Options& o) -> Field { return &o.html; },
                       "also write the report with its figures as one self-contained HTML FILE"};
const OptionSpec kSvg{"svg", [](Options& o) -> Field { return &o.svg_dir; },
                      "also write every figure as an SVG file into DIR"};
const OptionSpec kExportJson{"export-json", [](Options& o) -> Field { return &o.export_json; },
                             "also write the report as JSON to FILE (as --json prints it)"};
OptionSpec export_csv(const char* help) {
  return {"export-csv", [](Options& o) -> Field { return &o.export_csv; }, help};
}
OptionSpec journal(const char* help = "also record every run in journal FILE "
                                      "(obscheck report FILE prints this report again)") {
  return {"journal", [](Options& o) -> Field { return &o.journal; }, help};
}
OptionSpec resume(const char* help) {
  return {"resume", [](Options& o) -> Field { return &o.resume; }, help};
}
OptionSpec allow_multiplex(const char* help) {
  return {"allow-multiplex", [](Options& o) -> Field { return &o.request.allow_multiplex; },
          help};
}
OptionSpec confidence(const char* help) {
  return {"confidence", [](Options& o) -> Field { return &o.confidence; }, help};
}
OptionSpec margin(const char* help) { return {"margin", word<Text>, help}; }
OptionSpec seed(const char* help) { return {"seed", word<Text>, help}; }
OptionSpec fail_on(const char* help = "exit 1 when a verdict is one of LIST, as the check "
                                      "(default perturbed,layout,incomparable)") {
  return {"fail-on", word<Text>, help};
}
OptionSpec verbose(const char* help) {
  return {"verbose,v", [](Options& o) -> Field { return &o.verbose; }, help};
}
OptionSpec time_budget(const char* help) { return {"time-budget", word<Text>, help}; }
OptionSpec run_as(const char* help) {
  return {"run-as", [](Options& o) -> Field { return &o.request.launch.run_as; }, help};
}
OptionSpec sample_freq(const char* help) {
  return {"sample-freq", [](Options& o) -> Field { return &o.sample_freq; },
          help};
}
OptionSpec sample_event(const char* help) {
  return {"sample-event", [](Options& o) -> Field { return &o.request.observer.sample_event; },
          help};
}
OptionSpec output(const char* help) {
  return {"output,o", [](Options& o) -> Field { return &o.output; }, help};
}
const OptionSpec kCi{"ci", word<Switch>,
                     "the gate for CI, which fails closed: exit 1 when any verdict is perturbed, "
                     "layout, incomparable or inconclusive "
                     "(--fail-on perturbed,layout,incomparable,inconclusive)"};
const OptionSpec kHelp{"help,h", word<TakesNothing>, "this help"};
const char* const kFullReport = "the full report: every level and layout, the A/A control, "
                                "counters, plots, host, methods (default: the answer on one "
                                "screen)";

// A run is one run of the program everywhere, and the counts are per configuration, as
// hyperfine's -r, -M and -w are per command: measure has one, bias and compare one per
// context and variant, a check one per level and layout (a block runs each once).
OptionGroupSpec counting(const char* runs, const char* warmup) {
  return {"Counting",
          {{"counters,e", word<Text>,
            "events to count: comma list, {a,b} groups (see obscheck events)"},
           {"events", word<Text>, "alias of --counters"},
           {"runs,r", [](Options& o) -> Field { return &o.request.runs; }, runs},
           {"warmup,w", [](Options& o) -> Field { return &o.request.warmup; }, warmup}}};
}

OptionGroupSpec target_group() {
  return {"Measurement context (held constant across runs)",
          {{"aslr", [](Options& o) -> Field { return &o.request.launch.aslr; },
            "leave address-space randomisation on (default: off for the target)"},
           {"cpu", [](Options& o) -> Field { return &o.request.launch.cpu; },
            "pin the target to CPU N"},
           {"env-pad", word<Text>,
            "pad the target's environment to exactly BYTES with one variable"},
           {"timeout", [](Options& o) -> Field { return &o.request.launch.timeout_s; },
            "kill the target's process group after SECONDS"},
           {"show-output", [](Options& o) -> Field { return &o.request.launch.show_output; },
            "let the target write to the terminal (default: captured and digested)"},
           run_as("run the target as USER (uid, gid, groups), set after the observers are "
                  "attached; needs root"),
           {"ignore-failure,i", [](Options& o) -> Field { return &o.request.ignore_failure; },
            "keep going when the target exits non-zero or is killed"}}};
}

// Where the counts come from: the host's perf_event (native) or a simulated PMU.
OptionGroupSpec backend_group() {
  return {"Backend",
          {{"backend", word<Text>,
            "native (perf_event on this host, default) | sim (valgrind cachegrind: a simulated "
            "PMU, deterministic)"},
           {"sim-cache", [](Options& o) -> Field { return &o.request.sim_cache; },
            "--backend sim geometry: D1=SIZE,ASSOC,LINE[,I1=...][,LL=...] (default: this "
            "host's caches)"}}};
}

OptionGroupSpec output_group() {
  return {"Output",
          {{"json", [](Options& o) -> Field { return &o.json; },
            "write JSON instead of text (measure and bias: every run's values; a check: the "
            "findings, its runs are in the journal)"},
           output("write the report to FILE instead of stdout"),
           {"color", [](Options& o) -> Field { return &o.color_when; },
            "colour the text: auto (a terminal without NO_COLOR, default) | always | never"},
           kHelp}};
}

OptionGroupSpec check_group() {
  return {"The check (sweep of observation doses)",
          {{"mode", word<Text>,
            "external (driver opens the counters, default) | inprocess (preloaded library, the "
            "paper's setup)"},
           margin("ε: \"not perturbed\" means within ±ε: 0.01 or 1% (default 1%)"),
           {"max-runs", [](Options& o) -> Field { return &o.request.max_runs; },
            "stop after this many measured runs of each configuration at the latest "
            "(default 2000)"},
           {"blocks", word<Count>,
            "= --runs: a block runs every configuration once, in a seeded order"},
           {"max-blocks", word<Count>, "= --max-runs, in blocks"},
           {"warmup-blocks", word<Count>, "= --warmup, in blocks"},
           time_budget("stop at the first look after SECONDS of runs (default 60; 0: no limit; "
                       "auto: sized after the warm-up to show ±margin, 10..600 s)"),
           {"decide-all", [](Options& o) -> Field { return &o.decide_all; },
            "run until every metric's verdict is decided, the rusage metrics too (default: the "
            "counters named and wall time)"},
           seed("seed for the run order, 0..2^64-1 (default: drawn and recorded)"),
           {"leftovers", word<Text>,
            "processes a run leaves running: kill (kill them and mark the run, default) | fail "
            "(also fail the run)"},
           {"allow-missing", [](Options& o) -> Field { return &o.request.allow_missing; },
            "drop counters this host cannot count (with a warning)"},
           allow_multiplex("compare a multiplexed counter's scaled values (verdict labelled "
                           "scaled) instead of calling it incomparable"),
           journal("journal FILE (default: a new file in the current directory)"),
           resume("continue the interrupted check recorded in FILE"),
           {"keep-output-head",
            [](Options& o) -> Field { return &o.request.launch.keep_output_head; },
            "keep the first line of the target's output (up to 200 bytes) in the journal; "
            "default: only its digest and size"},
           csv(), kHtml, kExportJson,
           export_csv("also write the report as CSV to FILE (as --csv prints it: one row per "
                      "comparison)"),
           fail_on("exit 1 when a verdict is one of LIST: perturbed,layout,incomparable,"
                   "inconclusive or none (default perturbed,layout,incomparable)"),
           kCi, verbose(kFullReport)}};
}

// The observers other than the counters (docs/design.md: observe/). The
// counters named with --counters are then the metrics, counted at every dose.
OptionGroupSpec observer_group() {
  return {"Observers (dose something other than the counter list)",
          {{"probes", [](Options& o) -> Field { return &o.probes; },
            "uprobes on SYM[,SYM...] (or LIB:SYM, or auto:N); dose = 0..N probes"},
           {"breakpoints", [](Options& o) -> Field { return &o.breakpoints; },
            "hardware execution breakpoints on SYM[,...]; dose = 0..N"},
           sample_freq("sampling frequencies in Hz, e.g. 0,100,1000,10000"),
           sample_event("the sampled event (default: cycles with a PMU, else cpu-clock)"),
           {"observer-cmd", [](Options& o) -> Field { return &o.request.observer.command; },
            "wrap the target in this profiler command; {level} is replaced (does tool X "
            "perturb my program: 'perf stat -x, -o /dev/null -e task-clock --' --levels 0,1); "
            "the target's own metrics are compared, the profiler's cost is reported"},
           {"levels", [](Options& o) -> Field { return &o.levels; },
            "--observer-cmd levels, e.g. 0,99,999,9999 (0 = not wrapped)"},
           {"build", [](Options& o) -> Field { return &o.request.observer.build; },
            "build one variant per dose: a command with {mask} and {out} (compile-time "
            "probes)"},
           {"probe-sites", [](Options& o) -> Field { return &o.request.observer.probe_sites; },
            "--build doses 0..N probe sites (default 8)"}}};
}

// bias / compare: the measurement contexts to sweep (Mytkowicz et al., "Observer Effect
// and Measurement Bias in Performance Analysis" §4.2, §5.2).
OptionGroupSpec context_group(bool compare) {
  OptionGroupSpec g{
      "Measurement contexts (bias / compare)",
      {{"env-sizes", word<Text>,
        "environment contexts: bytes of a dummy variable's value, FROM:TO:STEP or a,b,c "
        "(default 2:8192:390, the paper's)"},
       {"argv0-pads", word<Text>,
        "argv[0] contexts: extra bytes in argv[0], FROM:TO:STEP or a,b,c"},
       {"link", [](Options& o) -> Field { return &o.sweep.link_command; },
        "link-order contexts: link command template with {objects} and {out} (run without a "
        "shell)"},
       {"objects", word<Text>, "object files for --link, comma-separated, in their usual order"},
       {"link-orders", [](Options& o) -> Field { return &o.sweep.link_orders; },
        "number of link orders: the given one plus seeded random permutations"},
       {"contexts", [](Options& o) -> Field { return &o.sweep.contexts; },
        "measure a seeded random sample of N contexts (default: all)"},
       {"metric", [](Options& o) -> Field { return &o.sweep.metric; },
        "the metric the analysis is on (default: the first counter)"},
       allow_multiplex("analyse a multiplexed counter's scaled values (labelled scaled) "
                       "instead of calling the metric incomparable"),
       confidence("confidence level of intervals and tests (default 0.95)"),
       seed("seed for the context order and sample (default: drawn and reported)"),
       csv("write CSV, one row per run"), kHtml, kSvg, kExportJson,
       export_csv("also write every run as CSV to FILE (as --csv prints it)"),
       verbose("the full report: every context's mean and interval, the tests (default: one "
               "screen)")}};
  if (!compare) {
    g.options.push_back(fail_on("exit 1 when one of LIST is found: bias,failed,incomparable or "
                                "none (default bias,failed,incomparable)"));
    return g;
  }
  g.options.insert(
      g.options.end(),
      {margin("ε: \"no significant difference\" is backed by equivalence within ±ε: 0.01 or 1% "
              "(default 1%)"),
       {"aa", [](Options& o) -> Field { return &o.sweep.aa; },
        "also compare the baseline against itself in the same contexts, reported first"},
       {"allow-output-diff", [](Options& o) -> Field { return &o.allow_output_diff; },
        "compare the variants even where their outputs differ (they legitimately do: other "
        "options, other data); without it such contexts are incomparable"},
       fail_on("exit 1 when the outcome is one of LIST: worse,better,incomparable,aa or none "
               "(default incomparable,aa)")});
  return g;
}

// measure's own options: its output layouts and its journal.
OptionGroupSpec measure_group() {
  return {"Measure output",
          {{"field-separator,x", [](Options& o) -> Field { return &o.field_separator; },
            "perf stat's layout, fields separated by SEP (e.g. -x,)"},
           csv("write CSV, one row per metric with every summary value"),
           {"markdown", [](Options& o) -> Field { return &o.markdown; },
            "write the table as Markdown"},
           verbose("the full table: quartiles, ± sem, outliers, the interval's method "
                   "(default: one screen)"),
           kHtml, kExportJson,
           export_csv("also write the summary as CSV to FILE (as --csv prints it: one row per "
                      "metric)"),
           journal(), resume("continue the interrupted measure recorded in FILE")}};
}

OptionGroupSpec report_group() {
  return {"Report",
          {csv(), margin("re-judge with this ε: 0.01 or 1%"),
           {"markdown", [](Options& o) -> Field { return &o.markdown; },
            "write the verdict table as Markdown, for an issue or a lab report"},
           allow_multiplex("re-judge comparing multiplexed counters' scaled values (verdicts "
                           "labelled scaled)"),
           fail_on(), kCi, verbose(kFullReport), kHtml, kSvg, kExportJson,
           export_csv("also write the report as CSV to FILE (as --csv prints it)"),
           {"certificate", [](Options& o) -> Field { return &o.certificate; },
            "a profiler command's check as a certificate for a methods section or a CI gate: "
            "the command, the doses, each metric's bound or effect per dose, the sampling rate "
            "achieved and the kernel's throttling, the host (text; --json, --html FILE)"},
           {"allow-output-diff", [](Options& o) -> Field { return &o.allow_output_diff; },
            "a compare journal: compare the variants even where their outputs differ"}}};
}

// plan's, run's and slurm's own options (many hosts).
OptionGroupSpec run_group() {
  return {"Run a shard",
          {{"plan", [](Options& o) -> Field { return &o.plan_file; },
            "the plan FILE written by obscheck plan"},
           {"shard", word<Text>, "I/N: run shard I of N (I defaults to $SLURM_ARRAY_TASK_ID)"},
           journal("journal FILE (default: PLAN's name with .shard-I-of-N.jsonl); an existing "
                   "one of this shard is resumed"),
           time_budget("ignored: a plan runs its blocks"), fail_on()}};
}

OptionGroupSpec slurm_group() {
  return {"Slurm (everything after -- is the check: [options] PROG [ARGS...])",
          {{"shards", [](Options& o) -> Field { return &o.slurm.shards; },
            "array tasks, one shard of the plan each (default 4)"},
           {"nodes", word<Count>, "alias of --shards: one node per shard"},
           {"partition", [](Options& o) -> Field { return &o.slurm.partition; },
            "sbatch --partition"},
           {"time", [](Options& o) -> Field { return &o.slurm.time; },
            "sbatch --time for each shard, e.g. 30:00"},
           {"array-parallelism", [](Options& o) -> Field { return &o.slurm.array_parallelism; },
            "at most K shards at once (the %K of sbatch's array range 0-N%K)"},
           {"shared", word<Switch>,
            "let other jobs share a shard's node (default: a node to itself, sbatch's "
            "exclusive)"},
           {"dir", [](Options& o) -> Field { return &o.slurm.dir; },
            "directory for the plan, the scripts, the journals and the report (default "
            "obscheck-slurm-TIME)"},
           {"submit", [](Options& o) -> Field { return &o.slurm.submit; },
            "submit with sbatch: the array, then the merge once every shard succeeded"},
           kHelp}};
}

// fidelity: the doses, the event and how close a profile must come to the reference.
OptionGroupSpec fidelity_group() {
  return {"Profile fidelity (fidelity)",
          {sample_freq("perf record's sampling frequencies in Hz, one profile each (default "
                       "99,999)"),
           sample_event("the sampled event (default cpu-clock, a software event any host has)"),
           {"tolerance", [](Options& o) -> Field { return &o.tolerance; },
            "a function's share may differ from the reference's by this much (default 0.05: "
            "five share points)"},
           {"top", [](Options& o) -> Field { return &o.top; },
            "the hot list: this many functions with the largest shares (default 5)"},
           time_budget("profile in rounds until every dose is decided or a round would end "
                       "after SECONDS (default 60; 0: until decided, at most 1000 rounds)"),
           run_as("run the target as USER (uid, gid, groups), taken on at its exec; perf keeps "
                  "obscheck's privileges; needs root"),
           confidence("confidence level of the whole table of intervals, over every look "
                      "(default 0.95)")}};
}

OptionGroupSpec events_group() {
  return {"Events",
          {{"all", [](Options& o) -> Field { return &o.all; },
            "every event of every PMU, not only obscheck's names"},
           {"encode", [](Options& o) -> Field { return &o.encode; },
            "show the perf_event_attr each event of LIST is programmed with, its group and "
            "what it resolved through (as perf stat -vv shows it)"}}};
}

OptionGroupSpec journals_group() {
  return {"Journals",
          {{"clean", [](Options& o) -> Field { return &o.clean; },
            "remove them (and the demo's directories), but what a running obscheck is "
            "writing"}}};
}

// The check's groups, which plan shares, with `last` (Output, or plan's own) at the end.
std::vector<OptionGroupSpec> check_groups(OptionGroupSpec last) {
  return {counting("measured runs of each configuration: a fixed number of blocks (default: "
                   "sequential looks, see --max-runs)",
                   "warm-up runs of each configuration, not analysed (default 1)"),
          check_group(), observer_group(), backend_group(), target_group(), std::move(last)};
}

}  // namespace

std::vector<OptionGroupSpec> option_groups(Command c) {
  switch (c) {
    case Command::measure:
      return {counting("measured runs (default 10)", "warm-up runs, not analysed (default 1)"),
              backend_group(), target_group(), measure_group(), output_group()};
    case Command::check:
    case Command::demo:
      return check_groups(output_group());
    case Command::plan:
      return check_groups({"Plan",
                           {output("write the plan to FILE (default obscheck-plan.json)"),
                            kHelp}});
    case Command::events: return {events_group(), backend_group(), output_group()};
    case Command::report: return {report_group(), output_group()};
    case Command::run: return {run_group(), output_group()};
    case Command::slurm: return {slurm_group()};
    case Command::fidelity: return {fidelity_group(), output_group()};
    case Command::journals: return {journals_group(), output_group()};
    case Command::bias:
    case Command::compare:
      return {counting("measured runs of each context and variant (default 5)",
                       "warm-up runs of each context and variant, not analysed (default 1)"),
              context_group(c == Command::compare),
              backend_group(),
              target_group(),
              {"Journal", {journal(), resume("continue the interrupted sweep recorded in FILE")}},
              output_group()};
    default: return {output_group()};
  }
}

}  // namespace obscheck
