#include "cli/options.h"

#include <unistd.h>

#include <fmt/core.h>

#include <boost/make_shared.hpp>
#include <boost/program_options.hpp>
#include <cstdlib>
#include <map>
#include <optional>
#include <sstream>
#include <tuple>
#include <variant>

#include "cmdline/vocabulary.h"
#include "job/common/request_bounds.h"
#include "util/words.h"
#include "util/error.h"

namespace po = boost::program_options;

namespace obscheck {
namespace {

// An option's value as the parser takes it: a switch or a typed value stored into its
// field of Options, or a word kept for the take_* below to read.
template <class... Fs>
struct Overloaded : Fs... {
  using Fs::operator()...;
};
po::value_semantic* semantic_of(const Field& field) {
  using V = po::value_semantic*;
  return std::visit(Overloaded{[](TakesNothing) -> V { return new po::untyped_value(true); },
                               [](Switch) -> V { return po::bool_switch(); },
                               [](Text) -> V { return po::value<std::string>(); },
                               [](Count) -> V { return po::value<int>(); },
                               [](bool* b) -> V { return po::bool_switch(b); },
                               [](auto* value) -> V { return po::value(value); }},
                    field);
}

// Command c's options (cmdline/vocabulary.h), each stored into its field of `o` as the
// words are parsed (po::notify).
po::options_description options_for(Command c, Options& o) {
  po::options_description all;
  for (const OptionGroupSpec& spec : option_groups(c)) {
    po::options_description group(spec.title);
    for (const OptionSpec& option : spec.options)
      group.add(boost::make_shared<po::option_description>(
          option.names, semantic_of(option.field(o)), option.help));
    all.add(group);
  }
  return all;
}

std::string help_for(Command c) {
  std::ostringstream out;
  Options unread;
  out << kUsage << '\n' << options_for(c, unread);
  if (c == Command::check || c == Command::measure || c == Command::bias ||
      c == Command::compare)
    out << kTargetNote;
  out << kExitCodesNote;
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
      if (opt && opt->semantic()->max_tokens() > 0 && i + 1 < words.size())
        ours.push_back(words[++i]);
      continue;
    }
    // Short options bundle as getopt's do: "-iw 2" is -i -w 2, "-r10" is -r 10. The
    // first letter that takes a value ends the bundle: the rest of the word is its
    // value, or the next word when nothing is left.
    for (std::size_t k = 1; k < w.size(); ++k) {
      const po::option_description* opt =
          desc.find_nothrow(std::string("-") + w[k], false, false, false);
      if (!opt || opt->semantic()->max_tokens() == 0) continue;
      if (k + 1 == w.size() && i + 1 < words.size()) ours.push_back(words[++i]);
      break;
    }
  }
}

// Every value in its range, checked before the first run, so that a refused command
// line writes nothing (no journal, no build variant): job/common/request_bounds.h. The counter
// list and --leftovers are read into the request here, in the order they are checked.
void validate(const po::variables_map& vm, Options& o) {
  const auto given = [&](const char* name) {
    if (vm.count(name) > 0) return true;
    for (const auto& [alias, twin] : kBlockAliases)
      if (std::string(twin) == name && vm.count(alias) > 0) return true;
    return false;
  };
  const auto when = [&](const char* name, auto value) {
    return given(name) ? std::optional(value) : std::nullopt;
  };
  const CheckRequest& r = o.request;
  AskedValues v{.runs = when("runs", r.runs),
                .max_runs = when("max-runs", r.max_runs),
                .warmup = r.warmup,
                .warmup_given = given("warmup"),
                .link_orders = when("link-orders", o.sweep.link_orders),
                .contexts = when("contexts", o.sweep.contexts),
                .cpu = when("cpu", r.launch.cpu),
                .timeout_s = when("timeout", r.launch.timeout_s),
                .margin = r.margin,
                .time_budget = r.time_budget,
                .confidence = o.confidence,
                .event_lists = {}};
  const char* counters = vm.count("events") ? "events" : "counters";  // one of them (take_alias)
  if (given(counters)) v.event_lists.emplace_back(counters, vm[counters].as<std::string>());
  if (given("sample-event")) v.event_lists.emplace_back("sample-event", r.observer.sample_event);
  const std::vector<CounterList> lists = check_asked_values(v);
  if (given(counters)) o.request.counters = lists.front();
  if (vm.count("leftovers"))
    o.request.leftovers = leftovers_from_string(vm["leftovers"].as<std::string>());
}

