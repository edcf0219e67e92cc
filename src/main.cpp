// obscheck: does measuring this program change what is measured?
// The whole architecture, top to bottom (docs/design.md): cli/ parses argv into one
// immutable Options and dispatches; each command walks
//   plan/ → run/ (launch/ + observe/) → record/ → analysis/ (stats/) → report/
// and cli/ alone prints errors and chooses the exit code.
#include "cli/cli.h"

int main(int argc, char** argv) { return obscheck::cli_main(argc, argv); }
