// The streaming journal reader: the table it builds, the integrity check, and damaged
// or hostile journals, each refused with its line and field (Error(io): exit 6).
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include <catch2/catch.hpp>
#include <fmt/format.h>

#include <cmath>
#include <cstring>
#include <filesystem>
#include <functional>
#include <fstream>
#include <sstream>

#include "record/journal.h"
#include "record/journal_reader.h"
#include "record/run_table.h"
#include "util/crc32c.h"
#include "util/error.h"

#include "../temp_dir.h"

using namespace obscheck;
using obscheck::test::TempDir;
namespace fs = std::filesystem;

namespace {

const std::string kGolden = std::string(OBSCHECK_GOLDEN_DIR) + "/check/journal.jsonl";
const std::string kFixture = std::string(OBSCHECK_GOLDEN_DIR) + "/report/fixture-check.jsonl";

std::vector<std::string> lines_of(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::vector<std::string> out;
  for (std::string l; std::getline(in, l);) out.push_back(l);
  return out;
}

void write_lines(const std::string& path, const std::vector<std::string>& lines, bool check) {
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  for (const std::string& l : lines) out << (check ? with_line_check(l) : l) << '\n';
}

std::string replaced(std::string s, const std::string& from, const std::string& to) {
  const auto at = s.find(from);
  REQUIRE(at != std::string::npos);
  return s.replace(at, from.size(), to);
}

// The golden journal's line 5 (run index 3) with `from` changed to `to`, written with
// integrity checks on every line; `recheck`: the changed line's check is recomputed
// (as a careless or hostile editor would), else the original check is kept.
std::string damaged(const TempDir& dir, const std::string& from, const std::string& to, bool recheck) {
  std::vector<std::string> lines = lines_of(kGolden);
  for (std::string& l : lines) l = with_line_check(l);
  std::string& five = lines[4];
  const std::string body = five.substr(0, five.rfind(",\"crc32c\":")) + "}";
  five = recheck ? with_line_check(replaced(body, from, to)) : replaced(five, from, to);
  const std::string path = dir.file("damaged.jsonl");
  write_lines(path, lines, false);
  return path;
}

// Both readers refuse it with the same message, as Error(io) (exit 6).
std::string refusal(const std::string& path) {
  std::string table_msg, record_msg;
  try {
    read_journal_table(path);
  } catch (const Error& e) {
    CHECK(e.kind() == ErrorKind::io);
    table_msg = e.what();
  }
  try {
    load_journal(path);
  } catch (const Error& e) {
    CHECK(e.kind() == ErrorKind::io);
    record_msg = e.what();
  }
  CHECK(table_msg == record_msg);
  return table_msg;
}

bool same(double a, double b) { return (std::isnan(a) && std::isnan(b)) || a == b; }

void check_equal(const RunTable& a, const RunTable& b) {
  REQUIRE(a.size() == b.size());
  CHECK(a.index == b.index);
  CHECK(a.block == b.block);
  CHECK(a.config == b.config);
  CHECK(a.warmup == b.warmup);
  CHECK(a.timed_out == b.timed_out);
  CHECK(a.signal == b.signal);
  CHECK(a.exit_code == b.exit_code);
  CHECK(a.digest == b.digest);
  CHECK(a.digests == b.digests);
  for (auto col : {&RunTable::wall_ns, &RunTable::utime_ns, &RunTable::stime_ns, &RunTable::maxrss_kb, &RunTable::minflt,
                   &RunTable::nvcsw, &RunTable::nivcsw, &RunTable::host_other_cpu_ns, &RunTable::host_procs_running}) {
    REQUIRE((a.*col).size() == a.size());
    REQUIRE((b.*col).size() == b.size());
    for (std::size_t i = 0; i < a.size(); ++i) CHECK(same((a.*col)[i], (b.*col)[i]));
  }
  REQUIRE(a.readings.size() == b.readings.size());
  for (std::size_t c = 0; c < a.readings.size(); ++c) {
    CHECK(a.readings[c].name == b.readings[c].name);
    CHECK(a.readings[c].multiplexed == b.readings[c].multiplexed);
    for (std::size_t i = 0; i < a.size(); ++i) {
      CHECK(same(a.readings[c].value[i], b.readings[c].value[i]));
      CHECK(same(a.readings[c].scale[i], b.readings[c].scale[i]));
    }
  }
}

long maxrss_kb() {
  struct rusage u {};
  ::getrusage(RUSAGE_SELF, &u);
  return u.ru_maxrss;
}

}  // namespace

