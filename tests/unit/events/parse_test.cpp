// The spec grammar, sysfs formats, modifiers, and the errors a user sees.
#include <catch2/catch.hpp>

#include <filesystem>

#include "events/did_you_mean.h"
#include "events/event.h"
#include "events/papi_presets.h"
#include "events/sysfs_pmu.h"
#include "util/error.h"

using namespace obscheck;
using Catch::Matchers::Contains;

namespace {
ResolveOptions fixture() {
  ResolveOptions o;
  o.sysfs_root = std::string(OBSCHECK_GOLDEN_DIR) + "/events/sysfs";
  return o;
}

std::string error_of(std::string_view spec, const ResolveOptions& opts = {}) {
  try {
    parse_events(spec, opts);
  } catch (const Error& e) {
    CHECK(e.kind() == ErrorKind::event);
    return e.what();
  }
  return "(no error)";
}
}  // namespace

TEST_CASE("split_event_list keeps groups and pmu terms whole") {
  using V = std::vector<std::string>;
  CHECK(split_event_list("cycles,l1d") == V{"cycles", "l1d"});
  CHECK(split_event_list("a,{b,c},d") == V{"a", "{b,c}", "d"});
  CHECK(split_event_list("cpu/event=0x3c,umask=0x01/,tsc") == V{"cpu/event=0x3c,umask=0x01/", "tsc"});
  CHECK(split_event_list("{cpu/event=1,umask=2/u,task-clock}") == V{"{cpu/event=1,umask=2/u,task-clock}"});
  CHECK(split_event_list("uprobe:/usr/bin/calls:obs_hot,bp:./calls:main") ==
        V{"uprobe:/usr/bin/calls:obs_hot", "bp:./calls:main"});
  CHECK(split_event_list(" cycles , l1d ") == V{"cycles", "l1d"});
  CHECK(split_event_list("mem:0/4:rw:u,cycles") == V{"mem:0/4:rw:u", "cycles"});
  CHECK(split_event_list("cycles/name='a,b'/u,cs") == V{"cycles/name='a,b'/u", "cs"});
  CHECK(split_event_list("g{cs,faults}:u,cycles") == V{"g{cs,faults}:u", "cycles"});
}

TEST_CASE("malformed lists are errors that say what is wrong") {
  CHECK_THAT(error_of("cycles,,l1d"), Contains("empty event"));
  CHECK_THAT(error_of("{cycles,{l1d}}"), Contains("groups cannot contain groups"));
  CHECK_THAT(error_of("{cycles,l1d"), Contains("unclosed '{'"));
  CHECK_THAT(error_of("cycles}"), Contains("'}' closes no group"));
  CHECK_THAT(error_of("cpu/event=0x3c"), Contains("unclosed '/'"));
  CHECK_THAT(error_of("{}"), Contains("empty event"));
}

TEST_CASE("an unknown name suggests the closest known one") {
  CHECK(error_of("cycels") == "unknown event 'cycels' (did you mean 'cycles'?)");
  CHECK_THAT(error_of("page-fault"), Contains("did you mean 'page-faults'?"));
  CHECK_THAT(error_of("branch-mises"), Contains("did you mean 'branch-misses'?"));
  CHECK(error_of("zzzzzzzzzz") == "unknown event 'zzzzzzzzzz'");
}

TEST_CASE("edit distance and closest name") {
  CHECK(edit_distance("cycels", "cycles") == 2);
  CHECK(edit_distance("", "abc") == 3);
  CHECK(edit_distance("L1D", "l1d") == 0);
  CHECK(closest_name("instrutions", {"cycles", "instructions"}) == std::optional<std::string>("instructions"));
  CHECK_FALSE(closest_name("cycles", {"cycles", "cycels"}).has_value());  // exact: nothing to suggest
}

TEST_CASE("modifiers set privilege levels and precise_ip the way perf's do") {
  auto c = resolve_event("cycles:k");
  CHECK(c.attr.exclude_user == 1);
  CHECK(c.attr.exclude_kernel == 0);
  CHECK(c.attr.exclude_hv == 1);
  CHECK(c.name == "cycles:k");
  auto p = resolve_event("instructions:upp");
  CHECK(p.attr.precise_ip == 2);
  CHECK(p.attr.exclude_user == 0);
  CHECK(p.attr.exclude_kernel == 1);
  CHECK_THAT(error_of("cycles:x"), Contains("unknown modifier 'x'"));
  CHECK_THAT(error_of("cycles:pppp"), Contains("more than three 'p' modifiers"));
}

