#include <catch2/catch.hpp>

#include <chrono>
#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "record/journal.h"
#include "record/journal_reader.h"
#include "util/error.h"

#include "../temp_dir.h"

using namespace obscheck;
using obscheck::test::TempDir;
namespace fs = std::filesystem;

namespace {

// 2026-11-20 23:59:59 UTC.
const auto kCreated = std::chrono::sys_days{std::chrono::year{2026} / 11 / 20} +
                      std::chrono::hours{23} + std::chrono::minutes{59} + std::chrono::seconds{59};

Plan small_plan() {
  PlanSpec s;
  s.counters = {"task-clock", "page-faults"};
  s.levels = counter_levels(s.counters);
  s.layouts = {Layout::held};
  s.seed = 42;
  return make_plan(s);  // 3 levels + the A/A copy: 4 configurations per block
}

nlohmann::json manifest_for(const Plan& plan, std::vector<std::string> env = {"PATH=/usr/bin"}) {
  ManifestInput in;
  in.obscheck_version = "0.1.0";
  in.created = kCreated;
  in.host = {{"kernel", "6.1.0"}};
  in.options = {{"counters", "task-clock,page-faults"}, {"runs", nullptr}};
  in.target = {"/bin/true", {"true", "--flag"}, std::string(64, 'a')};
  in.env = std::move(env);
  return make_manifest(in, plan);
}

RunRecord sample_run(const Plan& plan, std::size_t index) {
  RunRecord r = run_record_for(plan, trial_at(plan, index));
  r.env_bytes = 1234 + index;
  r.exit.exit_code = 0;
  r.exit.wall_ns = 1'500'000 + index;
  r.exit.usage.ru_utime = {1, 250};    // 1 s 250 us
  r.exit.usage.ru_stime = {0, 999999};
  r.exit.usage.ru_maxrss = 2048;
  r.exit.usage.ru_minflt = 77;
  r.exit.usage.ru_majflt = 1;
  r.exit.usage.ru_nvcsw = 3;
  r.exit.usage.ru_nivcsw = 4;
  r.exit.output_digest = std::string(64, 'b');
  r.exit.output_bytes = 12;
  Reading exact{"task-clock", 1000 + index, 500, 500, 1000.0 + index, false, 1.0};
  Reading never_ran{"page-faults", 0, 500, 0, std::nan(""), true, std::nan("")};
  r.readings = {exact, never_ran};
  r.extra = {{"pad", 17}};
  return r;
}

std::string slurp(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::ostringstream s;
  s << in.rdbuf();
  return s.str();
}

void append_raw(const std::string& path, const std::string& bytes) {
  std::ofstream out(path, std::ios::binary | std::ios::app);
  out << bytes;
}

std::size_t count_lines(const std::string& text) {
  return static_cast<std::size_t>(std::count(text.begin(), text.end(), '\n'));
}

}  // namespace

