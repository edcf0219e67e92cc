// report/terminal_text.h: a journal's or a command line's control bytes are shown,
// never sent to the terminal; the reports' own colours survive when asked for.
#include <catch2/catch.hpp>

#include "report/terminal_text.h"

using namespace obscheck;

TEST_CASE("terminal_safe: control bytes are shown escaped, text and UTF-8 are left as they are") {
  CHECK(terminal_safe("plain ± ε × text\n\tindented", false) == "plain ± ε × text\n\tindented");
  CHECK(terminal_safe("a\x1b[2Jb", false) == "a\\x1b[2Jb");
  CHECK(terminal_safe("\x1b]0;title\x07", false) == "\\x1b]0;title\\x07");
  CHECK(terminal_safe("over\rwrite", false) == "over\\rwrite");
  CHECK(terminal_safe(std::string("nul\0del\x7f", 8), false) == "nul\\x00del\\x7f");
  CHECK(terminal_safe("c1 \xc2\x9b" "31m", false) == "c1 \\u009b31m");  // U+009B, a CSI
  CHECK(terminal_safe("\xc2\xa0", false) == "\xc2\xa0");                 // U+00A0 is text
}

TEST_CASE("terminal_safe: with colours, only colour sequences pass") {
  CHECK(terminal_safe("\x1b[1;31mred\x1b[0m", true) == "\x1b[1;31mred\x1b[0m");
  CHECK(terminal_safe("\x1b[1;31mred\x1b[0m", false) == "\\x1b[1;31mred\\x1b[0m");
  CHECK(terminal_safe("\x1b[2J\x1b[H", true) == "\\x1b[2J\\x1b[H");  // clear, home: not colours
  CHECK(terminal_safe("\x1b[", true) == "\\x1b[");
}
