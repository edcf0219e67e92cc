// Linux perf's own parser test table (tests/golden/events/perf/parse_events.json): every
// string is accepted and encodes the fields perf's check function asserts.
#include <catch2/catch.hpp>
#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include <filesystem>
#include <fstream>

#include "events/attr_json.h"
#include "events/event.h"

namespace fs = std::filesystem;
using namespace obscheck;

namespace {

const fs::path kPerfTableGolden = fs::path(OBSCHECK_GOLDEN_DIR) / "events";

ResolveOptions golden_host() {
  ResolveOptions o;
  o.sysfs_root = (kPerfTableGolden / "sysfs").string();
  o.tracefs_root = (kPerfTableGolden / "tracefs").string();
  o.kernel_levels = KernelLevels::allowed;  // perf's test parses as if kernel counting were allowed
  return o;
}

// One asserted field of one event: attr fields by name, plus perf's evsel state.
void check_field(const EventDesc& e, const std::string& key, const nlohmann::json& want) {
  INFO("field " << key);
  if (key == "name") {
    CHECK(e.name == want.get<std::string>());
  } else if (key == "sample_read") {
    CHECK(e.sample_read == want.get<bool>());
  } else if (key == "precise_max") {
    CHECK(e.precise_max == want.get<bool>());
  } else {
    const nlohmann::json attr = attr_to_json(e.attr);
    REQUIRE(attr.contains(key));
    CHECK(attr.at(key).get<std::uint64_t>() == want.get<std::uint64_t>());
  }
}

}  // namespace

TEST_CASE("perf's parse-events table: all 64 strings accepted, with the fields perf asserts", "[golden][perf]") {
  std::ifstream in(kPerfTableGolden / "perf" / "parse_events.json");
  const nlohmann::json doc = nlohmann::json::parse(in);
  const auto opts = golden_host();
  int accepted = 0;
  for (const auto& c : doc.at("cases")) {
    const std::string spec = c.at("spec").get<std::string>();
    INFO("perf case " << c.at("id").get<int>() << " '" << spec << "' (" << c.at("perf_check").get<std::string>() << ")");
    EventSet set;
    try {
      set = parse_events(spec, opts);
    } catch (const EventSyntaxError& e) {
      FAIL(format_event_error(e));
    } catch (const Error& e) {
      FAIL(e.what());
    }
    ++accepted;
    if (c.contains("each")) {
      CHECK(set.events.size() >= c.at("min_entries").get<std::size_t>());
      CHECK(set.groups.size() == set.events.size());  // a wildcard makes no group
      for (const EventDesc& e : set.events)
        for (const auto& [key, want] : c.at("each").items()) check_field(e, key, want);
      continue;
    }
    REQUIRE(set.events.size() == c.at("events").size());
    CHECK(nlohmann::json(set.groups) == c.at("groups"));
    if (c.contains("group_names")) CHECK(nlohmann::json(set.group_names) == c.at("group_names"));
    for (std::size_t i = 0; i < set.events.size(); ++i) {
      INFO("event " << i << " (" << set.events[i].name << ")");
      for (const auto& [key, want] : c.at("events")[i].items()) check_field(set.events[i], key, want);
    }
  }
  CHECK(accepted == 64);
}

TEST_CASE("wildcard tracepoints expand over the tracefs fixture in perf's order", "[perf]") {
  const auto opts = golden_host();
  const EventSet all = parse_events("*:*", opts);
  REQUIRE(all.events.size() == 5);
  CHECK(all.events[0].name == "sched:sched_switch");
  CHECK(all.events[0].attr.config == 372);
  CHECK(all.events[4].name == "syscalls:sys_exit_openat");
  const EventSet sys = parse_events("syscalls:sys_enter_*:u", opts);
  REQUIRE(sys.events.size() == 2);
  CHECK(sys.events[0].name == "syscalls:sys_enter_openat:u");
  CHECK(sys.events[1].attr.config == 842);
  CHECK(sys.events[1].attr.exclude_kernel == 1);
}

TEST_CASE("perf's cache-name spellings", "[perf]") {
  const auto opts = golden_host();
  auto config = [&](const char* s) { return resolve_event(s, opts).attr.config; };
  CHECK(config("L1-dcache-loads") == 0x0);
  CHECK(config("L1-dcache-load-misses") == 0x10000);
  CHECK(config("L1-data-read-miss") == 0x10000);
  CHECK(config("l1-d-stores") == 0x100);
  CHECK(config("L1-icache-load-misses") == 0x10001);
  CHECK(config("LLC-prefetch-misses") == 0x10202);
  CHECK(config("L2-speculative-read-misses") == 0x10202);
  CHECK(config("dTLB-store-misses") == 0x10103);
  CHECK(config("iTLB-loads") == 0x4);
  CHECK(config("branch-load-misses") == 0x10005);
  CHECK(config("btb-misses") == 0x10005);
  CHECK(config("node-stores") == 0x106);
  CHECK(resolve_event("branches", opts).attr.type == PERF_TYPE_HARDWARE);  // perf: branch-instructions
  CHECK_THROWS_AS(resolve_event("L1-icache-stores", opts), Error);        // perf: L1I has no stores
  CHECK_THROWS_AS(resolve_event("iTLB-prefetches", opts), Error);
}

TEST_CASE("every perf software event, and perf's short names mean perf's events", "[perf]") {
  const auto opts = golden_host();
  const std::pair<const char*, std::uint64_t> sw[] = {
      {"cpu-clock", 0},      {"task-clock", 1},       {"page-faults", 2},      {"faults", 2},
      {"context-switches", 3}, {"cs", 3},             {"ctx-switches", 3},     {"cpu-migrations", 4},
      {"migrations", 4},     {"minor-faults", 5},     {"major-faults", 6},     {"alignment-faults", 7},
      {"emulation-faults", 8}, {"dummy", 9},          {"bpf-output", 10},      {"cgroup-switches", 11}};
  for (const auto& [name, config] : sw) {
    INFO(name);
    const EventDesc e = resolve_event(name, opts);
    CHECK(e.attr.type == PERF_TYPE_SOFTWARE);
    CHECK(e.attr.config == config);
    CHECK(e.attr.exclude_user + e.attr.exclude_kernel + e.attr.exclude_hv == 0);
  }
  // obscheck's l1d/l1i are read misses; perf's are accesses: the difference is stated.
  const EventDesc l1d = resolve_event("l1d", opts);
  CHECK(l1d.attr.config == 0x10000);
  CHECK_THAT(l1d.resolved, Catch::Matchers::Contains("perf reads 'l1d' as L1-dcache-loads"));
  CHECK(resolve_event("l1d-misses", opts).attr.config == 0x10000);
}

TEST_CASE("where kernel counting is not allowed, events fall back to user level, said once", "[perf]") {
  auto opts = golden_host();
  opts.kernel_levels = KernelLevels::forbidden;
  const EventSet set = parse_events("task-clock,cs:k,faults:u,cycles", opts);
  CHECK(set.events[0].attr.exclude_kernel == 1);
  CHECK(set.events[0].attr.exclude_hv == 1);
  CHECK(set.events[0].user_only_fallback);
  CHECK(set.events[1].attr.exclude_kernel == 0);  // the user asked for kernel level: not changed
  CHECK_FALSE(set.events[2].user_only_fallback);   // already user level
  CHECK(set.events[3].attr.exclude_kernel == 1);
  REQUIRE(set.notes.size() == 1);
  CHECK_THAT(set.notes[0], Catch::Matchers::Contains("counting user level only: kernel counting is not allowed"));
}
