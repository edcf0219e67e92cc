#include "cli/options.h"

#include <unistd.h>

#include <fmt/core.h>

#include <boost/program_options.hpp>
#include <cstdlib>
#include <map>
#include <optional>
#include <sstream>
#include <tuple>

#include "job/request_bounds.h"
#include "util/words.h"
#include "util/error.h"

namespace po = boost::program_options;

namespace obscheck {
namespace {

// Defaults, each with its reason.
// 10 measured runs: enough for a five-number summary and a bootstrap CI of the
// median, few enough for a quick look (Rechistov, "Pitfalls of measuring software performance" asks for ≥ 30 before concluding;
// the check command sizes itself sequentially instead).
constexpr int kDefaultMeasureRuns = 10;

const std::map<std::string, Command> kCommands = {
    {"check", Command::check},   {"measure", Command::measure}, {"events", Command::events},
    {"doctor", Command::doctor}, {"report", Command::report},   {"demo", Command::demo},
    {"bias", Command::bias},     {"compare", Command::compare}, {"completion", Command::completion},
    {"plan", Command::plan},     {"run", Command::run},         {"slurm", Command::slurm},
    {"fidelity", Command::fidelity}, {"journals", Command::journals},
};

// A check's block-named options and the run-named twins they equal (a block runs each
// configuration once, so N runs of each configuration are N blocks); a resume and the
// journal know them by the twin's name.
constexpr std::pair<const char*, const char*> kBlockAliases[] = {
    {"blocks", "runs"}, {"max-blocks", "max-runs"}, {"warmup-blocks", "warmup"}};

// The run-named twin of a block-named option, else `name`.
std::string twin_of(const std::string& name) {
  for (const auto& [alias, twin] : kBlockAliases)
    if (name == alias) return twin;
  return name;
}

const char* kUsage[] = {
    "usage: obscheck [options] [--] PROG [ARGS...]       does measuring PROG change what is measured?",
    "       obscheck measure [options] [--] PROG [ARGS...] count PROG's events over repeated runs",
    "       obscheck events [--all] [--json]             which events this host can count, and why not",
    "       obscheck events --encode LIST [--json]       what each event of LIST programs (perf_event_attr)",
    "       obscheck doctor [--json]                      host noise sources and how to fix them",
    "       obscheck report FILE [--json|--csv]           re-analyse a saved journal",
    "       obscheck report FILE --certificate [--json]  a profiler command's check as a certificate (--html F)",
    "       obscheck demo                                 the check on a bundled workload, then the layout effect",
    "       obscheck bias [options] -- PROG [ARGS...]     how far PROG's metric swings across measurement contexts",
    "       obscheck compare [options] -- BASE [ARGS...] ::: CONTENDER [ARGS...]   compare two variants over sampled contexts",
    "       obscheck plan [options] [--] PROG [ARGS...]  write a check's plan for several hosts (-o FILE)",
    "       obscheck run --plan FILE --shard I/N          run shard I of N of a plan on this host",
    "       obscheck slurm [slurm options] -- [options] PROG [ARGS...]   the plan and sbatch scripts for a Slurm job array",
    "       obscheck report SHARD.jsonl...               merge the shards of a plan, the host as a factor",
    "       obscheck fidelity [options] -- PROG [ARGS...] is perf record's profile of PROG right at each rate?",
    "       obscheck journals [--clean]                   the checks' journals in your state directory (--clean: remove them)",
    "       obscheck completion bash|zsh                  the shell completion script",
    "       obscheck --version                            the version (also -V)",
};

// A titled group of options, declared as po's add_options() declares them:
// OptionGroup("Title")("name", value, "what")...; an option several commands share is
// declared by its own method, with the command's text where their texts differ.
struct OptionGroup : po::options_description {
  explicit OptionGroup(const std::string& title) : po::options_description(title) {}
  template <class... Args>
  OptionGroup& operator()(Args&&... args) {
    add_options()(std::forward<Args>(args)...);
    return *this;
  }
  OptionGroup& csv(Options& o, const char* what = "write CSV") { return (*this)("csv", po::bool_switch(&o.csv), what); }
  OptionGroup& html(Options& o) { return (*this)("html", po::value(&o.html), "also write the report with its figures as one self-contained HTML FILE"); }
  OptionGroup& exports(Options& o, const char* csv_what) {
    return (*this)("export-json", po::value(&o.export_json), "also write the report as JSON to FILE (as --json prints it)")
        ("export-csv", po::value(&o.export_csv), csv_what);
  }
  OptionGroup& svg(Options& o) { return (*this)("svg", po::value(&o.svg_dir), "also write every figure as an SVG file into DIR"); }
  OptionGroup& journal(Options& o, const char* what = "also record every run in journal FILE (obscheck report FILE prints this report again)") { return (*this)("journal", po::value(&o.journal), what); }
  OptionGroup& resume(Options& o, const std::string& job) { return (*this)("resume", po::value(&o.resume), ("continue the interrupted " + job + " recorded in FILE").c_str()); }
  OptionGroup& allow_multiplex(Options& o, const char* what) { return (*this)("allow-multiplex", po::bool_switch(&o.request.allow_multiplex), what); }
  OptionGroup& margin(Options&, const char* what) { return (*this)("margin", po::value<std::string>(), what); }
  OptionGroup& confidence(Options& o, const char* what) { return (*this)("confidence", po::value(&o.confidence), what); }
  OptionGroup& seed(const char* what) { return (*this)("seed", po::value<std::string>(), what); }
  OptionGroup& fail_on(const char* what = "exit 1 when a verdict is one of LIST, as the check (default perturbed,layout,incomparable)") { return (*this)("fail-on", po::value<std::string>(), what); }
  OptionGroup& ci() { return (*this)("ci", po::bool_switch(), "the gate for CI, which fails closed: exit 1 when any verdict is perturbed, layout, incomparable or inconclusive (--fail-on perturbed,layout,incomparable,inconclusive)"); }
  OptionGroup& help() { return (*this)("help,h", "this help"); }
};

po::options_description target_options(Options& o) {
  return OptionGroup("Measurement context (held constant across runs)")
      ("aslr", po::bool_switch(&o.request.launch.aslr), "leave address-space randomisation on (default: off for the target)")
      ("cpu", po::value(&o.request.launch.cpu), "pin the target to CPU N")
      ("env-pad", po::value<std::string>(), "pad the target's environment to exactly BYTES with one variable")
      ("timeout", po::value(&o.request.launch.timeout_s), "kill the target's process group after SECONDS")
      ("show-output", po::bool_switch(&o.request.launch.show_output), "let the target write to the terminal (default: captured and digested)")
      ("run-as", po::value(&o.request.launch.run_as), "run the target as USER (uid, gid, groups), set after the observers are attached; needs root")
      ("ignore-failure,i", po::bool_switch(&o.request.ignore_failure), "keep going when the target exits non-zero or is killed");
}

// A run is one run of the program everywhere, and the counts are per configuration, as
// hyperfine's -r, -M and -w are per command: measure has one, bias and compare one per
// context and variant, a check one per level and layout (a block runs each once).
po::options_description counting_options(Options& o, int default_runs, const char* of_each = "") {
  const std::string runs = default_runs > 0 ? fmt::format("measured runs{} (default {})", of_each, default_runs)
                                            : fmt::format("measured runs{}: a fixed number of blocks (default: "
                                                          "sequential looks, see --max-runs)", of_each);
  const std::string warmup = fmt::format("warm-up runs{}, not analysed (default 1)", of_each);
  return OptionGroup("Counting")
      ("counters,e", po::value<std::string>(), "events to count: comma list, {a,b} groups (see obscheck events)")
      ("events", po::value<std::string>(), "alias of --counters")
      ("runs,r", po::value(&o.request.runs), runs.c_str())
      ("warmup,w", po::value(&o.request.warmup), warmup.c_str());
}

// Where the counts come from: the host's perf_event (native) or a simulated PMU.
po::options_description backend_options(Options& o) {
  return OptionGroup("Backend")
      ("backend", po::value<std::string>(), "native (perf_event on this host, default) | sim (valgrind cachegrind: a simulated PMU, deterministic)")
      ("sim-cache", po::value(&o.request.sim_cache), "--backend sim geometry: D1=SIZE,ASSOC,LINE[,I1=...][,LL=...] (default: this host's caches)");
}

po::options_description output_options(Options& o) {
  return OptionGroup("Output")
      ("json", po::bool_switch(&o.json), "write JSON instead of text (measure and bias: every run's values; a check: the findings, its runs are in the journal)")
      ("output,o", po::value(&o.output), "write the report to FILE instead of stdout")
      ("color", po::value(&o.color_when), "colour the text: auto (a terminal without NO_COLOR, default) | always | never")
      .help();
}

po::options_description check_options(Options& o) {
  return OptionGroup("The check (sweep of observation doses)")
      ("mode", po::value<std::string>(), "external (driver opens the counters, default) | inprocess (preloaded library, the paper's setup)")
      .margin(o, "ε: \"not perturbed\" means within ±ε: 0.01 or 1% (default 1%)")
      ("max-runs", po::value(&o.request.max_runs), "stop after this many measured runs of each configuration at the latest (default 2000)")
      ("blocks", po::value<int>(), "= --runs: a block runs every configuration once, in a seeded order")
      ("max-blocks", po::value<int>(), "= --max-runs, in blocks")
      ("warmup-blocks", po::value<int>(), "= --warmup, in blocks")
      ("time-budget", po::value<std::string>(), "stop at the first look after SECONDS of runs (default 60; 0: no limit; auto: sized after the warm-up to show ±margin, 10..600 s)")
      ("decide-all", po::bool_switch(&o.decide_all), "run until every metric's verdict is decided, the rusage metrics too (default: the counters named and wall time)")
      .seed("seed for the run order, 0..2^64-1 (default: drawn and recorded)")
      ("leftovers", po::value<std::string>(), "processes a run leaves running: kill (kill them and mark the run, default) | fail (also fail the run)")
      ("allow-missing", po::bool_switch(&o.request.allow_missing), "drop counters this host cannot count (with a warning)")
      .allow_multiplex(o, "compare a multiplexed counter's scaled values (verdict labelled scaled) instead of calling it incomparable")
      .journal(o, "journal FILE (default: a new file in the current directory)").resume(o, "check")
      ("keep-output-head", po::bool_switch(&o.request.launch.keep_output_head), "keep the first line of the target's output (up to 200 bytes) in the journal; default: only its digest and size")
      .csv(o).html(o).exports(o, "also write the report as CSV to FILE (as --csv prints it: one row per comparison)")
      .fail_on("exit 1 when a verdict is one of LIST: perturbed,layout,incomparable,inconclusive or none (default perturbed,layout,incomparable)").ci()
      ("verbose,v", po::bool_switch(&o.verbose), "the full report: every level and layout, the A/A control, counters, plots, host, methods (default: the answer on one screen)");
}

// The observers other than the counters (docs/design.md: observe/). The
// counters named with --counters are then the metrics, counted at every dose.
po::options_description observer_options(Options& o) {
  return OptionGroup("Observers (dose something other than the counter list)")
      ("probes", po::value(&o.probes), "uprobes on SYM[,SYM...] (or LIB:SYM, or auto:N); dose = 0..N probes")
      ("breakpoints", po::value(&o.breakpoints), "hardware execution breakpoints on SYM[,...]; dose = 0..N")
      ("sample-freq", po::value(&o.request.observer.frequencies), "sampling frequencies in Hz, e.g. 0,100,1000,10000")
      ("sample-event", po::value(&o.request.observer.sample_event), "the sampled event (default: cycles with a PMU, else cpu-clock)")
      ("observer-cmd", po::value(&o.request.observer.command), "wrap the target in this profiler command; {level} is replaced (does tool X perturb my program: 'perf stat -x, -o /dev/null -e task-clock --' --levels 0,1); the target's own metrics are compared, the profiler's cost is reported")
      ("levels", po::value(&o.request.observer.levels), "--observer-cmd levels, e.g. 0,99,999,9999 (0 = not wrapped)")
      ("build", po::value(&o.request.observer.build), "build one variant per dose: a command with {mask} and {out} (compile-time probes)")
      ("probe-sites", po::value(&o.request.observer.probe_sites), "--build doses 0..N probe sites (default 8)");
}

// bias / compare: the measurement contexts to sweep (Mytkowicz et al., "Observer Effect and Measurement Bias in Performance Analysis" §4.2, §5.2).
po::options_description context_options(Options& o, bool compare) {
  OptionGroup d("Measurement contexts (bias / compare)");
  d("env-sizes", po::value<std::string>(), "environment contexts: bytes of a dummy variable's value, FROM:TO:STEP or a,b,c (default 2:8192:390, the paper's)")
      ("argv0-pads", po::value<std::string>(), "argv[0] contexts: extra bytes in argv[0], FROM:TO:STEP or a,b,c")
      ("link", po::value(&o.sweep.link_command), "link-order contexts: link command template with {objects} and {out} (run without a shell)")
      ("objects", po::value<std::string>(), "object files for --link, comma-separated, in their usual order")
      ("link-orders", po::value(&o.sweep.link_orders), "number of link orders: the given one plus seeded random permutations")
      ("contexts", po::value(&o.sweep.contexts), "measure a seeded random sample of N contexts (default: all)")
      ("metric", po::value(&o.sweep.metric), "the metric the analysis is on (default: the first counter)")
      .allow_multiplex(o, "analyse a multiplexed counter's scaled values (labelled scaled) instead of calling the metric incomparable")
      .confidence(o, "confidence level of intervals and tests (default 0.95)")
      .seed("seed for the context order and sample (default: drawn and reported)")
      .csv(o, "write CSV, one row per run").html(o).svg(o)
      .exports(o, "also write every run as CSV to FILE (as --csv prints it)")
      ("verbose,v", po::bool_switch(&o.verbose), "the full report: every context's mean and interval, the tests (default: one screen)");
  if (compare)
    d.margin(o, "ε: \"no significant difference\" is backed by equivalence within ±ε: 0.01 or 1% (default 1%)")
        ("aa", po::bool_switch(&o.sweep.aa), "also compare the baseline against itself in the same contexts, reported first")
        ("allow-output-diff", po::bool_switch(&o.allow_output_diff), "compare the variants even where their outputs differ (they legitimately do: other options, other data); without it such contexts are incomparable")
        .fail_on("exit 1 when the outcome is one of LIST: worse,better,incomparable,aa or none (default incomparable,aa)");
  else
    d.fail_on("exit 1 when one of LIST is found: bias,failed,incomparable or none (default bias,failed,incomparable)");
  return d;
}

// measure's own options: its output layouts and its journal.
po::options_description measure_options(Options& o) {
  return OptionGroup("Measure output")
      ("field-separator,x", po::value(&o.field_separator), "perf stat's layout, fields separated by SEP (e.g. -x,)")
      .csv(o, "write CSV, one row per metric with every summary value")
      ("markdown", po::bool_switch(&o.markdown), "write the table as Markdown")
      ("verbose,v", po::bool_switch(&o.verbose), "the full table: quartiles, ± sem, outliers, the interval's method (default: one screen)")
      .html(o).exports(o, "also write the summary as CSV to FILE (as --csv prints it: one row per metric)")
      .journal(o).resume(o, "measure");
}

// report's own options.
po::options_description report_options(Options& o) {
  return OptionGroup("Report").csv(o).margin(o, "re-judge with this ε: 0.01 or 1%")
      ("markdown", po::bool_switch(&o.markdown), "write the verdict table as Markdown, for an issue or a lab report")
      .allow_multiplex(o, "re-judge comparing multiplexed counters' scaled values (verdicts labelled scaled)")
      .fail_on().ci()
      ("verbose,v", po::bool_switch(&o.verbose), "the full report: every level and layout, the A/A control, counters, plots, host, methods (default: the answer on one screen)")
      .html(o).svg(o).exports(o, "also write the report as CSV to FILE (as --csv prints it)")
      ("certificate", po::bool_switch(&o.certificate), "a profiler command's check as a certificate for a methods section or a CI gate: the command, the doses, each metric's bound or effect per dose, the sampling rate achieved and the kernel's throttling, the host (text; --json, --html FILE)")
      ("allow-output-diff", po::bool_switch(&o.allow_output_diff), "a compare journal: compare the variants even where their outputs differ");
}

// plan's, run's and slurm's own options (many hosts).
po::options_description plan_options(Options& o) {
  return OptionGroup("Plan")("output,o", po::value(&o.output), "write the plan to FILE (default obscheck-plan.json)").help();
}

po::options_description run_options(Options& o) {
  return OptionGroup("Run a shard")("plan", po::value(&o.plan_file), "the plan FILE written by obscheck plan")
      ("shard", po::value<std::string>(), "I/N: run shard I of N (I defaults to $SLURM_ARRAY_TASK_ID)")
      .journal(o, "journal FILE (default: PLAN's name with .shard-I-of-N.jsonl); an existing one of this shard is resumed")
      ("time-budget", po::value<std::string>(), "ignored: a plan runs its blocks")
      .fail_on();
}

po::options_description slurm_options(Options& o) {
  return OptionGroup("Slurm (everything after -- is the check: [options] PROG [ARGS...])")("shards", po::value(&o.slurm.shards), "array tasks, one shard of the plan each (default 4)")
      ("nodes", po::value<int>(), "alias of --shards: one node per shard")
      ("partition", po::value(&o.slurm.partition), "sbatch --partition")
      ("time", po::value(&o.slurm.time), "sbatch --time for each shard, e.g. 30:00")
      ("array-parallelism", po::value(&o.slurm.array_parallelism), "at most K shards at once (the %K of sbatch's array range 0-N%K)")
      ("shared", po::bool_switch(), "let other jobs share a shard's node (default: a node to itself, sbatch's exclusive)")
      ("dir", po::value(&o.slurm.dir), "directory for the plan, the scripts, the journals and the report (default obscheck-slurm-TIME)")
      ("submit", po::bool_switch(&o.slurm.submit), "submit with sbatch: the array, then the merge once every shard succeeded")
      .help();
}

// bias's and compare's journal.
po::options_description sweep_journal_options(Options& o) {
  return OptionGroup("Journal").journal(o).resume(o, "sweep");
}

// fidelity: the doses, the event and how close a profile must come to the reference.
po::options_description fidelity_options(Options& o) {
  return OptionGroup("Profile fidelity (fidelity)")
      ("sample-freq", po::value(&o.request.observer.frequencies), "perf record's sampling frequencies in Hz, one profile each (default 99,999)")
      ("sample-event", po::value(&o.request.observer.sample_event), "the sampled event (default cpu-clock, a software event any host has)")
      ("tolerance", po::value(&o.tolerance), "a function's share may differ from the reference's by this much (default 0.05: five share points)")
      ("top", po::value(&o.top), "the hot list: this many functions with the largest shares (default 5)")
      ("time-budget", po::value<std::string>(), "profile in rounds until every dose is decided or a round would end after SECONDS (default 60; 0: until decided, at most 1000 rounds)")
      ("run-as", po::value(&o.request.launch.run_as), "run the target as USER (uid, gid, groups), taken on at its exec; perf keeps obscheck's privileges; needs root")
      .confidence(o, "confidence level of the whole table of intervals, over every look (default 0.95)");
}

// Command c's options, each stored into its member of `o` as the words are parsed
// (po::notify); the few stored otherwise are read by the take_* below.
po::options_description options_for(Command c, Options& o) {
  po::options_description all;
  switch (c) {
    case Command::measure:
      all.add(counting_options(o, kDefaultMeasureRuns)).add(backend_options(o)).add(target_options(o)).add(measure_options(o))
          .add(output_options(o));
      break;
    case Command::check:
    case Command::demo:
      all.add(counting_options(o, 0, " of each configuration")).add(check_options(o)).add(observer_options(o)).add(backend_options(o))
          .add(target_options(o)).add(output_options(o));
      break;
    case Command::events:
      all.add(OptionGroup("Events")("all", po::bool_switch(&o.all), "every event of every PMU, not only obscheck's names")
              ("encode", po::value(&o.encode), "show the perf_event_attr each event of LIST is programmed with, "
                                               "its group and what it resolved through (as perf stat -vv shows it)"))
          .add(backend_options(o)).add(output_options(o));
      break;
    case Command::report:
      all.add(report_options(o)).add(output_options(o));
      break;
    case Command::plan:
      all.add(counting_options(o, 0, " of each configuration")).add(check_options(o)).add(observer_options(o)).add(backend_options(o))
          .add(target_options(o)).add(plan_options(o));
      break;
    case Command::run:
      all.add(run_options(o)).add(output_options(o));
      break;
    case Command::slurm:
      all.add(slurm_options(o));
      break;
    case Command::fidelity:
      all.add(fidelity_options(o)).add(output_options(o));
      break;
    case Command::journals:
      all.add(OptionGroup("Journals")("clean", po::bool_switch(&o.clean), "remove them (and the demo's directories), but what a running obscheck is writing"))
          .add(output_options(o));
      break;
    case Command::bias:
    case Command::compare:
      all.add(counting_options(o, 5, " of each context and variant")).add(context_options(o, c == Command::compare)).add(backend_options(o))
          .add(target_options(o)).add(sweep_journal_options(o)).add(output_options(o));
      break;
    default:
      all.add(output_options(o));
  }
  return all;
}

const char* command_name(Command c) {
  for (const auto& [name, cmd] : kCommands)
    if (cmd == c) return name.c_str();
  return "check";
}


std::string help_for(Command c) {
  std::ostringstream out;
  for (const char* line : kUsage) out << line << '\n';
  Options unread;
  out << '\n' << options_for(c, unread);
  if (c == Command::check || c == Command::measure || c == Command::bias || c == Command::compare)
    out << "\nEverything after PROG (or after --) is passed to PROG untouched. PROG is never run\n"
           "through a shell.\n";
  out << "\nExit codes: 0 ok, 1 findings (what --fail-on names), 2 usage, 3 target, 4 event,\n"
         "5 target failed, 6 io, 7 host, 8 busy, 129 hangup, 130 interrupted, 143 terminated\n"
         "(man obscheck, EXIT STATUS).\n";
  return out.str();
}

// Splits our options from the target: the target starts at "--" or at the first
// word that is neither an option nor an option's value (as perf stat does), so
// PROG's own options are never taken for ours.
void split_target(const std::vector<std::string>& words, const po::options_description& desc,
                  std::vector<std::string>& ours, std::vector<std::string>& target) {
  for (std::size_t i = 0; i < words.size(); ++i) {
    const std::string& w = words[i];
    if (w == "--") {
      target.assign(words.begin() + static_cast<long>(i) + 1, words.end());
      return;
    }
    if (w.size() < 2 || w[0] != '-') {
      target.assign(words.begin() + static_cast<long>(i), words.end());
      return;
    }
    ours.push_back(w);
    const bool is_long = w.rfind("--", 0) == 0;
    if (is_long) {
      if (w.find('=') != std::string::npos) continue;
      const po::option_description* opt = desc.find_nothrow(w.substr(2), false, false, false);
      if (opt && opt->semantic()->max_tokens() > 0 && i + 1 < words.size()) ours.push_back(words[++i]);
      continue;
    }
    // Short options bundle as getopt's do: "-iw 2" is -i -w 2, "-r10" is -r 10. The
    // first letter that takes a value ends the bundle: the rest of the word is its
    // value, or the next word when nothing is left.
    for (std::size_t k = 1; k < w.size(); ++k) {
      const po::option_description* opt = desc.find_nothrow(std::string("-") + w[k], false, false, false);
      if (!opt || opt->semantic()->max_tokens() == 0) continue;
      if (k + 1 == w.size() && i + 1 < words.size()) ours.push_back(words[++i]);
      break;
    }
  }
}

// Every value in its range, checked before the first run, so that a refused command
// line writes nothing (no journal, no build variant): job/request_bounds.h. The counter
// list and --leftovers are read into the request here, in the order they are checked.
void validate(const po::variables_map& vm, Options& o) {
  const auto given = [&](const char* name) {
    if (vm.count(name) > 0) return true;
    for (const auto& [alias, twin] : kBlockAliases)
      if (std::string(twin) == name && vm.count(alias) > 0) return true;
    return false;
  };
  const auto when = [&](const char* name, auto value) { return given(name) ? std::optional(value) : std::nullopt; };
  const CheckRequest& r = o.request;
  AskedValues v{.runs = when("runs", r.runs), .max_runs = when("max-runs", r.max_runs), .warmup = r.warmup,
                .warmup_given = given("warmup"), .link_orders = when("link-orders", o.sweep.link_orders),
                .contexts = when("contexts", o.sweep.contexts), .cpu = when("cpu", r.launch.cpu),
                .levels = when("levels", r.observer.levels), .timeout_s = when("timeout", r.launch.timeout_s),
                .margin = r.margin, .time_budget = r.time_budget, .confidence = o.confidence, .event_lists = {}};
  const char* counters = vm.count("events") ? "events" : "counters";  // one of them (take_alias)
  if (given(counters)) v.event_lists.emplace_back(counters, vm[counters].as<std::string>());
  if (given("sample-event")) v.event_lists.emplace_back("sample-event", r.observer.sample_event);
  const std::vector<CounterList> lists = check_asked_values(v);
  if (given(counters)) o.request.counters = lists.front();
  if (vm.count("leftovers")) o.request.leftovers = leftovers_from_string(vm["leftovers"].as<std::string>());
}

// The words of a command that runs a target, split at the target (split_target); a
// slurm's, at "--" (after it a whole check command line); any other's, all ours.
void split_words(const std::vector<std::string>& words, const po::options_description& desc, Options& o,
                 bool takes_target, std::vector<std::string>& ours, std::vector<std::string>& rest) {
  if (takes_target) {
    split_target(words, desc, ours, rest);
  } else if (o.command == Command::slurm) {
    // Ours up to "--"; after it a whole check command line, parsed as obscheck plan's.
    const auto dash = std::find(words.begin(), words.end(), std::string("--"));
    ours.assign(words.begin(), dash);
    if (dash != words.end()) o.check_args.assign(dash + 1, words.end());
  } else {
    ours = words;
  }
}

// boost::program_options over our words; its errors become usage errors naming the command.
po::variables_map store_options(const std::vector<std::string>& ours, const po::options_description& desc,
                                Options& o) {
  const Command command = o.command;
  po::variables_map vm;
  po::positional_options_description positional;
  if (command == Command::report) positional.add("journal-file", -1);
  if (command == Command::completion) positional.add("shell", 1);
  po::options_description parse_desc;  // desc, and the positional words' hidden options
  parse_desc.add(desc).add(OptionGroup("")("journal-file", po::value(&o.report_files))("shell", po::value(&o.shell)));
  try {
    po::store(po::command_line_parser(ours)
                  .options(parse_desc)
                  .positional(positional)
                  .style(po::command_line_style::default_style & ~po::command_line_style::allow_guessing)
                  .run(),
              vm);
    po::notify(vm);
  } catch (const po::error& e) {
    throw Error(ErrorKind::usage, std::string("obscheck ") + command_name(command) + ": " + e.what(),
                std::string("see: obscheck ") + (command == Command::check ? "" : command_name(command)) +
                    (command == Command::check ? "--help" : " --help"));
  }
  return vm;
}

// The options that are not stored where they are declared (po::value(&o.member)): the
// ones read into an enum or a number from their text, the aliases that refuse their
// twin, and the switches that say the opposite of their member.
// --mode and --backend, read once into their enums by their own parsers.
void take_mode_and_backend(const po::variables_map& vm, Options& o) {
  if (vm.count("mode")) o.request.mode = counting_mode_from_string(vm["mode"].as<std::string>());
  if (vm.count("backend")) o.request.backend = backend_from_string(vm["backend"].as<std::string>());
}

// An alias (--events, --nodes) read into its twin's member; refused beside its twin,
// since neither would say which of the two values is meant.
template <class T>
void take_alias(const po::variables_map& vm, const char* alias, const char* twin, T& member) {
  if (!vm.count(alias)) return;
  if (vm.count(twin)) throw Error(ErrorKind::usage, fmt::format("--{} and --{} are the same option: give one", twin, alias));
  member = vm[alias].as<T>();
}

// What to count, how often, and the analysis' knobs.
void take_counting(const po::variables_map& vm, Options& o) {
  if (vm.count("events") && vm.count("counters"))
    throw Error(ErrorKind::usage, "--counters and --events are the same option: give one");
  for (const auto& [alias, twin] : kBlockAliases)
    take_alias(vm, alias, twin, twin == std::string("runs")       ? o.request.runs
                                : twin == std::string("max-runs") ? o.request.max_runs
                                                                  : o.request.warmup);
  o.runs_given = vm.count("runs") > 0 || vm.count("blocks") > 0;
  o.request.warmup_given = vm.count("warmup") > 0 || vm.count("warmup-blocks") > 0;
  if (vm.count("time-budget")) {
    const std::string budget = vm["time-budget"].as<std::string>();
    o.time_budget_auto = budget == "auto";
    if (!o.time_budget_auto) o.request.time_budget = parse_seconds("--time-budget", budget);
  }
  if (vm.count("seed")) {
    o.request.seed = parse_whole_number("seed", vm["seed"].as<std::string>());
    o.request.seed_given = true;
  }
  take_mode_and_backend(vm, o);
  o.margin_given = vm.count("margin") > 0;
  if (o.margin_given) o.request.margin = parse_margin(vm["margin"].as<std::string>());
  const ObserverRequest& r = o.request.observer;
  check_asked_observer(
      {o.probes, o.breakpoints, r.frequencies, r.command, r.levels, r.build, vm.count("observer-cmd") > 0, r.probe_sites});
}

// How the target is started, where the report goes, and the hosts' options.
void take_launch_and_files(const po::variables_map& vm, Options& o) {
  if (vm.count("env-pad")) o.request.launch.env_pad = parse_whole_number("env-pad", vm["env-pad"].as<std::string>());
  if (vm.count("run-as") && o.request.launch.run_as.empty()) throw Error(ErrorKind::usage, "--run-as needs a user name");
  if (vm.count("field-separator") && o.field_separator.empty())
    throw Error(ErrorKind::usage, "-x needs a separator", "e.g. -x, or -x ';'");
  if (o.color_when != "auto" && o.color_when != "always" && o.color_when != "never")
    throw Error(ErrorKind::usage, "--color must be auto, always or never, not '" + o.color_when + "'");
  if (!o.report_files.empty()) o.report_file = o.report_files.front();
  if (vm.count("shard")) {
    const char* task = std::getenv("SLURM_ARRAY_TASK_ID");
    std::tie(o.shard_index, o.shard_count) = parse_shard(vm["shard"].as<std::string>(), task ? task : "");
  }
  take_alias(vm, "nodes", "shards", o.slurm.shards);
  if (vm.count("shared")) o.slurm.exclusive = !vm["shared"].as<bool>();
  check_fidelity_bounds(o.tolerance, o.top);
  if (vm.count("fail-on"))
    o.fail_on = fail_on_outcomes(o.command == Command::compare ? FailOnOf::compare
                                 : o.command == Command::bias  ? FailOnOf::bias
                                                               : FailOnOf::check,
                                 vm["fail-on"].as<std::string>());
  if (vm.count("ci") && vm["ci"].as<bool>()) o.fail_on = ci_fail_on(vm.count("fail-on") > 0);
}

// bias's and compare's lists, each parsed and bounded once into the sweep's request.
void take_sweep_lists(const po::variables_map& vm, Options& o) {
  const auto text = [&](const char* name) { return vm.count(name) ? vm[name].as<std::string>() : std::string(); };
  if (const std::string t = text("env-sizes"); !t.empty()) o.sweep.env_sizes = parse_env_sizes(t);
  if (const std::string t = text("argv0-pads"); !t.empty()) o.sweep.argv0_pads = parse_argv0_pads(t);
  o.sweep.link_objects = split_commas(text("objects"));
}

// Options that exclude one another, or only go with another.
void check_combinations(Options& o) {
  if (o.command == Command::measure && o.request.runs == 0) o.request.runs = kDefaultMeasureRuns;
  if (!o.request.sim_cache.empty() && o.request.backend != BackendKind::sim)
    throw Error(ErrorKind::usage, "--sim-cache goes with --backend sim");
  if (o.json && o.csv) throw Error(ErrorKind::usage, "--json and --csv: choose one");
  if (o.markdown && (o.json || o.csv)) throw Error(ErrorKind::usage, "--markdown, --json and --csv: choose one");
  if (!o.field_separator.empty() && (o.json || o.csv || o.markdown))
    throw Error(ErrorKind::usage, "-x, --markdown, --json and --csv: choose one");
}

// What each command cannot do without.
void check_command_needs(Options& o, bool takes_target) {
  if (takes_target && o.target.empty() && o.resume.empty() && o.request.observer.build.empty())
    throw Error(ErrorKind::usage, std::string("obscheck ") + command_name(o.command) + ": no program to run",
                "usage: obscheck " + std::string(o.command == Command::measure ? "measure " : o.command == Command::fidelity ? "fidelity " : "") +
                    "[options] [--] PROG [ARGS...]");
  if (o.command == Command::completion && o.shell != "bash" && o.shell != "zsh")
    throw Error(ErrorKind::usage, "obscheck completion: which shell? bash or zsh, not '" + o.shell + "'",
                "obscheck completion bash > /etc/bash_completion.d/obscheck");
  if (o.command == Command::run && (o.plan_file.empty() || o.shard_count == 0))
    throw Error(ErrorKind::usage, "obscheck run: which plan and which shard?",
                "usage: obscheck run --plan FILE --shard I/N");
  if (o.command == Command::slurm) {
    if (o.check_args.empty())
      throw Error(ErrorKind::usage, "obscheck slurm: no check after --",
                  "usage: obscheck slurm [--shards N] [--submit] -- [check options] PROG [ARGS...]");
    const bool given = o.gave("shards") || o.gave("nodes");
    o.slurm.shards = slurm_shards(given ? std::optional(o.slurm.shards) : std::nullopt, o.slurm.array_parallelism);
  }
  if (o.command == Command::report && o.report_file.empty())
    throw Error(ErrorKind::usage, "obscheck report: which journal?", "usage: obscheck report FILE");
}

}  // namespace

std::vector<CommandOptions> option_table() {
  std::vector<CommandOptions> table;
  for (const auto& [name, cmd] : kCommands) {
    CommandOptions c{name, {}};
    Options unread;
    const po::options_description desc = options_for(cmd, unread);
    for (const auto& opt : desc.options()) {
      const std::string shown = opt->canonical_display_name(po::command_line_style::allow_dash_for_short);
      c.options.push_back({opt->long_name(), shown.size() == 2 && shown[0] == '-' ? shown.substr(1) : "",
                           opt->semantic()->max_tokens() > 0, opt->description()});
    }
    table.push_back(std::move(c));
  }
  return table;
}

Parsed parse_command_line(int argc, const char* const* argv) {
  Parsed parsed;
  Options& o = parsed.options;
  std::vector<std::string> words(argv + 1, argv + argc);

  if (!words.empty() && (words[0] == "--version" || words[0] == "-V")) {
    o.command = Command::version;
    return parsed;
  }
  if (!words.empty()) {
    auto it = kCommands.find(words[0]);
    if (it != kCommands.end()) {
      o.command = it->second;
      words.erase(words.begin());
    } else if (words[0] == "help") {
      o.command = Command::help;
      parsed.help_text = help_for(words.size() > 1 && kCommands.count(words[1]) ? kCommands.at(words[1])
                                                                                 : Command::check);
      return parsed;
    }
  }

  const po::options_description desc = options_for(o.command, o);
  std::vector<std::string> ours, rest;
  const bool takes_target = o.command == Command::check || o.command == Command::measure ||
                            o.command == Command::bias || o.command == Command::compare || o.command == Command::plan ||
                            o.command == Command::fidelity;
  split_words(words, desc, o, takes_target, ours, rest);
  const po::variables_map vm = store_options(ours, desc, o);
  if (vm.count("help")) {
    parsed.help_text = help_for(o.command);
    o.command = Command::help;
    return parsed;
  }
  take_counting(vm, o);
  take_launch_and_files(vm, o);
  validate(vm, o);
  for (const auto& [name, value] : vm)
    if (!value.defaulted() && name != "journal-file" && name != "shell") o.given.push_back(twin_of(name));
  check_combinations(o);
  o.target = std::move(rest);
  check_command_needs(o, takes_target);
  take_sweep_lists(vm, o);

  // NO_COLOR (https://no-color.org): any non-empty value turns colour off.
  const char* no_color = std::getenv("NO_COLOR");
  o.color = o.color_when == "always" ||
            (o.color_when == "auto" && !(no_color && *no_color) && isatty(STDOUT_FILENO) && o.output.empty());
  o.progress = isatty(STDERR_FILENO);
  return parsed;
}

}  // namespace obscheck
