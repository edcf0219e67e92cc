// cmdline/: the command line's vocabulary as data: the commands' names, the usage, and
// each command's options in titled groups, each option with its names, the typed field
// of Options it is stored into and its one line of help. cli/options.cpp is the one
// parser over it; the help, the shell completions and the man page test read the same
// table, so an option is declared once, here.
#pragma once

#include <map>
#include <string>
#include <utility>
#include <variant>
#include <vector>

#include "cmdline/options.h"

namespace obscheck {

// 10 measured runs: enough for a five-number summary and a bootstrap CI of the median,
// few enough for a quick look (Rechistov, "Pitfalls of measuring software performance"
// asks for ≥ 30 before concluding; the check command sizes itself sequentially instead).
// measure's --runs help (option_table.cpp) says so.
constexpr int kDefaultMeasureRuns = 10;

// Every command by its name on the command line, in the order of their names.
const std::map<std::string, Command>& command_names();
// The name of c as the command line spells it; "check" for the commands without one.
const char* command_name(Command c);

// A check's block-named options and the run-named twins they equal (a block runs each
// configuration once, so N runs of each configuration are N blocks); a resume and the
// journal know them by the twin's name.
inline constexpr std::pair<const char*, const char*> kBlockAliases[] = {
    {"blocks", "runs"}, {"max-blocks", "max-runs"}, {"warmup-blocks", "warmup"}};
// The run-named twin of a block-named option, else `name`.
std::string twin_of(const std::string& name);

// Where an option's value goes. A field of Options it is stored into as it is parsed,
// typed; or, for the options read from their text into an enum, a list or a number with
// a unit (and the aliases, read into their twin), the kind of word the parser keeps for
// cli/options.cpp to read.
struct TakesNothing {};  // --help
struct Switch {};        // a switch read by the parser (--ci, --shared)
struct Text {};          // a word read from its text (--mode, --seed, --env-sizes...)
struct Count {};         // an int read into its twin's field (--blocks, --nodes)
using Field = std::variant<TakesNothing, Switch, Text, Count, bool*, int*, double*, std::string*>;

struct OptionSpec {
  const char* names;             // "counters,e": the long name, then the short one
  Field (*field)(Options& into);  // where the option's value goes
  const char* help;              // its line in --help (wrapped there) and the completions
};

struct OptionGroupSpec {
  const char* title;
  std::vector<OptionSpec> options;
};

// Command c's options, group after group, in the order --help shows them.
std::vector<OptionGroupSpec> option_groups(Command c);

// The usage lines every --help starts with, each ending in '\n'.
extern const char* const kUsage;
// After the options: for the commands that run a target, how its words are passed;
// then, for every command, the exit codes.
extern const char* const kTargetNote;
extern const char* const kExitCodesNote;

}  // namespace obscheck
