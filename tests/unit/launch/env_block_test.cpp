#include <catch2/catch.hpp>

#include "launch/launcher.h"
#include "util/error.h"

using namespace obscheck;

TEST_CASE("EnvBlock counts each NAME=value and its NUL", "[env]") {
  EnvBlock env({"A=1", "BB=22"});
  CHECK(env.size_bytes() == 4 + 6);  // "A=1\0" + "BB=22\0"
  env.set("A", "xyz");               // replaces in place
  CHECK(env.vars() == std::vector<std::string>{"A=xyz", "BB=22"});
  CHECK(env.size_bytes() == 6 + 6);
  env.set("C", "");  // appends, an empty value still has "C=" and the NUL
  CHECK(env.size_bytes() == 12 + 3);
  env.unset("BB");
  CHECK(env.vars() == std::vector<std::string>{"A=xyz", "C="});
  env.unset("B");  // a prefix of no name: nothing changes
  CHECK(env.vars().size() == 2);
  CHECK(EnvBlock().size_bytes() == 0);
}

TEST_CASE("EnvBlock::pad_to reaches the exact total, the padding variable included", "[env]") {
  EnvBlock env({"A=1", "BB=22"});  // 10 bytes
  env.pad_to(100);
  CHECK(env.size_bytes() == 100);
  // 100 - 10 - strlen("OBSCHECK_PAD=") - NUL = 76 bytes of filler
  CHECK(env.vars().back() == "OBSCHECK_PAD=" + std::string(76, 'x'));

  env.pad_to(50);  // resized in place, not appended twice
  CHECK(env.size_bytes() == 50);
  CHECK(env.vars().size() == 3);

  env.set("Z", "9");  // after the pad: the pad keeps its position when resized
  env.pad_to(64);
  CHECK(env.size_bytes() == 64);
  CHECK(env.vars()[2].rfind("OBSCHECK_PAD=", 0) == 0);
  CHECK(env.vars()[3] == "Z=9");

  EnvBlock small({"A=1"});  // 4 bytes; smallest padded block is 4 + 14 = 18
  CHECK_THROWS_AS(small.pad_to(17), Error);
  try {
    small.pad_to(17);
  } catch (const Error& e) {
    CHECK(e.kind() == ErrorKind::usage);
    CHECK(std::string(e.what()).find("needs 18") != std::string::npos);
  }
  small.pad_to(18);
  CHECK(small.vars().back() == "OBSCHECK_PAD=");
  CHECK(small.size_bytes() == 18);

  EnvBlock named({"A=1"});
  named.pad_to(20, "P");  // custom name: 4 + "P=" + 13 filler + NUL
  CHECK(named.vars().back() == "P=" + std::string(13, 'x'));
  CHECK(named.size_bytes() == 20);
}

TEST_CASE("EnvBlock::from_current copies environ", "[env]") {
  ::setenv("OBSCHECK_TEST_VAR", "v42", 1);
  const EnvBlock env = EnvBlock::from_current();
  int found = 0;
  for (const auto& v : env.vars()) found += v == "OBSCHECK_TEST_VAR=v42";
  CHECK(found == 1);
  ::unsetenv("OBSCHECK_TEST_VAR");
}

TEST_CASE("EnvBlock::for_target drops the shell's own variables and keeps the rest in order", "[env]") {
  setenv("_", "/usr/bin/timeout", 1);
  setenv("SHLVL", "7", 1);
  setenv("OLDPWD", "/somewhere", 1);
  const EnvBlock env = EnvBlock::for_target();
  for (const std::string& v : env.vars()) {
    CHECK(v.rfind("_=", 0) != 0);
    CHECK(v.rfind("SHLVL=", 0) != 0);
    CHECK(v.rfind("OLDPWD=", 0) != 0);
  }
  std::vector<std::string> expected;
  const EnvBlock all = EnvBlock::from_current();
  for (const std::string& v : all.vars())
    if (v.rfind("_=", 0) != 0 && v.rfind("SHLVL=", 0) != 0 && v.rfind("OLDPWD=", 0) != 0) expected.push_back(v);
  CHECK(env.vars() == expected);
}

TEST_CASE("EnvBlock::pad_to refuses a padding variable no execve would take, before allocating it", "[env]") {
  EnvBlock env({"A=1"});  // 4 bytes
  // "OBSCHECK_PAD=" + filler + NUL may be kMaxArgStringBytes in all: 4 + 131072 fits.
  env.pad_to(4 + kMaxArgStringBytes);
  CHECK(env.size_bytes() == 4 + kMaxArgStringBytes);
  EnvBlock big({"A=1"});
  try {
    big.pad_to(5 + kMaxArgStringBytes);
    FAIL("no error");
  } catch (const Error& e) {
    CHECK(e.kind() == ErrorKind::usage);
    CHECK(std::string(e.what()).find("MAX_ARG_STRLEN") != std::string::npos);
    CHECK(e.hint() == "use --env-pad " + std::to_string(4 + kMaxArgStringBytes) + " or less");
  }
  CHECK_THROWS_AS(big.pad_to(std::size_t{1} << 62), Error);  // refused, not allocated
  CHECK(big.size_bytes() == 4);
}
