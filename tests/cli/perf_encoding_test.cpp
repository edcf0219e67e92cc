// obscheck reads perf's strings as perf does: for every string of perf's own parser
// test table, the perf_event_attr that `perf stat -vv -e S -- true` builds here is the
// one `obscheck events --encode S --json` shows (type, config, config1, config2, the
// breakpoint fields, every exclude bit, precise_ip, pinned, exclusive, the per-open
// flags disabled, inherit, enable_on_exec and read_format, and the group leader).
// Skipped, with a warning, where perf is not installed.
#include <linux/perf_event.h>
#include <unistd.h>

#include <catch2/catch.hpp>
#include <cstdio>
#include <fstream>
#include <future>
#include <map>
#include <nlohmann/json.hpp>
#include <optional>
#include <regex>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include "run_cli.h"

using nlohmann::json;
using obscheck::test::run_cli;

namespace {

constexpr const char* kPerf = "/usr/bin/perf";

// One perf_event_attr block of perf stat -vv, with the outcome of its open.
struct PerfAttr {
  std::map<std::string, std::uint64_t> fields;  // non-zero fields as perf prints them
  int group_fd = -1;
  std::optional<int> fd;                        // set when the open succeeded
};

std::string shell_quote(const std::string& s) {
  std::string out = "'";
  for (char c : s) out += c == '\'' ? std::string("'\\''") : std::string(1, c);
  return out + "'";
}

std::string perf_vv(const std::string& spec) {
  const std::string cmd = std::string(kPerf) + " stat -vv -e " + shell_quote(spec) + " -- true 2>&1";
  std::string out;
  if (FILE* p = popen(cmd.c_str(), "r")) {
    char buf[4096];
    for (std::size_t n; (n = fread(buf, 1, sizeof buf, p)) > 0;) out.append(buf, n);
    pclose(p);
  }
  return out;
}

// read_format as perf prints it (TOTAL_TIME_ENABLED|TOTAL_TIME_RUNNING|ID|GROUP) as bits.
std::uint64_t read_format_bits(const std::string& names) {
  static const std::map<std::string, std::uint64_t> kBits = {
      {"TOTAL_TIME_ENABLED", PERF_FORMAT_TOTAL_TIME_ENABLED}, {"TOTAL_TIME_RUNNING", PERF_FORMAT_TOTAL_TIME_RUNNING},
      {"ID", PERF_FORMAT_ID}, {"GROUP", PERF_FORMAT_GROUP}, {"LOST", PERF_FORMAT_LOST}};
  std::uint64_t bits = 0;
  std::istringstream in(names);
  for (std::string name; std::getline(in, name, '|');) bits |= kBits.at(name);
  return bits;
}

// Parses the attr dump; "{ bp_addr, config1 }" is read as config1, "{ bp_len, config2 }"
// as config2 (the union members obscheck's JSON names by the event's type).
std::vector<PerfAttr> parse_perf_vv(const std::string& text) {
  static const std::regex field(R"(^  (?:\{ \w+, (\w+) \}|(\w+))\s+(0x[0-9a-fA-F]+|\d+)$)");
  static const std::regex read_format(R"(^  read_format\s+([A-Z_|]+)$)");
  static const std::regex open(R"(^sys_perf_event_open: pid -?\d+\s+cpu -?\d+\s+group_fd (-?\d+)\s+flags \S+(?: = (\d+))?)");
  std::vector<PerfAttr> out;
  std::optional<PerfAttr> cur;
  std::istringstream in(text);
  for (std::string line; std::getline(in, line);) {
    std::smatch m;
    if (line == "perf_event_attr:") {
      cur = PerfAttr{};
    } else if (cur && std::regex_match(line, m, read_format)) {
      cur->fields["read_format"] = read_format_bits(m[1].str());
    } else if (cur && std::regex_match(line, m, field)) {
      cur->fields[m[1].matched ? m[1].str() : m[2].str()] = std::stoull(m[3].str(), nullptr, 0);
    } else if (cur && std::regex_search(line, m, open)) {
      cur->group_fd = std::stoi(m[1].str());
      if (m[2].matched) cur->fd = std::stoi(m[2].str());
      out.push_back(*cur);
      cur.reset();
    }
  }
  return out;
}

// Consecutive opens of one event (perf retrying without a feature the kernel refused):
// the first is what perf built from the string; keep it, and whether a retry succeeded.
struct PerfEvent {
  PerfAttr first;
  bool opened_after_retry = false;
};
std::vector<PerfEvent> collapse_retries(const std::vector<PerfAttr>& attrs) {
  std::vector<PerfEvent> out;
  for (const PerfAttr& a : attrs) {
    const auto same = [&](const PerfAttr& b) {
      for (const char* k : {"type", "config", "config1", "config2", "bp_type"})
        if ((a.fields.count(k) ? a.fields.at(k) : 0) != (b.fields.count(k) ? b.fields.at(k) : 0)) return false;
      return true;
    };
    if (!out.empty() && !out.back().first.fd && !out.back().opened_after_retry && same(out.back().first)) {
      if (a.fd) out.back().opened_after_retry = true;
      continue;
    }
    out.push_back({a, false});
  }
  return out;
}

constexpr const char* kCompared[] = {"type",         "config",        "config1",      "config2",     "bp_type",
                                     "exclude_user", "exclude_kernel", "exclude_hv",   "exclude_idle", "exclude_host",
                                     "exclude_guest", "precise_ip",   "pinned",       "exclusive",
                                     // the per-open flags perf stat sets, as obscheck programs them
                                     "disabled", "inherit", "enable_on_exec", "read_format"};

std::uint64_t obs_field(const json& attr, const std::string& k) {
  if (k == "config1" && attr.contains("bp_addr")) return attr.at("bp_addr").get<std::uint64_t>();
  if (k == "config2" && attr.contains("bp_len")) return attr.at("bp_len").get<std::uint64_t>();
  return attr.contains(k) ? attr.at(k).get<std::uint64_t>() : 0;
}

}  // namespace

