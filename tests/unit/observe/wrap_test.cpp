// The profiler-command observer: word splitting as sh(1) does it (the expected words
// below are what `sh -c 'printf "[%s]" TEMPLATE'` prints for each template), and
// wrapped commands really run.
#include <catch2/catch.hpp>

#include <string>
#include <vector>

#include "launch/launcher.h"
#include "observe/wrap.h"
#include "util/error.h"

using namespace obscheck;
using Catch::Matchers::Contains;
using Words = std::vector<std::string>;

namespace {

const std::string kWrapCompute = std::string(OBSCHECK_WORKLOADS) + "/compute";

ErrorKind error_kind_of(auto&& fn, std::string& message) {
  try {
    fn();
  } catch (const Error& e) {
    message = e.what();
    return e.kind();
  }
  FAIL("no error thrown");
  return ErrorKind::internal;
}

LaunchSpec compute_spec() {
  LaunchSpec s;
  s.path = kWrapCompute;
  s.argv = {kWrapCompute, "50"};
  s.env = EnvBlock({"PATH=/usr/bin:/bin", "LC_ALL=C"});
  s.out = Stdio::capture;
  return s;
}

ExitInfo run(const LaunchSpec& s) {
  CorkedChild c = CorkedChild::spawn(s);
  c.release();
  return c.wait();
}

}  // namespace

TEST_CASE("command templates split into words as sh splits them, without expansion") {
  CHECK(split_command_words("perf record -F {level} -o /dev/null --") ==
        Words{"perf", "record", "-F", "{level}", "-o", "/dev/null", "--"});
  CHECK(split_command_words("  a \t b\nc  ") == Words{"a", "b", "c"});
  CHECK(split_command_words("a 'b c' \"d e\"") == Words{"a", "b c", "d e"});
  CHECK(split_command_words("\"a\"'b'c") == Words{"abc"});
  CHECK(split_command_words("x '' \"\" y") == Words{"x", "", "", "y"});
  CHECK(split_command_words(R"(a\ b c\'d)") == Words{"a b", "c'd"});
  CHECK(split_command_words(R"('a\b' "c\d" "e\"f" "g\\h" "\$HOME")") ==
        Words{R"(a\b)", R"(c\d)", "e\"f", R"(g\h)", "$HOME"});
  CHECK(split_command_words("$HOME ~ * {a,b}") == Words{"$HOME", "~", "*", "{a,b}"});
  CHECK(split_command_words("a\\\nb") == Words{"ab"});
  CHECK(split_command_words("").empty());
  CHECK(split_command_words("   ").empty());

  std::string msg;
  CHECK(error_kind_of([] { split_command_words("perf 'record"); }, msg) == ErrorKind::usage);
  CHECK_THAT(msg, Contains("unterminated '"));
  CHECK(error_kind_of([] { split_command_words("perf \"record"); }, msg) == ErrorKind::usage);
  CHECK_THAT(msg, Contains("unterminated \""));
  CHECK(error_kind_of([] { split_command_words("perf \\"); }, msg) == ErrorKind::usage);
  CHECK_THAT(msg, Contains("lone backslash"));
}

TEST_CASE("wrap_command substitutes the level, appends the target or puts it at {argv}") {
  const Words target{"./prog", "a b", "-x"};
  CHECK(wrap_command("perf record -F {level} -o /dev/null --", "999", target) ==
        Words{"perf", "record", "-F", "999", "-o", "/dev/null", "--", "./prog", "a b", "-x"});
  CHECK(wrap_command("tool --rate={level}/s:{level} {argv} --after", "7", target) ==
        Words{"tool", "--rate=7/s:7", "./prog", "a b", "-x", "--after"});
  // Level 0 is the bare target, whatever the template says.
  CHECK(wrap_command("perf record -F {level} --", "0", target) == target);

  std::string msg;
  CHECK(error_kind_of([&] { wrap_command("   ", "1", target); }, msg) == ErrorKind::usage);
  CHECK_THAT(msg, Contains("empty"));
  CHECK(error_kind_of([&] { wrap_command("{argv} x", "1", target); }, msg) == ErrorKind::usage);
  CHECK_THAT(msg, Contains("no profiler program"));
  CHECK(error_kind_of([&] { wrap_command("perf 'stat", "0", target); }, msg) == ErrorKind::usage);
  CHECK(error_kind_of([&] { wrap_command("perf stat --", "1", {}); }, msg) == ErrorKind::usage);
}