TEST_CASE("write then load round-trips every field, NaN included") {
  TempDir dir;
  const Plan plan = small_plan();
  const std::string path = dir.file("j.jsonl");
  {
    auto w = JournalWriter::create(path, manifest_for(plan));
    w.append(sample_run(plan, 0));
    w.append(sample_run(plan, 1));
    w.append_note({{"kind", "look"}, {"blocks", 10}});
  }
  const JournalData d = load_journal(path);
  CHECK_FALSE(d.torn_tail);
  CHECK(d.manifest.at("created") == "2026-11-20T23:59:59Z");
  CHECK(d.manifest.at("seed") == 42);
  CHECK(d.manifest.at("target").at("argv") == nlohmann::json{"true", "--flag"});
  REQUIRE(d.runs.size() == 2);
  REQUIRE(d.notes.size() == 1);
  CHECK(d.notes[0].at("kind") == "look");
  CHECK(d.notes[0].at("type") == "note");

  const RunRecord want = sample_run(plan, 1);
  const RunRecord& got = d.runs[1];
  CHECK(got.index == 1);
  CHECK(got.block == want.block);
  CHECK(got.position == want.position);
  CHECK(got.config == want.config);
  CHECK(got.config_id == plan.configs[want.config].id);
  CHECK(got.warmup);  // block 0 is the warm-up block
  CHECK(got.env_bytes == 1235);
  CHECK(got.exit.exit_code == 0);
  CHECK(got.exit.signal == 0);
  CHECK_FALSE(got.exit.timed_out);
  CHECK(got.exit.wall_ns == 1'500'001);
  CHECK(got.exit.output_digest == std::string(64, 'b'));
  CHECK(got.exit.output_bytes == 12);
  CHECK(got.exit.usage.ru_utime.tv_sec == 1);
  CHECK(got.exit.usage.ru_utime.tv_usec == 250);
  CHECK(got.exit.usage.ru_stime.tv_usec == 999999);
  CHECK(got.exit.usage.ru_maxrss == 2048);
  CHECK(got.exit.usage.ru_minflt == 77);
  CHECK(got.exit.usage.ru_majflt == 1);
  CHECK(got.exit.usage.ru_nvcsw == 3);
  CHECK(got.exit.usage.ru_nivcsw == 4);
  REQUIRE(got.readings.size() == 2);
  CHECK(got.readings[0].name == "task-clock");
  CHECK(got.readings[0].raw == 1001);
  CHECK(got.readings[0].time_enabled == 500);
  CHECK(got.readings[0].time_running == 500);
  CHECK(got.readings[0].value == 1001.0);
  CHECK(got.readings[0].scale == 1.0);
  CHECK_FALSE(got.readings[0].multiplexed);
  CHECK(std::isnan(got.readings[1].value));
  CHECK(std::isnan(got.readings[1].scale));
  CHECK(got.readings[1].multiplexed);
  CHECK(got.extra == nlohmann::json{{"pad", 17}});

  // The plan comes back from the manifest alone.
  const Plan again = plan_from_journal(d);
  CHECK(again.spec == plan.spec);
  CHECK(block_order(again, 7) == block_order(plan, 7));
}

