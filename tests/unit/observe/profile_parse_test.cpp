// observe/profile: the two parsers on fixed text — perf script's "ip sym" lines and a
// cachegrind output file — exact counts per function.
#include <catch2/catch.hpp>

#include "observe/profile.h"

using namespace obscheck;

TEST_CASE("profile: perf script lines become samples per symbol, kernel and unknown marked") {
  const std::string text =
      "    55d0b2f4a139 work_major\n"
      "    55d0b2f4a13c work_major\n"
      "    55d0b2f4a200 work_minor\n"
      "ffffffffa1c0e5d7 clear_page_erms\n"
      "    7f1c2a3b4c5d\n"
      "\n"
      "not an address line\n"
      "    55d0b2f4a300 std::vector<int, std::allocator<int> >::push_back(int const&)\n";
  const ProfileCounts c = parse_perf_script(text);
  CHECK(c.size() == 5);
  CHECK(c.at("work_major") == 2);
  CHECK(c.at("work_minor") == 1);
  CHECK(c.at("[k] clear_page_erms") == 1);
  CHECK(c.at("[unknown]") == 1);
  CHECK(c.at("std::vector<int, std::allocator<int> >::push_back(int const&)") == 1);
}

TEST_CASE("profile: a cachegrind file's first event summed per function, across files") {
  const std::string text =
      "desc: I1 cache: 65536 B, 64 B, 16-way associative\n"
      "cmd: ./split 30\n"
      "events: Ir\n"
      "fl=./csu/../csu/libc-start.c\n"
      "fn=__libc_start_main@@GLIBC_2.34\n"
      "128 2\n"
      "134 3\n"
      "fl=split.c\n"
      "fn=work_major\n"
      "0 105000090\n"
      "fn=work_minor\n"
      "0 45000090\n"
      "fl=other.c\n"
      "fn=work_minor\n"
      "7 10\n"
      "fl=???\n"
      "fn=???\n"
      "0 42\n"
      "summary: 150000237\n";
  const ProfileCounts c = parse_cachegrind_functions(text);
  CHECK(c.size() == 4);
  CHECK(c.at("[unknown]") == 42);  // cachegrind's ???, named as perf names it
  CHECK(c.at("__libc_start_main@@GLIBC_2.34") == 5);
  CHECK(c.at("work_major") == 105000090);
  CHECK(c.at("work_minor") == 45000100);
}