TEST_CASE("describe_wrapper_changes counts the wrapper's argv and names what held cannot pad") {
  const Words target{"./prog", "1"};
  const Words wrapped = wrap_command("perf stat -e task-clock --", "1", target);
  const WrapperChanges c = describe_wrapper_changes(wrapped, target);
  CHECK(c.program == "perf");
  CHECK(c.extra_words == 5);
  // "perf\0stat\0-e\0task-clock\0--\0" = 5 + 5 + 3 + 11 + 3
  CHECK(c.extra_bytes == 27);
  REQUIRE(c.aspects.size() == 4);
  CHECK(c.aspects[0].aspect == "argv");
  CHECK_FALSE(c.aspects[0].held);
  CHECK(c.aspects[1].aspect == "environment");
  CHECK(c.aspects[1].held);
  CHECK(c.aspects[2].aspect == "process tree");
  CHECK_FALSE(c.aspects[2].held);
  CHECK(c.aspects[3].aspect == "counted work");

  const WrapperChanges none = describe_wrapper_changes(target, target);
  CHECK(none.extra_words == 0);
  CHECK(none.extra_bytes == 0);
  CHECK(none.aspects.empty());
}

TEST_CASE("a workload wrapped in perf stat really runs and exits 0") {
  const LaunchSpec bare = compute_spec();
  const LaunchSpec wrapped = wrap_launch(bare, "perf stat -e task-clock -o /dev/null --", "1");
  CHECK(wrapped.path == "/usr/bin/perf");
  REQUIRE(wrapped.argv.size() == 9);
  CHECK(wrapped.argv.back() == "50");
  const ExitInfo w = run(wrapped);
  INFO(w.output);
  CHECK(w.ok());
  // The target's own output passes through the wrapper unchanged.
  const ExitInfo b = run(bare);
  REQUIRE(b.ok());
  CHECK(w.output_digest == b.output_digest);

  // Level 0 is the bare spec itself.
  const LaunchSpec zero = wrap_launch(bare, "perf stat --", "0");
  CHECK(zero.path == bare.path);
  CHECK(zero.argv == bare.argv);
}

TEST_CASE("a failing or missing profiler command is a clear error") {
  const LaunchSpec bare = compute_spec();
  std::string msg;
  CHECK(error_kind_of([&] { wrap_launch(bare, "no-such-profiler-xyz --rate {level}", "9"); }, msg) ==
        ErrorKind::target);
  CHECK_THAT(msg, Contains("profiler command"));
  CHECK_THAT(msg, Contains("no-such-profiler-xyz"));

  // perf refuses an unknown event: it exits non-zero without running the target.
  const LaunchSpec bad = wrap_launch(bare, "perf stat -e no-such-event-xyz --", "1");
  const ExitInfo e = run(bad);
  REQUIRE_FALSE(e.ok());
  const std::string why = describe_wrapper_failure(bad.argv, "1", e);
  INFO(why);
  CHECK_THAT(why, Contains("the profiler command at level 1 exited with status"));
  CHECK_THAT(why, Contains("perf stat -e no-such-event-xyz -- " + kWrapCompute + " 50"));
  CHECK_THAT(why, Contains("its last output line:"));

  const LaunchSpec f = wrap_launch(bare, "false", "1");
  const ExitInfo fe = run(f);
  CHECK(fe.exit_code == 1);
  CHECK(describe_wrapper_failure(f.argv, "1", fe) ==
        "the profiler command at level 1 exited with status 1: false " + kWrapCompute + " 50");
}

TEST_CASE("quote_command quotes only the words that need it") {
  CHECK(quote_command({"perf", "stat", "-F", "99", "--", "./a.out"}) == "perf stat -F 99 -- ./a.out");
  CHECK(quote_command({"echo", "a b", "it's", ""}) == "echo 'a b' 'it'\\''s' ''");
}

TEST_CASE("profiler_reported_samples reads perf record's closing message") {
  CHECK(profiler_reported_samples("[ perf record: Woken up 1 times to write data ]\n"
                                  "[ perf record: Captured and wrote 0.012 MB /dev/null (213 samples) ]\n") == 213u);
  // The last message counts; one without a number in brackets does not.
  CHECK(profiler_reported_samples("(5 samples) ]\nx (7 samples) ]") == 7u);
  CHECK_FALSE(profiler_reported_samples("wrapper: starting ./compute after 50 ms\n"));
  CHECK_FALSE(profiler_reported_samples("( samples) ]"));
  CHECK_FALSE(profiler_reported_samples("99999999999999999999999 (99999999999999999999999 samples) ]"));
  CHECK(profiler_reported_samples("(0 samples) ]") == 0u);
}

TEST_CASE("requested_frequency reads perf's frequency option from the template") {
  CHECK(requested_frequency("perf record -F {level} -o /dev/null --", "99") == 99.0);
  CHECK(requested_frequency("perf record -F{level} --", "4000") == 4000.0);
  CHECK(requested_frequency("perf record --freq={level} --", "20000") == 20000.0);
  CHECK_FALSE(requested_frequency("perf record -F {level} --", "max"));
  CHECK_FALSE(requested_frequency("perf record -F {level} --", "0"));
  CHECK_FALSE(requested_frequency("perf record -c {level} --", "1000"));
  CHECK_FALSE(requested_frequency("strace -o /dev/null --", "1"));
}
