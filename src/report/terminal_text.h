// report/: text made safe for a terminal. Much of what a report prints comes from
// others: a journal's strings (level labels, configuration ids, argv, metric names,
// the profiler command, the host's names), a command line's --levels. Printed raw, an
// ESC or another control byte in them drives the reader's terminal: clears the screen,
// rewrites the lines above (a verdict changed after the fact), sets the window title,
// or worse with some emulators. So every text output passes through terminal_safe once,
// where it is written (cli/: the report, the certificate, the error and warning lines).
#pragma once

#include <string>
#include <string_view>

namespace obscheck {

// `text` with each control byte but '\n' and '\t' (C0, DEL, and the C1 controls
// U+0080..U+009F as UTF-8 encodes them) written as a visible escape: "\x1b", "\r",
// "\u009b". When `keep_colors`, the colour sequences the reports themselves use (SGR:
// ESC '[' digits and ';' 'm') are kept; one planted in a string can then change a
// colour and nothing else. Bytes that are not valid UTF-8 are left to the terminal's
// replacement character (they control nothing).
std::string terminal_safe(std::string_view text, bool keep_colors);

}  // namespace obscheck