TEST_CASE("crc32c gives the catalogue's check value") {
  CHECK(crc32c("123456789") == 0xE3069283u);
  CHECK(crc32c("") == 0u);
  // Continuing a CRC over a split gives the CRC of the whole.
  CHECK(crc32c("56789", crc32c("1234")) == 0xE3069283u);
  CHECK(with_line_check("{\"type\":\"note\"}") == "{\"type\":\"note\",\"crc32c\":\"" +
                                                      fmt::format("{:08x}", crc32c("{\"type\":\"note\"")) + "\"}");
}

TEST_CASE("the streaming reader's table equals run_table_of(load_journal) on the golden journals") {
  for (const std::string& path : {kGolden, kFixture}) {
    INFO(path);
    const JournalTable t = read_journal_table(path);
    const JournalData d = load_journal(path);
    check_equal(t.runs, run_table_of(d.runs));
    CHECK(t.manifest == d.manifest);
    CHECK(t.notes == d.notes);
    CHECK(t.runs.size() == 110);
    CHECK(t.scan.runs == 110);
    CHECK(t.scan.lines == 112);
    CHECK_FALSE(t.scan.torn_tail);
    // Written before lines carried a check: read, with a note.
    CHECK(t.scan.unchecked_lines == 112);
    CHECK(integrity_warning(t.scan) ==
          "112 of the journal's 112 lines carry no integrity check (written by an older obscheck): they were "
          "validated field by field, but a plausible changed value cannot be detected");
  }
}

TEST_CASE("a journal whose lines carry checks reads the same, and the check is verified") {
  TempDir dir;
  const std::string path = dir.file("checked.jsonl");
  write_lines(path, lines_of(kGolden), true);
  const JournalTable t = read_journal_table(path);
  check_equal(t.runs, read_journal_table(kGolden).runs);
  CHECK(t.scan.unchecked_lines == 0);
  CHECK(integrity_warning(t.scan).empty());
  CHECK_FALSE(t.manifest.contains("crc32c"));
  CHECK(t.notes.back() == nlohmann::json{{"kind", "finished"}, {"runs", 110}, {"type", "note"}});
}

