// The rule "one observer at a time" (job/common/request_bounds.h read_asked_observer) names
// every option that chooses an observer, read from the table of kinds
// (observe/observer_kinds.h).
#include <catch2/catch.hpp>

#include <cstdint>
#include <string>
#include <vector>

#include "job/common/request_bounds.h"
#include "util/error.h"

using namespace obscheck;

TEST_CASE("request bounds: two observers at once are refused, naming every observer's option") {
  AskedObserver o;
  ObserverRequest r;
  o.probes = "main";
  o.sample_freq = "0,99";
  try {
    read_asked_observer(o, r);
    FAIL("no throw");
  } catch (const Error& e) {
    CHECK(e.kind() == ErrorKind::usage);
    CHECK(std::string(e.what()) ==
          "one observer at a time: --probes, --breakpoints, --sample-freq, --observer-cmd, --build");
  }
  o.sample_freq.clear();
  CHECK_NOTHROW(read_asked_observer(o, r));
  CHECK(r.kind == ObserverKind::probes);
  CHECK(r.symbols == std::vector<std::string>{"main"});
}

// Each list is parsed once, where the command line is read, into the typed request.
TEST_CASE("request bounds: the observer's lists are read into typed values, bounded") {
  AskedObserver o;
  ObserverRequest r;
  o.breakpoints = "auto:12";
  read_asked_observer(o, r);
  CHECK(r.kind == ObserverKind::breakpoints);
  CHECK(r.auto_symbols == 12);
  CHECK(r.symbols.empty());
  CHECK(symbols_text(r) == "auto:12");
  o = AskedObserver{};
  r = ObserverRequest{};
  o.sample_freq = "0,,100,1000";
  read_asked_observer(o, r);
  CHECK(r.kind == ObserverKind::sampling);
  CHECK(r.frequencies == std::vector<std::uint64_t>{0, 100, 1000});
  CHECK(frequencies_text(r.frequencies) == "0,100,1000");
  o = AskedObserver{};
  r = ObserverRequest{};
  r.command = "perf record -F {level} --";
  o.command_given = true;
  o.levels = "0,99,999";
  read_asked_observer(o, r);
  CHECK(r.kind == ObserverKind::command);
  CHECK(r.levels == std::vector<std::string>{"0", "99", "999"});
  const auto refused = [](const AskedObserver& a, const std::string& text) {
    ObserverRequest q;
    if (!a.levels.empty()) q.command = "perf record -F {level} --";
    try {
      read_asked_observer(a, q);
      FAIL("no throw");
    } catch (const Error& e) {
      CHECK(e.kind() == ErrorKind::usage);
      CHECK(std::string(e.what()) == text);
    }
  };
  refused({.probes = "auto:0"}, "--probes auto:0: N is the number of probes to dose, 1 to 4096");
  refused({.probes = "auto:4097"}, "--probes auto:4097: N is the number of probes to dose, 1 to 4096");
  refused({.sample_freq = "-5"},
          "--sample-freq: '-5' is not a whole number from 0 to 18446744073709551615");
  refused({.sample_freq = ","}, "--sample-freq is empty");
  std::string many = "0";
  for (int i = 1; i <= 64; ++i) many += "," + std::to_string(i);
  refused({.sample_freq = many}, "--sample-freq: 65 values; a check doses at most 64");
  refused({.levels = many}, "--levels: a check doses at most 64 levels");
}