// The words of a command that runs a target, split at the target (split_target); a
// slurm's, at "--" (after it a whole check command line); any other's, all ours.
void split_words(const std::vector<std::string>& words, const po::options_description& desc,
                 Options& o, bool takes_target, std::vector<std::string>& ours,
                 std::vector<std::string>& rest) {
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
po::variables_map store_options(const std::vector<std::string>& ours,
                                const po::options_description& desc, Options& o) {
  const Command command = o.command;
  po::variables_map vm;
  po::positional_options_description positional;
  if (command == Command::report) positional.add("journal-file", -1);
  if (command == Command::completion) positional.add("shell", 1);
  po::options_description parse_desc;  // desc, and the positional words' hidden options
  parse_desc.add(desc).add_options()("journal-file", po::value(&o.report_files))(
      "shell", po::value(&o.shell));
  namespace style = po::command_line_style;
  try {
    po::store(po::command_line_parser(ours)
                  .options(parse_desc)
                  .positional(positional)
                  .style(style::default_style & ~style::allow_guessing)
                  .run(),
              vm);
    po::notify(vm);
  } catch (const po::error& e) {
    const std::string name = command_name(command);
    throw Error(ErrorKind::usage, "obscheck " + name + ": " + e.what(),
                command == Command::check ? "see: obscheck --help"
                                          : "see: obscheck " + name + " --help");
  }
  return vm;
}

// The options that are not stored where they are declared (po::value(&o.member)): the
// ones read into an enum or a number from their text, the aliases that refuse their
// twin, and the switches that say the opposite of their member.
// --mode and --backend, read once into their enums by their own parsers.
void take_mode_and_backend(const po::variables_map& vm, Options& o) {
  if (vm.count("mode"))
    o.request.mode = counting_mode_from_string(vm["mode"].as<std::string>());
  if (vm.count("backend"))
    o.request.backend = backend_from_string(vm["backend"].as<std::string>());
}

// An alias (--events, --nodes) read into its twin's member; refused beside its twin,
// since neither would say which of the two values is meant.
template <class T>
void take_alias(const po::variables_map& vm, const char* alias, const char* twin, T& member) {
  if (!vm.count(alias)) return;
  if (vm.count(twin))
    throw Error(ErrorKind::usage,
                fmt::format("--{} and --{} are the same option: give one", twin, alias));
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
  const bool command_given = vm.count("observer-cmd") > 0;
  read_asked_observer({o.probes, o.breakpoints, o.sample_freq, o.levels, command_given},
                      o.request.observer);
}

// How the target is started, where the report goes, and the hosts' options.
void take_launch_and_files(const po::variables_map& vm, Options& o) {
  if (vm.count("env-pad"))
    o.request.launch.env_pad = parse_whole_number("env-pad", vm["env-pad"].as<std::string>());
  if (vm.count("run-as") && o.request.launch.run_as.empty())
    throw Error(ErrorKind::usage, "--run-as needs a user name");
  if (vm.count("field-separator") && o.field_separator.empty())
    throw Error(ErrorKind::usage, "-x needs a separator", "e.g. -x, or -x ';'");
  if (o.color_when != "auto" && o.color_when != "always" && o.color_when != "never")
    throw Error(ErrorKind::usage,
                "--color must be auto, always or never, not '" + o.color_when + "'");
  if (!o.report_files.empty()) o.report_file = o.report_files.front();
  if (vm.count("shard")) {
    const char* task = std::getenv("SLURM_ARRAY_TASK_ID");
    std::tie(o.shard_index, o.shard_count) =
        parse_shard(vm["shard"].as<std::string>(), task ? task : "");
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
  const auto text = [&](const char* name) {
    return vm.count(name) ? vm[name].as<std::string>() : std::string();
  };
  if (const std::string t = text("env-sizes"); !t.empty()) o.sweep.env_sizes = parse_env_sizes(t);
  if (const std::string t = text("argv0-pads"); !t.empty())
    o.sweep.argv0_pads = parse_argv0_pads(t);
  o.sweep.link_objects = split_commas(text("objects"));
}

// Options that exclude one another, or only go with another.
void check_combinations(Options& o) {
  if (o.command == Command::measure && o.request.runs == 0) o.request.runs = kDefaultMeasureRuns;
  if (!o.request.sim_cache.empty() && o.request.backend != BackendKind::sim)
    throw Error(ErrorKind::usage, "--sim-cache goes with --backend sim");
  if (o.json && o.csv) throw Error(ErrorKind::usage, "--json and --csv: choose one");
  if (o.markdown && (o.json || o.csv))
    throw Error(ErrorKind::usage, "--markdown, --json and --csv: choose one");
  if (!o.field_separator.empty() && (o.json || o.csv || o.markdown))
    throw Error(ErrorKind::usage, "-x, --markdown, --json and --csv: choose one");
}

// What each command cannot do without.
void check_command_needs(Options& o, bool takes_target) {
  const bool named = o.command == Command::measure || o.command == Command::fidelity;
  if (takes_target && o.target.empty() && o.resume.empty() && o.request.observer.build.empty())
    throw Error(ErrorKind::usage,
                std::string("obscheck ") + command_name(o.command) + ": no program to run",
                "usage: obscheck " + (named ? command_name(o.command) + std::string(" ") : "") +
                    "[options] [--] PROG [ARGS...]");
  if (o.command == Command::completion && o.shell != "bash" && o.shell != "zsh")
    throw Error(ErrorKind::usage,
                "obscheck completion: which shell? bash or zsh, not '" + o.shell + "'",
                "obscheck completion bash > /etc/bash_completion.d/obscheck");
  if (o.command == Command::run && (o.plan_file.empty() || o.shard_count == 0))
    throw Error(ErrorKind::usage, "obscheck run: which plan and which shard?",
                "usage: obscheck run --plan FILE --shard I/N");
  if (o.command == Command::slurm) {
    if (o.check_args.empty())
      throw Error(ErrorKind::usage, "obscheck slurm: no check after --",
                  "usage: obscheck slurm [--shards N] [--submit] -- [check options] PROG "
                  "[ARGS...]");
    const bool given = o.gave("shards") || o.gave("nodes");
    o.slurm.shards = slurm_shards(given ? std::optional(o.slurm.shards) : std::nullopt,
                                  o.slurm.array_parallelism);
  }
  if (o.command == Command::report && o.report_file.empty())
    throw Error(ErrorKind::usage, "obscheck report: which journal?", "usage: obscheck report FILE");
}

}  // namespace

std::vector<CommandOptions> option_table() {
  std::vector<CommandOptions> table;
  for (const auto& [name, cmd] : command_names()) {
    CommandOptions c{name, {}};
    Options unread;
    const po::options_description desc = options_for(cmd, unread);
    for (const auto& opt : desc.options()) {
      const std::string shown =
          opt->canonical_display_name(po::command_line_style::allow_dash_for_short);
      const bool has_short = shown.size() == 2 && shown[0] == '-';
      c.options.push_back({opt->long_name(), has_short ? shown.substr(1) : "",
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
    auto it = command_names().find(words[0]);
    if (it != command_names().end()) {
      o.command = it->second;
      words.erase(words.begin());
    } else if (words[0] == "help") {
      o.command = Command::help;
      const auto named = words.size() > 1 ? command_names().find(words[1])
                                          : command_names().end();
      parsed.help_text =
          help_for(named != command_names().end() ? named->second : Command::check);
      return parsed;
    }
  }

  const po::options_description desc = options_for(o.command, o);
  std::vector<std::string> ours, rest;
  const bool takes_target = o.command == Command::check || o.command == Command::measure ||
                            o.command == Command::bias || o.command == Command::compare ||
                            o.command == Command::plan || o.command == Command::fidelity;
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
    if (!value.defaulted() && name != "journal-file" && name != "shell")
      o.given.push_back(twin_of(name));
  check_combinations(o);
  o.target = std::move(rest);
  check_command_needs(o, takes_target);
  take_sweep_lists(vm, o);

  // NO_COLOR (https://no-color.org): any non-empty value turns colour off.
  const char* no_color = std::getenv("NO_COLOR");
  o.color = o.color_when == "always" ||
            (o.color_when == "auto" && !(no_color && *no_color) && isatty(STDOUT_FILENO) &&
             o.output.empty());
  o.progress = isatty(STDERR_FILENO);
  return parsed;
}

}  // namespace obscheck