TEST_CASE("damaged journals are refused with their line and field") {
  TempDir dir;
  SECTION("a flipped digit: the integrity check names the line") {
    CHECK(refusal(damaged(dir, "\"wall_ns\":7536238", "\"wall_ns\":7536288", false)) ==
          "journal " + dir.file("damaged.jsonl") +
              " line 5: its integrity check (crc32c) does not match: the line was changed after it was written");
  }
  SECTION("a value x100 is plausible: only the integrity check catches it") {
    CHECK(refusal(damaged(dir, "\"value\":261618.0", "\"value\":26161800.0", false)) ==
          "journal " + dir.file("damaged.jsonl") +
              " line 5: its integrity check (crc32c) does not match: the line was changed after it was written");
    // Without the check (a journal of an older writer) the same edit is read as data.
    std::vector<std::string> lines = lines_of(kGolden);
    lines[4] = replaced(lines[4], "\"value\":261618.0", "\"value\":26161800.0");
    const std::string old = dir.file("old.jsonl");
    write_lines(old, lines, false);
    CHECK(read_journal_table(old).runs.find("task-clock")->value[3] == 26161800.0);
  }
  SECTION("a negative count") {
    CHECK(refusal(damaged(dir, "\"value\":261618.0", "\"value\":-261618.0", true)) ==
          "journal " + dir.file("damaged.jsonl") + " line 5: field readings[0].value -261618 is a negative count");
  }
  SECTION("huge numbers") {
    CHECK(refusal(damaged(dir, "\"wall_ns\":7536238", "\"wall_ns\":1e30", true)) ==
          "journal " + dir.file("damaged.jsonl") + " line 5: field exit.wall_ns 1e30 is not a whole number");
    CHECK(refusal(damaged(dir, "\"wall_ns\":7536238", "\"wall_ns\":99999999999999999999", true)) ==
          "journal " + dir.file("damaged.jsonl") + " line 5: field exit.wall_ns 99999999999999999999 is too large");
    CHECK(refusal(damaged(dir, "\"wall_ns\":7536238", "\"wall_ns\":9007199254740993", true)) ==
          "journal " + dir.file("damaged.jsonl") +
              " line 5: field exit.wall_ns 9007199254740993 is beyond 9007199254740992 (2^53 ns, 104 days)");
    CHECK(refusal(damaged(dir, "\"value\":261618.0", "\"value\":1e400", true)) ==
          "journal " + dir.file("damaged.jsonl") + " line 5: field readings[0].value 1e400 is beyond a double's range");
    CHECK(refusal(damaged(dir, "\"minflt\":83", "\"minflt\":-83", true)) ==
          "journal " + dir.file("damaged.jsonl") + " line 5: field rusage.minflt -83 is negative");
  }
  SECTION("a host load that is not a number, or not an object") {
    CHECK(refusal(damaged(dir, "\"extra\":{\"output_head\"",
                          "\"extra\":{\"host\":{\"procs_running\":\"many\"},\"output_head\"", true)) ==
          "journal " + dir.file("damaged.jsonl") + " line 5: field extra.host.procs_running is not a number");
    CHECK(refusal(damaged(dir, "\"extra\":{\"output_head\"", "\"extra\":{\"host\":\"busy\",\"output_head\"", true)) ==
          "journal " + dir.file("damaged.jsonl") + " line 5: field extra.host is not an object");
  }
  SECTION("indexes, configurations and blocks out of the plan") {
    CHECK(refusal(damaged(dir, "\"block\":0", "\"block\":4000000000", true)) ==
          "journal " + dir.file("damaged.jsonl") + " line 5: field block 4000000000 is beyond the plan's 11 blocks");
    CHECK(refusal(damaged(dir, "\"config\":9", "\"config\":99", true)) ==
          "journal " + dir.file("damaged.jsonl") +
              " line 5: field config 99 is not a configuration of the plan (it has 10)");
    CHECK(refusal(damaged(dir, "\"index\":3", "\"index\":13", true)) ==
          "journal " + dir.file("damaged.jsonl") +
              " line 5: field index 13 is not block 0 position 3 of the plan (index 3)");
    CHECK(refusal(damaged(dir, "\"index\":3", "\"index\":\"3\"", true)) ==
          "journal " + dir.file("damaged.jsonl") + " line 5: field index is not a number");
    CHECK(refusal(damaged(dir, "\"signal\":0", "\"signal\":1000", true)) ==
          "journal " + dir.file("damaged.jsonl") + " line 5: field exit.signal 1000 is not a signal number (0..127)");
  }
  SECTION("a truncated line") {
    std::vector<std::string> lines = lines_of(kGolden);
    lines[4].resize(lines[4].size() / 2);
    const std::string path = dir.file("cut.jsonl");
    write_lines(path, lines, false);
    CHECK(refusal(path) == "journal " + path + " line 5: not valid JSON");
  }
  SECTION("a last line without its newline is a torn tail: ignored, and said") {
    const std::string text = [] {
      std::ifstream in(kGolden, std::ios::binary);
      std::ostringstream s;
      s << in.rdbuf();
      return s.str();
    }();
    const std::string path = dir.file("torn.jsonl");
    const std::size_t last_run_end = text.rfind('\n', text.size() - 2);  // before the note
    std::ofstream(path, std::ios::binary) << text.substr(0, last_run_end - 40);
    const JournalTable t = read_journal_table(path);
    CHECK(t.scan.torn_tail);
    CHECK(t.runs.size() == 109);
    CHECK(load_journal(path).torn_tail);
  }
  SECTION("a directory, a device, a line without end") {
    CHECK(refusal(dir.path.string()) == "journal " + dir.path.string() + " is a directory, not a journal");
    const long before = maxrss_kb();
    CHECK(refusal("/dev/zero") == "journal /dev/zero is not a regular file (a device, pipe or socket)");
    const std::string endless = dir.file("endless.jsonl");
    {
      std::ofstream out(endless, std::ios::binary);
      const std::string mib(1 << 20, 'x');
      for (int i = 0; i < 40; ++i) out << mib;
    }
    CHECK(refusal(endless) == "journal " + endless + " line 1: longer than 8 MiB: not a journal line");
    // The reader held at most twice the line limit (its buffer as it grows), not
    // the 40 MiB file.
    CHECK(maxrss_kb() - before < 24 * 1024);
  }
}

