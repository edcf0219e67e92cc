// A resume's environment against the journal's: the first difference, named.
#include <catch2/catch.hpp>

#include "record/journal.h"

using namespace obscheck;

TEST_CASE("env_difference names the first variable that differs, or nothing") {
  const auto a = env_summary({"HOME=/root", "PATH=/bin"});
  CHECK(env_difference(a, a).empty());
  CHECK(env_difference(a, env_summary({"HOME=/home/me", "PATH=/bin"})) == "HOME is 14 bytes here, 11 in the journal");
  CHECK(env_difference(a, env_summary({"HOME=/root", "PATH=/bin", "FOO=1"})) == "FOO is set here, not in the journal");
  CHECK(env_difference(a, env_summary({"HOME=/root"})) == "PATH is set in the journal, not here");
  CHECK(env_difference(a, env_summary({"PATH=/bin", "HOME=/root"})) == "the variables are in another order");
}