TEST_CASE("sysfs format terms, split ranges and widths") {
  const FormatField f = parse_format("event", "config:0-7,32-35\n");  // AMD core PMUs
  CHECK(f.word == "config");
  CHECK(f.width() == 12);
  SysfsPmu amd;
  amd.name = "cpu";
  amd.type = 4;
  amd.formats.emplace("event", f);
  amd.formats.emplace("umask", parse_format("umask", "config:8-15"));
  // A 12-bit event number: its low 8 bits go to 0-7, the high 4 to 32-35.
  CHECK(encode_sysfs_event(amd, "event=0x1c0,umask=0x2").config == (0xc0ULL | 0x2ULL << 8 | 0x1ULL << 32));
  CHECK(parse_format("ldlat", "config1:0-15").word == "config1");
  CHECK(parse_format("edge", "config:18").width() == 1);
  CHECK_THROWS_AS(parse_format("x", "config3:0-7"), Error);
  CHECK_THROWS_AS(parse_format("x", "config:9-2"), Error);
}

TEST_CASE("sysfs events: unknown terms, values that do not fit, absent PMUs") {
  const auto opts = fixture();
  CHECK_THAT(error_of("cpu/event=0x3c,umsk=1/", opts),
             Contains("PMU 'cpu' has no format term or event 'umsk' (did you mean 'umask'?)"));
  CHECK_THAT(error_of("cpu/event=0x13c/", opts), Contains("does not fit the term's 8 bits"));
  CHECK_THAT(error_of("cpu/event=zz/", opts), Contains("'zz' is not a number"));
  CHECK_THAT(error_of("mrs/tsc/", opts), Contains("no PMU or event 'mrs'"));
  CHECK_THAT(error_of("mrs/tsc/", opts), Contains("did you mean 'msr'?"));
  CHECK(parse_events("cpu//", opts).events.at(0).attr.config == 0);  // perf accepts an empty term list
  ResolveOptions no_cpu = opts;
  no_cpu.sysfs_root = std::string(OBSCHECK_GOLDEN_DIR) + "/events/no-such-root";
  CHECK_THAT(error_of("cpu/event=0x3c/", no_cpu), Contains("no hardware PMU on this host"));
}

TEST_CASE("every alias resolves against the fixture tree, in the documented order") {
  const auto& aliases = event_aliases();
  REQUIRE(aliases.size() == 15);
  CHECK(aliases.front().name == "cycles");
  CHECK(aliases.back().name == "tsc");
  for (const auto& a : aliases) {
    const EventDesc d = resolve_event(a.name, fixture());
    INFO(a.name);
    CHECK(d.source == "alias");
    CHECK(d.name == a.name);
    CHECK(d.hardware == (d.pmu == "cpu"));
  }
  CHECK(resolve_event("ctx-switches").attr.config == PERF_COUNT_SW_CONTEXT_SWITCHES);
  CHECK(resolve_event("major-faults").attr.config == PERF_COUNT_SW_PAGE_FAULTS_MAJ);
  CHECK(resolve_event("l1i").attr.config == 0x10001);  // L1I | READ << 8 | MISS << 16
}

TEST_CASE("PAPI's unavailable reason names the first cause, for every state PAPI can be in") {
  PapiStatus s;
  s.init_error = "PAPI_ECMP";
  CHECK(papi_unavailable_reason(s) == "PAPI did not initialise: PAPI_ECMP");
  s.initialized = true;
  CHECK(papi_unavailable_reason(s) == "PAPI reports no counter component (no perf_event component)");
  s.disabled_reason = "Error libpfm4 no default PMU found";
  CHECK(papi_unavailable_reason(s) ==
        "PAPI reports no counter component: perf_event is disabled (Error libpfm4 no default PMU found)");
  s.counter_component = true;
  s.pmus = {"perf", "perf_raw"};
  CHECK(papi_unavailable_reason(s) ==
        "PAPI's perf_event component maps 0 presets for PMUs [perf, perf_raw] "
        "(its papi_events.csv has no preset table for this CPU)");
}

TEST_CASE("PAPI presets on this host: mapped through PAPI, or the exact reason they are not") {
  const PapiStatus& s = papi_status();
  REQUIRE(s.initialized);
  CHECK_THAT(error_of("PAPI_TOT_CYK"), Contains("did you mean 'PAPI_TOT_CYC'?"));
  if (s.presets == 0) {
    // PAPI maps no preset here: its perf_event component is disabled (no PMU libpfm4
    // knows), or its papi_events.csv has no table for this CPU. Which of the two is the
    // host's business; that the refusal gives PAPI's own reason is obscheck's.
    CHECK(error_of("PAPI_TOT_CYC") == "'PAPI_TOT_CYC' is not available: " + papi_unavailable_reason(s));
  } else {
    const EventDesc d = resolve_event("PAPI_TOT_CYC");
    CHECK(d.source == "papi");
    CHECK(d.hardware);
  }
}