TEST_CASE("a journal is read while another process appends to it") {
  TempDir dir;
  const std::vector<std::string> lines = lines_of(kGolden);
  const std::string path = dir.file("growing.jsonl");
  write_lines(path, {lines.begin(), lines.begin() + 3}, true);  // the manifest and 2 runs
  int go[2], ready[2];
  REQUIRE(::pipe(go) == 0);
  REQUIRE(::pipe(ready) == 0);
  const pid_t child = ::fork();
  REQUIRE(child >= 0);
  if (child == 0) {
    // The writer: each further line in two writes, waiting for the reader in between.
    std::FILE* f = std::fopen(path.c_str(), "a");
    for (std::size_t i = 3; i < 8; ++i) {
      const std::string line = with_line_check(lines[i]) + "\n";
      const std::size_t half = line.size() / 2;
      char c;
      std::fwrite(line.data(), 1, half, f);
      std::fflush(f);
      if (::write(ready[1], "h", 1) != 1 || ::read(go[0], &c, 1) != 1) ::_exit(1);
      std::fwrite(line.data() + half, 1, line.size() - half, f);
      std::fflush(f);
      if (::write(ready[1], "w", 1) != 1 || ::read(go[0], &c, 1) != 1) ::_exit(1);
    }
    ::_exit(0);
  }
  for (std::size_t i = 3; i < 8; ++i) {
    char c;
    REQUIRE(::read(ready[0], &c, 1) == 1);
    const JournalTable half = read_journal_table(path);
    CHECK(half.runs.size() == i - 1);  // the runs so far; the line being written ignored
    CHECK(half.scan.torn_tail);
    REQUIRE(::write(go[1], "g", 1) == 1);
    REQUIRE(::read(ready[0], &c, 1) == 1);
    const JournalTable whole = read_journal_table(path);
    CHECK(whole.runs.size() == i);
    CHECK_FALSE(whole.scan.torn_tail);
    REQUIRE(::write(go[1], "g", 1) == 1);
  }
  int status = 0;
  REQUIRE(::waitpid(child, &status, 0) == child);
  CHECK(WIFEXITED(status));
  CHECK(WEXITSTATUS(status) == 0);
}

TEST_CASE("the writer ends every line with its integrity check") {
  TempDir dir;
  const std::string path = dir.file("w.jsonl");
  const std::vector<std::string> golden = lines_of(kGolden);
  {
    JournalWriter w = JournalWriter::create(path, nlohmann::json::parse(golden[0]));
    const JournalData d = load_journal(kGolden);
    for (std::size_t i = 0; i < 5; ++i) w.append(d.runs[i]);
    w.append_note({{"kind", "finished"}});
  }
  const std::vector<std::string> written = lines_of(path);
  REQUIRE(written.size() == 7);
  for (const std::string& l : written) CHECK(line_check(l) == LineCheck::ok);
  // The run lines are the golden ones, plus the check.
  for (std::size_t i = 1; i < 6; ++i) CHECK(written[i] == with_line_check(golden[i]));
  const JournalTable t = read_journal_table(path);
  CHECK(t.scan.unchecked_lines == 0);
  CHECK(t.runs.size() == 5);
}

