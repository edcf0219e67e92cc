// obscheck: does measuring this program change what is measured?
// The whole architecture, top to bottom (docs/design.md): cli/ parses argv into Options
// and the typed requests it carries, and dispatches to one function per command; the
// command runs its job (job/), which walks
//   plan/ → run/ (launch/ + observe/) → record/ → analysis/ (stats/) → report/
// and cli/ alone prints errors and chooses the exit code.
#include "cli/cli.h"

int main(int argc, char** argv) { return obscheck::cli_main(argc, argv); }