TEST_CASE("perf's test strings encode as perf stat -vv encodes them on this host") {
  if (access(kPerf, X_OK) != 0) {
    WARN("SKIPPED: perf is not installed (tools/bootstrap installs linux-perf): nothing to compare with");
    return;
  }
  std::ifstream in(std::string(OBSCHECK_GOLDEN_DIR) + "/events/perf/parse_events.json");
  const json doc = json::parse(in);
  int compared_strings = 0, compared_events = 0;
  std::vector<std::string> not_here;
  // perf opens every tracepoint a wildcard names (about 2,000 for "*:*"), each open
  // waiting on the kernel rather than on a CPU: 50 s for "*:*" alone under load, most of
  // the test. Those are started first, side by side, and overlap the other strings.
  std::map<std::string, std::future<std::string>> started;
  for (const json& c : doc.at("cases"))
    if (const std::string spec = c.at("spec").get<std::string>(); spec.find('*') != std::string::npos)
      started.emplace(spec, std::async(std::launch::async, perf_vv, spec));
  for (const json& c : doc.at("cases")) {
    const std::string spec = c.at("spec").get<std::string>();
    INFO("'" << spec << "'");
    const std::string text = started.count(spec) ? started.at(spec).get() : perf_vv(spec);
    const auto enc = run_cli({"events", "--encode", spec, "--json"});
    if (text.find("event syntax error") != std::string::npos) {
      // perf rejects it on this host (no cpu or intel_pt PMU here): obscheck must too.
      CHECK(enc.code == 4);
      not_here.push_back(spec);
      continue;
    }
    REQUIRE(enc.code == 0);
    const json obs = json::parse(enc.out);
    const auto perf = collapse_retries(parse_perf_vv(text));
    REQUIRE_FALSE(perf.empty());
    const json& events = obs.at("events");
    if (spec.find('*') != std::string::npos) {  // wildcards: the same tracepoints, the same bits
      std::multiset<std::vector<std::uint64_t>> a, b;
      for (const PerfEvent& p : perf) {
        std::vector<std::uint64_t> v;
        for (const char* k : kCompared) v.push_back(p.first.fields.count(k) ? p.first.fields.at(k) : 0);
        a.insert(v);
      }
      for (const json& e : events) {
        std::vector<std::uint64_t> v;
        for (const char* k : kCompared) v.push_back(obs_field(e.at("attr"), k));
        b.insert(v);
      }
      if (spec == "*:*") {
        // perf stops at the first tracepoint the kernel refuses outright (EPERM on
        // some debugging events): what it printed until then must all be in obscheck's.
        for (const auto& v : a) {
          INFO("tracepoint id " << v[1]);
          CHECK(b.count(v) > 0);
        }
      } else {
        CHECK(a == b);
      }
      compared_events += static_cast<int>(perf.size());
      ++compared_strings;
      continue;
    }
    // perf prints the events it tried to open, in order; after a group leader it
    // cannot open (no hardware PMU on a KVM guest) it skips the group's members.
    std::size_t next = 0;
    std::map<int, std::size_t> fd_to_index;
    for (const PerfEvent& p : perf) {
      const auto type = p.first.fields.count("type") ? p.first.fields.at("type") : 0;
      const auto config = p.first.fields.count("config") ? p.first.fields.at("config") : 0;
      while (next < events.size() && !(obs_field(events[next].at("attr"), "type") == type &&
                                       obs_field(events[next].at("attr"), "config") == config))
        ++next;
      REQUIRE(next < events.size());
      const json& e = events[next];
      INFO("event " << next << " " << e.at("name").get<std::string>());
      for (const char* k : kCompared) {
        INFO("field " << k);
        std::uint64_t want = p.first.fields.count(k) ? p.first.fields.at(k) : 0;
        // perf drops exclude_guest and opens again where a PMU refuses it; obscheck
        // opens once and encodes what perf ends up opening (events/resolve.cpp).
        if (std::string(k) == "exclude_guest" && p.opened_after_retry) want = 0;
        CHECK(obs_field(e.at("attr"), k) == want);
      }
      if (p.first.fd) fd_to_index[*p.first.fd] = next;
      const std::size_t leader = p.first.group_fd < 0 ? next : fd_to_index.at(p.first.group_fd);
      CHECK(e.at("leader").get<std::size_t>() == leader);
      ++compared_events;
      ++next;
    }
    ++compared_strings;
  }
  WARN("compared " << compared_strings << " of " << doc.at("cases").size() << " strings (" << compared_events
                   << " events) with perf; " << not_here.size() << " need a PMU this host lacks (perf rejects them too)");
  CHECK(compared_strings + not_here.size() == doc.at("cases").size());
  CHECK(compared_strings >= 58);
}