TEST_CASE("the scanner decodes escaped strings and refuses what is not one JSON object") {
  RunFields f;
  std::string type;
  std::optional<FieldError> error;
  REQUIRE(parse_run_line(R"({"type":"r\u0075n","config_id":"a\"b\\c","extra":{"k":"}\"{"}})", f, type, error));
  CHECK(type == "run");
  CHECK(f.config_id == "a\"b\\c");
  CHECK(f.extra == R"({"k":"}\"{"})");
  REQUIRE(error);
  CHECK(error->field == "index");
  CHECK(error->why == "is missing");
  CHECK_FALSE(parse_run_line(R"({"type":"run"} {})", f, type, error));      // two values
  CHECK_FALSE(parse_run_line(R"({"type":"run\"})", f, type, error));        // unterminated string
  CHECK_FALSE(parse_run_line(std::string(100, '[') + std::string(100, ']'), f, type, error));  // not an object
  CHECK_FALSE(parse_run_line("{\"a\":" + std::string(100, '[') + std::string(100, ']') + "}", f, type, error));  // too deep
  CHECK(parse_run_line("{\"a\":" + std::string(60, '[') + std::string(60, ']') + "}", f, type, error));
  CHECK_FALSE(parse_run_line("{\"type\":\"note\x01\"}", f, type, error));  // a raw control character
}

TEST_CASE("a manifest of the wrong shape is named, not a JSON type error later") {
  TempDir dir;
  const std::string path = dir.file("m.jsonl");
  std::vector<std::string> lines = lines_of(kGolden);
  auto with_manifest = [&](const std::function<void(nlohmann::json&)>& edit) {
    nlohmann::json m = nlohmann::json::parse(lines[0]);
    edit(m);
    std::vector<std::string> copy = lines;
    copy[0] = m.dump();
    write_lines(path, copy, true);
    return refusal(path);
  };
  CHECK(with_manifest([](nlohmann::json& m) { m["format"] = 1; }) ==
        "journal " + path + " line 1: format is not \"obscheck-journal\"");
  CHECK(with_manifest([](nlohmann::json& m) { m["options"]["margin"] = "wide"; }) ==
        "journal " + path + " line 1: field options.margin has the wrong type");
  // The observer's lists are read once into typed values; a damaged one is named.
  CHECK(with_manifest([](nlohmann::json& m) { m["options"]["observer"]["sample_freq"] = "0,x"; }) ==
        "journal " + path + " line 1: field options.observer.sample_freq is malformed: --sample-freq: 'x' is "
        "not a whole number from 0 to 18446744073709551615");
  CHECK(with_manifest([](nlohmann::json& m) { m["options"]["observer"]["probes"] = "auto:0"; }) ==
        "journal " + path + " line 1: field options.observer.probes is malformed: --probes auto:0: N is the "
        "number of probes to dose, 1 to 4096");
  CHECK(with_manifest([](nlohmann::json& m) { m["options"]["observer"] = 5; }) ==
        "journal " + path + " line 1: field options.observer has the wrong type");
  CHECK(with_manifest([](nlohmann::json& m) { m["target"]["argv"] = {1, 2}; }) ==
        "journal " + path + " line 1: field target.argv has the wrong type");
  CHECK(with_manifest([](nlohmann::json& m) { m.erase("target"); }) ==
        "journal " + path + " line 1: the manifest has no options or no target.argv");
  CHECK(with_manifest([](nlohmann::json& m) { m["env"][0]["bytes"] = -1; }) ==
        "journal " + path + " line 1: an entry of field env is not {\"name\": string, \"bytes\": count}");
}

