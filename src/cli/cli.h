// cli/: the command line. Parses argv into an immutable Options, dispatches to the
// subcommand, and is the one place that prints an error and picks the exit code.
#pragma once

namespace obscheck {

int cli_main(int argc, char** argv);

}  // namespace obscheck
