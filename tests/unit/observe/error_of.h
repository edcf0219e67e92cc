// The Error a call throws, for tests that assert its kind, message and hint; fails
// the test when the call throws nothing.
#pragma once

#include <catch2/catch.hpp>

#include "util/error.h"

namespace obscheck::test {

inline Error error_of(auto&& fn) {
  try {
    fn();
  } catch (const Error& e) {
    return e;
  }
  FAIL("no error thrown");
  return Error(ErrorKind::internal, "");
}

}  // namespace obscheck::test