TEST_CASE("a reading's fault is journalled and read back, none is written when there is none") {
  RunRecord r;
  r.config_id = "c";
  Reading bad;
  bad.name = "cycles";
  bad.raw = 0;
  bad.time_enabled = bad.time_running = 1000;
  bad.value = std::nan("");
  bad.fault = "cycles reads 0 although it ran 1000 ns: the PMU did not count it";
  Reading good;
  good.name = "task-clock";
  good.raw = good.time_enabled = good.time_running = 1000;
  good.value = 1000;
  r.readings = {bad, good};
  const std::string line = run_line(r);
  CHECK(line.find("\"fault\":\"cycles reads 0") != std::string::npos);
  CHECK(line.find("\"fault\"") == line.rfind("\"fault\""));  // only the faulty reading has one
  RunFields f;
  std::string type;
  std::optional<FieldError> error;
  REQUIRE(parse_run_line(line, f, type, error));
  CHECK_FALSE(error);
  const RunRecord fast = run_record_of(f);
  REQUIRE(fast.readings.size() == 2);
  CHECK(fast.readings[0].fault == bad.fault);
  CHECK(fast.readings[1].fault.empty());
  const RunRecord back = run_record_from_line(line);
  CHECK(back.readings[0].fault == bad.fault);
  CHECK(back.readings[1].fault.empty());
}

TEST_CASE("obscheck's own peak before exec is journalled, read back and checked, and older lines have none") {
  RunRecord r;
  r.config_id = "c";
  r.exit.usage.ru_maxrss = 7324;
  r.exit.pre_exec_maxrss_kb = 7000;
  const std::string line = run_line(r);
  // In the order the JSON tree sorts its keys: the fast writer and to_json agree.
  CHECK(line.find(R"("nvcsw":0,"pre_exec_maxrss_kb":7000,"stime_ns":0,)") != std::string::npos);
  CHECK(nlohmann::json::parse(line) == nlohmann::json(r));
  RunFields f;
  std::string type;
  std::optional<FieldError> error;
  REQUIRE(parse_run_line(line, f, type, error));
  CHECK_FALSE(error);
  CHECK(f.pre_exec_maxrss_kb == std::optional<std::uint64_t>(7000));
  CHECK(run_record_of(f).exit.pre_exec_maxrss_kb == std::optional<std::uint64_t>(7000));
  CHECK(run_record_from_line(line).exit.pre_exec_maxrss_kb == std::optional<std::uint64_t>(7000));
  const RunTable t = run_table_of({r});
  CHECK(t.pre_exec_maxrss_kb[0] == 7000);
  CHECK(t.maxrss_kb[0] == 7324);

  // Unknown (a line written before the field was kept, or a child that could not
  // report): no key, nullopt, NaN in the table; the same RunFields reused forgets it.
  RunRecord old = r;
  old.exit.pre_exec_maxrss_kb.reset();
  const std::string old_line = run_line(old);
  CHECK(old_line.find("pre_exec") == std::string::npos);
  CHECK(nlohmann::json::parse(old_line) == nlohmann::json(old));
  REQUIRE(parse_run_line(old_line, f, type, error));
  CHECK_FALSE(f.pre_exec_maxrss_kb);
  CHECK_FALSE(run_record_from_line(old_line).exit.pre_exec_maxrss_kb);
  CHECK(std::isnan(run_table_of({old}).pre_exec_maxrss_kb[0]));

  // Its type and range are held like every count's.
  const auto with = [&](const std::string& value) {
    std::string bad = line;
    const std::string key = "\"pre_exec_maxrss_kb\":7000";
    bad.replace(bad.find(key), key.size(), "\"pre_exec_maxrss_kb\":" + value);
    return bad;
  };
  CHECK_THROWS_WITH(run_record_from_line(with("-1")), Catch::Contains("pre_exec_maxrss_kb"));
  CHECK_THROWS_WITH(run_record_from_line(with("\"7000\"")), Catch::Contains("pre_exec_maxrss_kb"));
  CHECK_THROWS_WITH(run_record_from_line(with("1.5")), Catch::Contains("pre_exec_maxrss_kb"));
  CHECK_THROWS_WITH(run_record_from_line(with("9007199254740993")),
                    Catch::Contains("rusage.pre_exec_maxrss_kb") && Catch::Contains("2^53"));
}
