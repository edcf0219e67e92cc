// cli/: the command line parsed into the Options value (cmdline/options.h) every command
// reads, by the option table cmdline/vocabulary.h declares.
#pragma once

#include <string>
#include <vector>

#include "cmdline/options.h"
#include "report/completion_script.h"

namespace obscheck {

// Parses argv and checks every value before anything runs or is written: a range,
// NaN, a CPU this process may not use, an empty counter list, an unbalanced {group},
// a negative number for an unsigned one. Throws Error(usage) with the offending word
// and a hint.
// `--help` anywhere yields Command::help with `help_text` filled for that command.
struct Parsed {
  Options options;
  std::string help_text;
};
Parsed parse_command_line(int argc, const char* const* argv);

// The options each command accepts, as the parser knows them (report/completion_script.h):
// the one source the man page test and the shell completions are checked against.
std::vector<CommandOptions> option_table();

}  // namespace obscheck