TEST_CASE("the run line uses the documented schema") {
  const Plan plan = small_plan();
  const nlohmann::json j = sample_run(plan, 2);
  CHECK(j.at("type") == "run");
  CHECK(j.at("exit").at("code") == 0);
  CHECK(j.at("exit").at("output_sha256") == std::string(64, 'b'));
  CHECK(j.at("rusage").at("utime_ns") == 1'000'250'000ULL);
  CHECK(j.at("rusage").at("stime_ns") == 999'999'000ULL);
  CHECK(j.at("readings")[1].at("value").is_null());
  CHECK(j.at("readings")[0].at("enabled") == 500);
  ExitInfo not_captured;
  CHECK(nlohmann::json(not_captured).at("output_sha256").is_null());
}

TEST_CASE("run_line writes exactly the JSON of to_json") {
  const Plan plan = small_plan();
  RunRecord r = sample_run(plan, 2);
  // Strings that need escaping, invalid UTF-8, fractions, exponents, a signal and a
  // timeout, a reading without output digest: each must come out as nlohmann writes it.
  r.config_id = "a \"quoted\" id\twith\\escapes\n\x01";
  r.readings[0].name = "caf\xc3\xa9 \xff bad";
  r.readings[0].value = 0.1;
  r.readings[0].scale = 1.5e-300;
  r.readings.push_back(Reading{"big", 18'446'744'073'709'551'615ULL, 1, 1, 1e22, true, 3.0});
  r.exit.signal = 9;
  r.exit.exit_code = -1;
  r.exit.timed_out = true;
  r.exit.output_digest.clear();
  r.extra = {{"probe_hits", {{"f", 3}}}, {"output_head", "x=\"1\""}};
  r.warmup = true;
  const std::string dumped = nlohmann::json(r).dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
  CHECK(run_line(r) == dumped);
  CHECK(run_line(sample_run(plan, 0)) ==
        nlohmann::json(sample_run(plan, 0)).dump(-1, ' ', false, nlohmann::json::error_handler_t::replace));
  RunRecord empty;
  empty.readings.clear();
  CHECK(run_line(empty) == nlohmann::json(empty).dump());
}

TEST_CASE("each line is written at once and synced in batches until a note or sync()") {
  TempDir dir;
  const Plan plan = small_plan();
  const std::string path = dir.file("j.jsonl");
  auto w = JournalWriter::create(path, manifest_for(plan));
  // The manifest waits for the first sync like any line, but is in the file at once.
  CHECK(w.unsynced_lines() == 1);
  CHECK(load_journal(path).manifest.at("type") == "manifest");

  // An interval no test run reaches: lines wait for a note or sync(), but each is in
  // the file (another reader sees it) as soon as append returns.
  w.set_sync_interval(std::chrono::hours{1});
  w.append(sample_run(plan, 0));
  w.append(sample_run(plan, 1));
  CHECK(w.unsynced_lines() == 3);
  CHECK(load_journal(path).runs.size() == 2);
  w.append_note({{"kind", "look"}});
  CHECK(w.unsynced_lines() == 0);
  w.append(sample_run(plan, 2));
  CHECK(w.unsynced_lines() == 1);
  w.sync();
  CHECK(w.unsynced_lines() == 0);

  // Interval 0: every line synced as it is appended (the unbatched behaviour).
  w.set_sync_interval(std::chrono::nanoseconds{0});
  w.append(sample_run(plan, 3));
  CHECK(w.unsynced_lines() == 0);

  // A writer moved into another keeps its unsynced lines; the file holds every line.
  w.set_sync_interval(std::chrono::hours{1});
  w.append(sample_run(plan, 4));
  JournalWriter moved = std::move(w);
  CHECK(moved.unsynced_lines() == 1);
  moved.append(sample_run(plan, 5));
  CHECK(moved.unsynced_lines() == 2);
  const JournalData d = load_journal(path);
  CHECK(d.runs.size() == 6);
  CHECK(d.notes.size() == 1);
}

TEST_CASE("create never overwrites an existing journal") {
  TempDir dir;
  const Plan plan = small_plan();
  const std::string path = dir.file("j.jsonl");
  JournalWriter::create(path, manifest_for(plan)).append(sample_run(plan, 0));
  const std::string before = slurp(path);
  try {
    JournalWriter::create(path, manifest_for(plan));
    FAIL("no throw");
  } catch (const Error& e) {
    CHECK(e.kind() == ErrorKind::io);
    CHECK(std::string(e.what()) == "journal " + path + " exists");
    CHECK(e.hint() == "use --resume " + path + " to continue it or choose another --journal");
  }
  CHECK(slurp(path) == before);
}

TEST_CASE("resume cuts a torn last line and appends after it") {
  TempDir dir;
  const Plan plan = small_plan();
  const std::string path = dir.file("j.jsonl");
  {
    auto w = JournalWriter::create(path, manifest_for(plan));
    for (std::size_t i = 0; i < 3; ++i) w.append(sample_run(plan, i));
  }
  const std::string intact = slurp(path);
  // A crash in the middle of the fourth append: half a line, no newline.
  const std::string full = nlohmann::json(sample_run(plan, 3)).dump();
  append_raw(path, full.substr(0, full.size() / 2));

  const JournalData torn = load_journal(path);
  CHECK(torn.torn_tail);
  CHECK(torn.runs.size() == 3);
  CHECK(torn.valid_bytes == intact.size());

  {
    auto resumed = JournalWriter::open_for_resume(path);
    CHECK(resumed.data.torn_tail);
    CHECK(resumed.data.runs.size() == 3);
    // A resume may still be refused (a changed binary): until the first line is
    // appended the file is left byte for byte as it was.
    CHECK(slurp(path) == intact + full.substr(0, full.size() / 2));
    const auto pending = remaining_trials(plan, resumed.data, 1);
    REQUIRE(pending.size() == 1);
    CHECK(pending[0].index == 3);
    resumed.writer.append(run_record_for(plan, pending[0]));
  }
  const JournalData d = load_journal(path);
  CHECK_FALSE(d.torn_tail);
  REQUIRE(d.runs.size() == 4);
  for (std::size_t i = 0; i < 4; ++i) CHECK(d.runs[i].index == i);
  CHECK(count_lines(slurp(path)) == 5);
}

TEST_CASE("a last line that is not JSON (zeros after a crash) is a torn tail") {
  TempDir dir;
  const Plan plan = small_plan();
  const std::string path = dir.file("j.jsonl");
  JournalWriter::create(path, manifest_for(plan)).append(sample_run(plan, 0));
  append_raw(path, std::string(40, '\0') + "\n");
  const JournalData d = load_journal(path);
  CHECK(d.torn_tail);
  CHECK(d.runs.size() == 1);
}

TEST_CASE("a repeated run index is an error naming both lines") {
  TempDir dir;
  const Plan plan = small_plan();
  const std::string path = dir.file("j.jsonl");
  {
    auto w = JournalWriter::create(path, manifest_for(plan));
    w.append(sample_run(plan, 0));
    w.append(sample_run(plan, 1));
    w.append(sample_run(plan, 0));
  }
  try {
    load_journal(path);
    FAIL("no throw");
  } catch (const Error& e) {
    CHECK(e.kind() == ErrorKind::io);
    CHECK(std::string(e.what()) ==
          "journal " + path + " line 4: run index 0 is already recorded on line 2");
  }
}

TEST_CASE("malformed lines are errors with their line number") {
  TempDir dir;
  const Plan plan = small_plan();
  const std::string path = dir.file("j.jsonl");
  JournalWriter::create(path, manifest_for(plan)).append(sample_run(plan, 0));
  append_raw(path, with_line_check("{\"type\":\"run\",\"index\":1}") + "\n");
  append_raw(path, with_line_check(nlohmann::json(sample_run(plan, 2)).dump()) + "\n");
  CHECK_THROWS_WITH(load_journal(path), "journal " + path + " line 3: field block is missing");

  const std::string garbage = dir.file("g.jsonl");
  JournalWriter::create(garbage, manifest_for(plan));
  append_raw(garbage, "not json\n");
  append_raw(garbage, nlohmann::json(sample_run(plan, 0)).dump() + "\n");
  CHECK_THROWS_WITH(load_journal(garbage), "journal " + garbage + " line 2: not valid JSON");

  const std::string notjournal = dir.file("n.jsonl");
  append_raw(notjournal, "{\"type\":\"run\"}\n");
  CHECK_THROWS_WITH(load_journal(notjournal),
                    "journal " + notjournal + " line 1: not a manifest (is this an obscheck journal?)");

  const std::string future = dir.file("f.jsonl");
  auto m = manifest_for(plan);
  m["version"] = 2;
  append_raw(future, m.dump() + "\n");
  CHECK_THROWS_WITH(load_journal(future),
                    "journal " + future + " line 1: version 2 is not one this obscheck reads (1..1)");

  const std::string empty = dir.file("e.jsonl");
  append_raw(empty, "");
  CHECK_THROWS_AS(load_journal(empty), Error);
  CHECK_THROWS_AS(load_journal(dir.file("missing.jsonl")), Error);
}

TEST_CASE("lines of unknown types are skipped") {
  TempDir dir;
  const Plan plan = small_plan();
  const std::string path = dir.file("j.jsonl");
  JournalWriter::create(path, manifest_for(plan)).append(sample_run(plan, 0));
  append_raw(path, with_line_check("{\"type\":\"calibration\",\"whatever\":[1,2,3]}") + "\n");
  append_raw(path, with_line_check(nlohmann::json(sample_run(plan, 1)).dump()) + "\n");
  const JournalData d = load_journal(path);
  REQUIRE(d.runs.size() == 2);
  CHECK(d.runs[1].index == 1);
  CHECK(d.notes.empty());
}

TEST_CASE("the manifest keeps environment names and sizes, never values") {
  TempDir dir;
  const Plan plan = small_plan();
  const std::string secret = "s3cr3t-t0ken-7f1d9a";
  const std::string path = dir.file("j.jsonl");
  JournalWriter::create(path, manifest_for(plan, {"PATH=/usr/bin", "API_TOKEN=" + secret, "EMPTY="}));
  const std::string text = slurp(path);
  CHECK(text.find(secret) == std::string::npos);
  CHECK(text.find("/usr/bin") == std::string::npos);
  const auto env = load_journal(path).manifest.at("env");
  // Each size is "NAME=value" plus its NUL, as the kernel copies it (EnvBlock::size_bytes).
  CHECK(env == nlohmann::json::parse(
                   R"([{"name":"PATH","bytes":14},{"name":"API_TOKEN","bytes":30},{"name":"EMPTY","bytes":7}])"));
}

TEST_CASE("the default journal name is timestamped and never taken twice") {
  TempDir dir;
  const Plan plan = small_plan();
  const std::string first = default_journal_path(dir.path.string(), kCreated);
  CHECK(first == dir.file("obscheck-20261120-235959.jsonl"));
  CHECK(default_journal_path("", kCreated) == "obscheck-20261120-235959.jsonl");

  auto a = JournalWriter::create_default(dir.path.string(), kCreated, manifest_for(plan));
  a.append(sample_run(plan, 0));
  auto b = JournalWriter::create_default(dir.path.string(), kCreated, manifest_for(plan));
  auto c = JournalWriter::create_default(dir.path.string(), kCreated, manifest_for(plan));
  CHECK(a.path() == first);
  CHECK(b.path() == dir.file("obscheck-20261120-235959-1.jsonl"));
  CHECK(c.path() == dir.file("obscheck-20261120-235959-2.jsonl"));
  CHECK(load_journal(first).runs.size() == 1);  // the first was not overwritten
  CHECK(default_journal_path(dir.path.string(), kCreated) ==
        dir.file("obscheck-20261120-235959-3.jsonl"));
}

TEST_CASE("resume computes the missing trials and refuses a journal of another plan") {
  TempDir dir;
  const Plan plan = small_plan();
  const std::string path = dir.file("j.jsonl");
  {
    auto w = JournalWriter::create(path, manifest_for(plan));
    // Block 0 complete, block 1 interrupted after two runs.
    for (std::size_t i : {0, 1, 2, 3, 4, 5}) w.append(sample_run(plan, i));
  }
  const JournalData d = load_journal(path);
  CHECK(completed_indexes(d) == std::set<std::size_t>{0, 1, 2, 3, 4, 5});
  CHECK(completed_blocks(plan, d) == 1);
  const auto pending = remaining_trials(plan, d, 3);
  REQUIRE(pending.size() == 6);  // 3 blocks x 4 configurations - 6 done
  const auto all = trials(plan, 0, 3);
  CHECK(pending == std::vector<Trial>(all.begin() + 6, all.end()));
  CHECK(remaining_trials(plan, d, 1).empty());
  // The same from runs held in memory, as a sweep between looks has them.
  CHECK(remaining_trials(plan, d.runs, path, 3) == pending);

  PlanSpec other = plan.spec;
  other.seed = 43;
  const Plan reseeded = make_plan(other);
  bool differs = false;
  for (std::size_t b = 0; b < 2; ++b) differs |= block_order(reseeded, b) != block_order(plan, b);
  REQUIRE(differs);
  try {
    remaining_trials(reseeded, d, 3);
    FAIL("no throw");
  } catch (const Error& e) {
    CHECK(e.kind() == ErrorKind::io);
    CHECK(std::string(e.what()).find("but the plan puts config") != std::string::npos);
  }
  CHECK_THROWS_WITH(remaining_trials(reseeded, d.runs, "in-memory.jsonl", 3),
                    Catch::Matchers::StartsWith("journal in-memory.jsonl: run "));
}

TEST_CASE("utc timestamps and env summaries") {
  CHECK(utc_iso8601(std::chrono::system_clock::time_point{}) == "1970-01-01T00:00:00Z");
  CHECK(utc_iso8601(kCreated) == "2026-11-20T23:59:59Z");
  CHECK(env_summary({"NOEQUALS"}) == nlohmann::json::parse(R"([{"name":"NOEQUALS","bytes":9}])"));
  CHECK(env_summary({}).empty());
}

TEST_CASE("a journal being written cannot be resumed: one writer, refused with ErrorKind::busy") {
  TempDir dir;
  const Plan plan = small_plan();
  const std::string path = dir.file("j.jsonl");
  {
    auto w = JournalWriter::create(path, manifest_for(plan));
    w.append(sample_run(plan, 0));
    const std::string before = slurp(path);
    try {
      JournalWriter::open_for_resume(path);
      FAIL("a second writer was let in");
    } catch (const Error& e) {
      CHECK(e.kind() == ErrorKind::busy);
      CHECK(std::string(e.what()) == "journal " + path +
                                         " is being written by another obscheck (a check or --resume still running); "
                                         "nothing was done");
    }
    CHECK(slurp(path) == before);
    // The resume that holds it keeps it, too.
  }
  auto resumed = JournalWriter::open_for_resume(path);  // the writer is gone: free again
  CHECK(resumed.data.runs.size() == 1);
  CHECK_THROWS_AS(JournalWriter::open_for_resume(path), Error);
}

TEST_CASE("a shard's manifest: the plan digest written by record/ and read back with the shard") {
  PlanSpec s = small_plan().spec;
  s.fixed_blocks = 4;
  s.shard = Shard{1, 2};
  const Plan plan = make_plan(s);
  ManifestInput in;
  in.target = {"/bin/true", {"true"}, std::string(64, 'a')};
  in.plan_digest = std::string(64, 'd');
  const nlohmann::json m = make_manifest(in, plan);
  CHECK(m.at("plan_digest") == std::string(64, 'd'));
  CHECK(manifest_plan_digest(m) == std::string(64, 'd'));
  CHECK(manifest_shard(m) == Shard{1, 2});
  // A check's manifest: no digest written, no shard; a manifest without a plan, or
  // with a plan that does not decode, has no shard either.
  const nlohmann::json whole = manifest_for(small_plan());
  CHECK_FALSE(whole.contains("plan_digest"));
  CHECK(manifest_plan_digest(whole).empty());
  CHECK_FALSE(manifest_shard(whole));
  CHECK_FALSE(manifest_shard(nlohmann::json{{"type", "manifest"}}));
  CHECK_FALSE(manifest_shard(nlohmann::json{{"plan", {{"observer", 3}}}}));
  CHECK(manifest_plan_digest(nlohmann::json{{"plan_digest", 7}}).empty());
}

TEST_CASE("the manifest's target, measure part and host: typed by record/, a wrong type refused at line 1") {
  const Plan plan = small_plan();
  nlohmann::json m = manifest_for(plan);
  CHECK(manifest_target(m) == ManifestTarget{{"true", "--flag"}, std::string(64, 'a')});
  put_measure_part(m, MeasurePart{{"backend note"}, {}, {"L1-misses"}});
  CHECK(m.at("measure").dump() == R"({"backend_notes":["backend note"],"event_notes":[],"sim_events":["L1-misses"]})");
  CHECK(measure_part_of(m) == MeasurePart{{"backend note"}, {}, {"L1-misses"}});
  CHECK(measure_part_of(manifest_for(plan)) == MeasurePart{});  // a check's: none
  CHECK_FALSE(manifest_host_info(nlohmann::json{{"type", "manifest"}}));
  CHECK(manifest_host_info(nlohmann::json{{"host", {{"hostname", "node7"}}}})->hostname == "node7");
  CHECK(manifest_target(nlohmann::json{{"type", "manifest"}}) == ManifestTarget{});

  TempDir dir;
  const auto refused = [&](const std::string& name, const nlohmann::json& manifest) {
    const std::string path = dir.file(name);
    append_raw(path, manifest.dump() + "\n");
    try {
      load_journal(path);
    } catch (const Error& e) {
      CHECK(e.kind() == ErrorKind::io);
      return std::string(e.what());
    }
    return std::string("loaded");
  };
  nlohmann::json bad_notes = m;
  bad_notes["measure"]["event_notes"] = {"ok", 3};
  CHECK(refused("n.jsonl", bad_notes) ==
        "journal " + dir.file("n.jsonl") + " line 1: field measure.event_notes is not a list of strings");
  nlohmann::json bad_part = m;
  bad_part["measure"] = "notes";
  CHECK(refused("p.jsonl", bad_part) == "journal " + dir.file("p.jsonl") + " line 1: field measure is not an object");
  CHECK_THROWS_WITH(manifest_target(nlohmann::json{{"target", {{"argv", {"a", 1}}}}}),
                    "field target.argv is not a list of strings");
  CHECK_THROWS_WITH(manifest_target(nlohmann::json{{"target", {{"sha256", 7}}}}), "field target.sha256 is not a string");
  CHECK_THROWS_AS(manifest_host_info(nlohmann::json{{"host", {{"hostname", 7}}}}), Error);
}
