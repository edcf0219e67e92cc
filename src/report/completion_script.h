// report/: shell completion scripts generated from the parser's own option table
// (cli/options.h option_table), so an option the parser accepts is always completed.
// Pure: the table in, the script's bytes out.
#pragma once

#include <string>
#include <vector>

namespace obscheck {

// The options each command accepts, as the parser knows them: the one source the man
// page test and the shell completions are checked against.
struct OptionInfo {
  std::string long_name;   // "counters"
  std::string short_name;  // "e" or ""
  bool takes_value = false;
  std::string description;
};
struct CommandOptions {
  std::string command;     // "check", "measure", ... ("check" is also the bare `obscheck PROG`)
  std::vector<OptionInfo> options;
};

// The bash (complete -F) or zsh (#compdef) completion script for obscheck's commands
// and options in `table`. `shell` is "bash" or "zsh".
std::string completion_script(const std::string& shell, const std::vector<CommandOptions>& table);

}  // namespace obscheck