TEST_CASE("cs is ctx-switches and faults is page-faults, counted the same on a fixed target") {
  const auto a = run_cli({"events", "--encode", "cs,ctx-switches,context-switches,faults,page-faults", "--json"});
  REQUIRE(a.code == 0);
  const json ev = json::parse(a.out).at("events");
  CHECK(ev[0].at("attr") == ev[1].at("attr"));
  CHECK(ev[0].at("attr") == ev[2].at("attr"));
  CHECK(ev[3].at("attr") == ev[4].at("attr"));
  // Counted together (one group each), run by run, on a program that touches 200 pages.
  const auto m = run_cli({"measure", "--counters", "{cs,ctx-switches},{faults,page-faults}", "--runs", "3", "--json",
                          "--", obscheck::test::workload("pagetouch"), "200"});
  INFO(m.err);
  REQUIRE(m.code == 0);
  std::map<std::string, json> values;
  const json measured = json::parse(m.out);
  for (const json& metric : measured.at("metrics")) values[metric.at("name").get<std::string>()] = metric.at("values");
  REQUIRE(values.at("cs").size() == 3);
  CHECK(values.at("cs") == values.at("ctx-switches"));
  CHECK(values.at("faults") == values.at("page-faults"));
  CHECK(values.at("faults")[0].get<double>() >= 200);
}
