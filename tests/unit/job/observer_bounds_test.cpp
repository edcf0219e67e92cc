// The rule "one observer at a time" (job/common/request_bounds.h check_asked_observer) names
// every option that chooses an observer, read from the table of kinds
// (observe/observer_kinds.h).
#include <catch2/catch.hpp>

#include <string>

#include "job/common/request_bounds.h"
#include "util/error.h"

using namespace obscheck;

TEST_CASE("request bounds: two observers at once are refused, naming every observer's option") {
  AskedObserver o;
  o.probes = "main";
  o.sample_freq = "0,99";
  try {
    check_asked_observer(o);
    FAIL("no throw");
  } catch (const Error& e) {
    CHECK(e.kind() == ErrorKind::usage);
    CHECK(std::string(e.what()) ==
          "one observer at a time: --probes, --breakpoints, --sample-freq, --observer-cmd, --build");
  }
  o.sample_freq.clear();
  CHECK_NOTHROW(check_asked_observer(o));
}
