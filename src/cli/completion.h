// cli/: shell completion scripts generated from the parser's own option table
// (options.h option_table), so an option the parser accepts is always completed.
#pragma once

#include <string>

namespace obscheck {

// The bash (complete -F) or zsh (#compdef) completion script for obscheck.
// `shell` is "bash" or "zsh".
std::string completion_script(const std::string& shell);

}  // namespace obscheck
