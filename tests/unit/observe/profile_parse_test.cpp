// observe/profile: the parser on fixed text — perf script's "ip sym" lines — exact
// counts per function.
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
