// In-process counting: the protocol strings, and libobsprobe.so preloaded into the
// bundled workloads for real (software events, which this host can count).
#include "observe/inprocess.h"

#include <fcntl.h>
#include <grp.h>
#include <papi.h>
#include <sys/personality.h>
#include <sys/wait.h>
#include <unistd.h>

#include <catch2/catch.hpp>

#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <optional>
#include <string>
#include <vector>

#include "util/error.h"
#include "../../support/nobody_reach.h"

using namespace obscheck;

namespace {

EventDesc counter(const std::string& spec, std::uint32_t type, std::uint64_t config) {
  EventDesc e;
  e.spec = spec;
  e.name = spec;
  e.source = "alias";
  e.pmu = type == PERF_TYPE_SOFTWARE ? "software" : "cpu";
  e.attr.type = type;
  e.attr.size = sizeof e.attr;
  e.attr.config = config;
  return e;
}

// task-clock, page-faults, context-switches, cpu-migrations: software events, so
// they count on any Linux host, PMU or not.
EventSet software_set() {
  EventSet s;
  s.events = {counter("task-clock", PERF_TYPE_SOFTWARE, PERF_COUNT_SW_TASK_CLOCK),
              counter("page-faults", PERF_TYPE_SOFTWARE, PERF_COUNT_SW_PAGE_FAULTS),
              counter("context-switches", PERF_TYPE_SOFTWARE, PERF_COUNT_SW_CONTEXT_SWITCHES),
              counter("cpu-migrations", PERF_TYPE_SOFTWARE, PERF_COUNT_SW_CPU_MIGRATIONS)};
  s.groups = {{0}, {1}, {2}, {3}};
  return s;
}

std::vector<std::size_t> first(std::size_t n) {
  std::vector<std::size_t> v(n);
  for (std::size_t i = 0; i < n; ++i) v[i] = i;
  return v;
}

#ifdef OBSCHECK_PROBE_BUILD_LIB

const std::string kLib = OBSCHECK_PROBE_BUILD_LIB;
const std::string kInprocessWorkloads = OBSCHECK_WORKLOADS;

struct ChildRun {
  std::string out;     // stdout
  std::string result;  // what the library wrote
  int status = 0;      // from waitpid
};

// fork + exec with exactly `env`, ASLR off, stdin /dev/null, stdout captured, the
// result pipe's write end as fd kInprocessResultFd and no other fd above 2: what the
// launcher is to do for in-process mode.
// `as_user`: drop to this uid/gid (from root) before exec.
ChildRun run_preloaded(const std::string& prog, const std::vector<std::string>& args, const EnvBlock& env,
                       std::optional<uid_t> as_user = std::nullopt) {
  ResultPipe result = make_result_pipe();
  int out_pipe[2];
  REQUIRE(::pipe2(out_pipe, O_CLOEXEC) == 0);
  UniqueFd out_r(out_pipe[0]), out_w(out_pipe[1]);
  // Copies above any number the child will dup onto, so no dup2 can clobber a source.
  UniqueFd res_hi(::fcntl(result.write_end.get(), F_DUPFD_CLOEXEC, 100));
  UniqueFd out_hi(::fcntl(out_w.get(), F_DUPFD_CLOEXEC, 100));
  REQUIRE((res_hi && out_hi));

  const std::string path = kInprocessWorkloads + "/" + prog;
  std::vector<std::string> argv_s{path};
  argv_s.insert(argv_s.end(), args.begin(), args.end());
  std::vector<char*> argv, envp;
  for (auto& a : argv_s) argv.push_back(a.data());
  argv.push_back(nullptr);
  std::vector<std::string> env_s = env.vars();
  for (auto& e : env_s) envp.push_back(e.data());
  envp.push_back(nullptr);

  const pid_t pid = ::fork();
  REQUIRE(pid >= 0);
  if (pid == 0) {
    ::personality(ADDR_NO_RANDOMIZE);
    const int null_fd = ::open("/dev/null", O_RDONLY);
    if (null_fd < 0 || ::dup2(null_fd, 0) < 0 || ::dup2(out_hi.get(), 1) < 0 ||
        ::dup2(res_hi.get(), kInprocessResultFd) < 0)
      ::_exit(126);
    ::close_range(kInprocessResultFd + 1, ~0U, 0);
    if (as_user && (::setgroups(0, nullptr) != 0 || ::setresgid(*as_user, *as_user, *as_user) != 0 ||
                    ::setresuid(*as_user, *as_user, *as_user) != 0))
      ::_exit(125);
    ::execve(path.c_str(), argv.data(), envp.data());
    ::_exit(127);
  }
  result.write_end.reset();
  out_w.reset();
  res_hi.reset();
  out_hi.reset();
  ChildRun run;
  char buf[4096];
  for (ssize_t n; (n = ::read(out_r.get(), buf, sizeof buf)) != 0;) {
    if (n < 0 && errno == EINTR) continue;
    REQUIRE(n > 0);
    run.out.append(buf, static_cast<std::size_t>(n));
  }
  REQUIRE(::waitpid(pid, &run.status, 0) == pid);
  run.result = drain_result(result.read_end.get());
  return run;
}

EnvBlock preload_env() { return EnvBlock({"LD_PRELOAD=" + kLib}); }

const Reading& reading(const std::vector<Reading>& rs, const std::string& name) {
  for (const auto& r : rs)
    if (r.name == name) return r;
  FAIL("no reading named " << name);
  return rs.front();
}

struct Addresses {
  std::uintptr_t stack = 0, environ = 0;
};

Addresses parse_stackaddr(const std::string& out) {
  Addresses a;
  void *s = nullptr, *e = nullptr;
  REQUIRE(std::sscanf(out.c_str(), "stack=%p environ=%p", &s, &e) == 2);
  a.stack = reinterpret_cast<std::uintptr_t>(s);
  a.environ = reinterpret_cast<std::uintptr_t>(e);
  return a;
}

bool exited_zero(int status) { return WIFEXITED(status) && WEXITSTATUS(status) == 0; }

#endif

}  // namespace

TEST_CASE("in-process: encode_event_list writes type and hex configs then the spec text in the order announced") {
  const EventSet s = software_set();
  CHECK(encode_event_list(s, {0}) == "1:0x1:0x0:0x0:task-clock");
  CHECK(encode_event_list(s, {0, 1}) == "1:0x1:0x0:0x0:task-clock;1:0x2:0x0:0x0:page-faults");
  CHECK(encode_event_list(s, {3, 1}) == "1:0x4:0x0:0x0:cpu-migrations;1:0x2:0x0:0x0:page-faults");
  CHECK(encode_event_list(s, {}) == "");

  EventSet raw;
  EventDesc e = counter("cpu/event=0x3c,umask=0x00/", 4, 0x3c);
  e.attr.config1 = 0x10;
  e.attr.config2 = 0xdeadbeef;
  raw.events = {e};
  CHECK(encode_event_list(raw, {0}) == "4:0x3c:0x10:0xdeadbeef:cpu/event=0x3c,umask=0x00/");
}

TEST_CASE("in-process: encode_event_list refuses what the library cannot program or parse") {
  EventSet s = software_set();
  CHECK_THROWS_MATCHES(encode_event_list(s, {4}), Error,
                       Catch::Predicate<Error>([](const Error& e) { return e.kind() == ErrorKind::internal; }));
  s.events[0].spec = "a;b";
  CHECK_THROWS_MATCHES(encode_event_list(s, {0}), Error,
                       Catch::Predicate<Error>([](const Error& e) { return e.kind() == ErrorKind::usage; }));
  s.events[0].spec = "a\tb";
  CHECK_THROWS_AS(encode_event_list(s, {0}), Error);
  EventDesc up = counter("uprobe:/bin/true:main", 7, 0);
  up.source = "uprobe";
  up.pmu = "uprobe";
  up.probe_path = "/bin/true";
  s.events = {up};
  CHECK_THROWS_WITH(encode_event_list(s, {0}), Catch::Contains("counters only"));
  EventDesc bp = counter("bp:/bin/true:main", PERF_TYPE_BREAKPOINT, 0);
  bp.source = "breakpoint";
  s.events = {bp};
  CHECK_THROWS_AS(encode_event_list(s, {0}), Error);
}

TEST_CASE("in-process: set_inprocess_env sets four variables and only the list changes size with the dose") {
  const EventSet s = software_set();
  EnvBlock natural1({"PATH=/bin"}), natural4({"PATH=/bin"}), sham({"PATH=/bin"});
  set_inprocess_env(natural1, s, first(1), 1);
  set_inprocess_env(natural4, s, first(4), 4, 3, InprocessBackend::perf);
  set_inprocess_env(sham, s, first(4), 1, 3, InprocessBackend::perf);
  CHECK(natural1.vars() == std::vector<std::string>{"PATH=/bin", "OBSCHECK_EVENTS=1:0x1:0x0:0x0:task-clock",
                                                    "OBSCHECK_PROGRAM=001", "OBSCHECK_RESULT_FD=003",
                                                    "OBSCHECK_BACKEND=perf"});
  CHECK(natural4.vars()[2] == "OBSCHECK_PROGRAM=004");
  CHECK(sham.vars()[2] == "OBSCHECK_PROGRAM=001");
  // Sham announces what natural does: same bytes.
  CHECK(sham.size_bytes() == natural4.size_bytes());
  // natural4 - natural1 = the three added entries, each with its ';'.
  CHECK(natural4.size_bytes() - natural1.size_bytes() ==
        std::string(";1:0x2:0x0:0x0:page-faults;1:0x3:0x0:0x0:context-switches;1:0x4:0x0:0x0:cpu-migrations")
            .size());

  EnvBlock papi;
  set_inprocess_env(papi, s, first(2), 2, 12, InprocessBackend::papi);
  CHECK(papi.vars()[2] == "OBSCHECK_RESULT_FD=012");
  CHECK(papi.vars()[3] == "OBSCHECK_BACKEND=papi");
  // Set again: replaced in place, not appended.
  set_inprocess_env(papi, s, first(1), 0);
  CHECK(papi.vars().size() == 4);
  CHECK(papi.vars()[1] == "OBSCHECK_PROGRAM=000");

  CHECK_THROWS_MATCHES(set_inprocess_env(papi, s, first(2), 3), Error,
                       Catch::Predicate<Error>([](const Error& e) { return e.kind() == ErrorKind::usage; }));
  CHECK_THROWS_AS(set_inprocess_env(papi, s, first(2), 2, 1000), Error);
}

TEST_CASE("in-process: parse_inprocess_result reads counts and scales a multiplexed one") {
  const auto rs = parse_inprocess_result(
      "obsprobe 1\n"
      "event\ttask-clock\t12336920\t12336920\t12336920\n"
      "event\tcpu/event=0x3c,umask=0x00/\t100\t300\t100\n"
      "event\tnever\t0\t500\t0\n"
      "end\n");
  REQUIRE(rs.size() == 3);
  CHECK(rs[0].name == "task-clock");
  CHECK(rs[0].raw == 12336920);
  CHECK(rs[0].time_enabled == 12336920);
  CHECK(rs[0].time_running == 12336920);
  CHECK(rs[0].value == 12336920.0);
  CHECK_FALSE(rs[0].multiplexed);
  CHECK(rs[0].scale == 1.0);
  CHECK(rs[1].name == "cpu/event=0x3c,umask=0x00/");
  CHECK(rs[1].multiplexed);
  CHECK(rs[1].scale == 3.0);
  CHECK(rs[1].value == 300.0);
  CHECK(rs[2].multiplexed);
  CHECK(std::isnan(rs[2].value));

  const auto none = parse_inprocess_result("obsprobe 1\nend\n");
  CHECK(none.empty());

  const auto report = parse_inprocess_report("obsprobe 1\nevent\tpage-faults\t7\t10\t10\nuser-only\tpage-faults\nend\n");
  REQUIRE(report.readings.size() == 1);
  CHECK(report.readings[0].raw == 7);
  CHECK(report.user_only == std::vector<std::string>{"page-faults"});
}

TEST_CASE("in-process: match_inprocess_readings checks the programmed events and names them as observe/ does") {
  EventSet s = software_set();
  s.events[1].name = "page-faults (minor+major)";
  const auto rs = parse_inprocess_result("obsprobe 1\nevent\ttask-clock\t5\t9\t9\nevent\tpage-faults\t7\t9\t9\nend\n");
  const auto named = match_inprocess_readings(rs, s, {0, 1});
  REQUIRE(named.size() == 2);
  CHECK(named[0].name == "task-clock");
  CHECK(named[1].name == "page-faults (minor+major)");
  CHECK(named[1].raw == 7);
  auto internal = [&](const std::vector<std::size_t>& programmed) {
    try {
      match_inprocess_readings(rs, s, programmed);
    } catch (const Error& e) {
      return e.kind() == ErrorKind::internal;
    }
    return false;
  };
  CHECK(internal({0}));       // one more than asked for
  CHECK(internal({1, 0}));    // wrong order
  CHECK(internal({0, 9}));    // index outside the set
}

TEST_CASE("in-process: an error line becomes Error(event) with the name and code and message") {
  try {
    parse_inprocess_result("obsprobe 1\nerror\tcycles\t2\tperf_event_open: No such file or directory\nend\n");
    FAIL("no throw");
  } catch (const Error& e) {
    CHECK(e.kind() == ErrorKind::event);
    CHECK(std::string(e.what()) ==
          "cycles: the in-process library could not count it: perf_event_open: No such file or "
          "directory (errno 2)");
    CHECK_FALSE(e.hint().empty());
  }
  try {
    parse_inprocess_result("obsprobe 1\nerror\tPAPI_TOT_CYC\t-7\tEvent does not exist\nend\n");
    FAIL("no throw");
  } catch (const Error& e) {
    CHECK(e.kind() == ErrorKind::event);
    CHECK(std::string(e.what()) ==
          "PAPI_TOT_CYC: the in-process library could not count it: Event does not exist (PAPI code -7)");
  }
  try {
    parse_inprocess_result("obsprobe 1\nerror\t-\t22\tOBSCHECK_PROGRAM must be exactly 3 digits\nend\n");
    FAIL("no throw");
  } catch (const Error& e) {
    CHECK(e.kind() == ErrorKind::event);
    CHECK(std::string(e.what()) ==
          "the in-process library failed: OBSCHECK_PROGRAM must be exactly 3 digits (errno 22)");
  }
}

TEST_CASE("in-process: no result or a malformed one is Error(internal)") {
  auto kind_of = [](std::string_view text) {
    try {
      parse_inprocess_result(text, "./prog");
    } catch (const Error& e) {
      return std::optional<ErrorKind>(e.kind());
    }
    return std::optional<ErrorKind>();
  };
  CHECK_THROWS_WITH(parse_inprocess_result("", "./prog"),
                    "no result from the in-process library: did ./prog start? is it dynamically "
                    "linked? (a static binary ignores LD_PRELOAD)");
  CHECK(kind_of("") == ErrorKind::internal);
  CHECK(kind_of("obsprobe 1\n") == ErrorKind::internal);                       // no end
  CHECK(kind_of("obsprobe 1\nend") == ErrorKind::internal);                    // no final newline
  CHECK(kind_of("obsprobe 2\nend\n") == ErrorKind::internal);                  // other version
  CHECK(kind_of("obsprobe 1\nevent\ta\t1\t2\nend\n") == ErrorKind::internal);  // a field short
  CHECK(kind_of("obsprobe 1\nevent\ta\t1\t2\t3x\nend\n") == ErrorKind::internal);
  CHECK(kind_of("obsprobe 1\nevent\ta\t-1\t2\t2\nend\n") == ErrorKind::internal);
  CHECK(kind_of("obsprobe 1\nnote\ta\nend\n") == ErrorKind::internal);
  CHECK(kind_of("obsprobe 1\nerror\ta\tx\tm\nend\n") == ErrorKind::internal);
  CHECK(kind_of("hello\n") == ErrorKind::internal);
  CHECK_FALSE(kind_of("obsprobe 1\nend\n").has_value());
}

TEST_CASE("in-process: the result pipe is close-on-exec with a non-blocking read end that drains without waiting") {
  ResultPipe p = make_result_pipe();
  CHECK((::fcntl(p.read_end.get(), F_GETFD) & FD_CLOEXEC) != 0);
  CHECK((::fcntl(p.write_end.get(), F_GETFD) & FD_CLOEXEC) != 0);
  CHECK((::fcntl(p.read_end.get(), F_GETFL) & O_NONBLOCK) != 0);
  CHECK((::fcntl(p.write_end.get(), F_GETFL) & O_NONBLOCK) == 0);
  CHECK(drain_result(p.read_end.get()).empty());  // nothing written, writer open: no wait
  REQUIRE(::write(p.write_end.get(), "obsprobe 1\nend\n", 15) == 15);
  CHECK(drain_result(p.read_end.get()) == "obsprobe 1\nend\n");
}

#ifdef OBSCHECK_PROBE_BUILD_LIB

TEST_CASE("in-process: pagetouch 2000 counts 1000 more page faults than pagetouch 1000") {
  const EventSet s = software_set();
  EnvBlock env = preload_env();
  set_inprocess_env(env, s, first(2), 2);
  const ChildRun a = run_preloaded("pagetouch", {"1000"}, env);
  const ChildRun b = run_preloaded("pagetouch", {"2000"}, env);
  REQUIRE(exited_zero(a.status));
  REQUIRE(exited_zero(b.status));
  const auto ra = parse_inprocess_result(a.result);
  const auto rb = parse_inprocess_result(b.result);
  REQUIRE(ra.size() == 2);
  REQUIRE(rb.size() == 2);
  CHECK(ra[0].name == "task-clock");
  CHECK(ra[1].name == "page-faults");
  // The counters cover main only, so start-up faults are not in them at all: pagetouch
  // N faults N times plus a couple for its own stack and the mmap bookkeeping.
  const double delta = reading(rb, "page-faults").value - reading(ra, "page-faults").value;
  CHECK(delta >= 998);
  CHECK(delta <= 1002);
  CHECK(reading(ra, "page-faults").value >= 1000);
  CHECK(reading(ra, "page-faults").value <= 1010);
  CHECK(reading(ra, "task-clock").raw > 0);
  CHECK_FALSE(reading(ra, "task-clock").multiplexed);  // software events never multiplex
}

TEST_CASE("in-process: the stack moves with the event list under natural and stays put under held") {
  const EventSet s = software_set();
  // The stack alignment the kernel applies at exec (x86-64 and aarch64 ABIs: 16).
  constexpr std::uintptr_t kStackAlign = 16;

  std::vector<EnvBlock> natural, held;
  for (std::size_t n = 1; n <= 4; ++n) {
    EnvBlock env = preload_env();
    set_inprocess_env(env, s, first(n), n);
    natural.push_back(env);
  }
  // One constant total for every dose: the largest block plus room for the pad.
  const std::size_t total = natural.back().size_bytes() + 64;
  for (const EnvBlock& env : natural) {
    EnvBlock padded = env;
    padded.pad_to(total);
    held.push_back(padded);
  }

  std::vector<Addresses> nat, hold;
  for (std::size_t k = 0; k < 4; ++k) {
    const ChildRun rn = run_preloaded("stackaddr", {}, natural[k]);
    const ChildRun rh = run_preloaded("stackaddr", {}, held[k]);
    REQUIRE(exited_zero(rn.status));
    REQUIRE(exited_zero(rh.status));
    // Each dose really counted as many events as it announced.
    CHECK(parse_inprocess_result(rn.result).size() == k + 1);
    CHECK(parse_inprocess_result(rh.result).size() == k + 1);
    CHECK(held[k].size_bytes() == total);
    nat.push_back(parse_stackaddr(rn.out));
    hold.push_back(parse_stackaddr(rh.out));
  }
  for (std::size_t k = 1; k < 4; ++k) {
    INFO("dose " << k + 1);
    // The environment sits above the stack: a longer one pushes the stack down by its
    // growth, rounded to the alignment either way.
    const std::uintptr_t growth = natural[k].size_bytes() - natural[k - 1].size_bytes();
    REQUIRE(nat[k].stack < nat[k - 1].stack);
    const std::uintptr_t moved = nat[k - 1].stack - nat[k].stack;
    CHECK(moved % kStackAlign == 0);
    CHECK(moved + kStackAlign > growth);
    CHECK(moved < growth + kStackAlign);
    CHECK(nat[k].environ < nat[k - 1].environ);
    // Held: the same address at every dose.
    CHECK(hold[k].stack == hold[0].stack);
    CHECK(hold[k].environ == hold[0].environ);
  }
}

TEST_CASE("in-process: sham announces the full list and programs exactly one counter") {
  const EventSet s = software_set();
  EnvBlock env = preload_env();
  set_inprocess_env(env, s, first(4), 1);
  const ChildRun r = run_preloaded("pagetouch", {"100"}, env);
  REQUIRE(exited_zero(r.status));
  const auto rs = parse_inprocess_result(r.result);
  REQUIRE(rs.size() == 1);
  CHECK(rs[0].name == "task-clock");
  CHECK(rs[0].raw > 0);
}

TEST_CASE("in-process: exit() from inside main still yields one result with the faults before it counted") {
  const EventSet s = software_set();
  EnvBlock env = preload_env();
  set_inprocess_env(env, s, {1}, 1);
  const ChildRun a = run_preloaded("exits", {"500"}, env);
  const ChildRun b = run_preloaded("exits", {"1500"}, env);
  REQUIRE(exited_zero(a.status));
  REQUIRE(exited_zero(b.status));
  // One result, not two: the text parses with exactly one event line.
  const auto ra = parse_inprocess_result(a.result);
  const auto rb = parse_inprocess_result(b.result);
  REQUIRE(ra.size() == 1);
  REQUIRE(rb.size() == 1);
  const double delta = rb[0].value - ra[0].value;
  CHECK(delta >= 998);
  CHECK(delta <= 1002);
}

TEST_CASE("in-process: a child that exits inside main is counted (inherit) and the result is written once") {
  const EventSet s = software_set();
  EnvBlock env = preload_env();
  set_inprocess_env(env, s, {1}, 1);
  const ChildRun a = run_preloaded("forks", {"500"}, env);
  const ChildRun b = run_preloaded("forks", {"1500"}, env);
  REQUIRE(exited_zero(a.status));
  REQUIRE(exited_zero(b.status));
  // The forked child ran the library's exit handler too; only the parent wrote.
  CHECK(a.result.find("obsprobe 1\n", 1) == std::string::npos);
  const auto ra = parse_inprocess_result(a.result);
  const auto rb = parse_inprocess_result(b.result);
  REQUIRE(ra.size() == 1);
  REQUIRE(rb.size() == 1);
  const double delta = rb[0].value - ra[0].value;
  CHECK(delta >= 998);
  CHECK(delta <= 1002);
}

TEST_CASE("in-process: where kernel counting is refused the library counts user level and says so") {
  std::ifstream paranoid_file("/proc/sys/kernel/perf_event_paranoid");
  int paranoid = -1;
  paranoid_file >> paranoid;
  if (::geteuid() != 0 || paranoid < 2) {
    WARN("SKIPPED: needs root (to drop to an unprivileged user) and perf_event_paranoid >= 2; have euid "
         << ::geteuid() << ", paranoid " << paranoid);
    return;
  }
  SKIP_UNLESS_NOBODY_REACHES(kInprocessWorkloads + "/pagetouch");
  constexpr uid_t kNobody = 65534;  // Debian's nobody/nogroup
  const EventSet s = software_set();
  EnvBlock env = preload_env();
  set_inprocess_env(env, s, first(2), 2);
  const ChildRun a = run_preloaded("pagetouch", {"1000"}, env, kNobody);
  const ChildRun b = run_preloaded("pagetouch", {"2000"}, env, kNobody);
  REQUIRE(exited_zero(a.status));
  REQUIRE(exited_zero(b.status));
  const auto report = parse_inprocess_report(a.result);
  CHECK(report.user_only == std::vector<std::string>{"task-clock", "page-faults"});
  // Faults on user pages are raised from user mode, so a user-only counter still sees them.
  const double delta = reading(parse_inprocess_result(b.result), "page-faults").value -
                       reading(report.readings, "page-faults").value;
  CHECK(delta >= 998);
  CHECK(delta <= 1002);
}

TEST_CASE("in-process: an event the kernel refuses gives an error line and the program still runs normally") {
  EventSet s;
  // PERF_TYPE_SOFTWARE with a config past PERF_COUNT_SW_MAX: ENOENT on every kernel.
  s.events = {counter("task-clock", PERF_TYPE_SOFTWARE, PERF_COUNT_SW_TASK_CLOCK),
              counter("no-such-sw", PERF_TYPE_SOFTWARE, 0xffff)};
  EnvBlock env = preload_env();
  set_inprocess_env(env, s, first(2), 2);
  const ChildRun r = run_preloaded("stackaddr", {}, env);
  REQUIRE(exited_zero(r.status));
  CHECK(r.out.rfind("stack=0x", 0) == 0);
  CHECK(r.result == "obsprobe 1\nerror\tno-such-sw\t2\tperf_event_open: No such file or directory\nend\n");
  CHECK_THROWS_MATCHES(parse_inprocess_result(r.result), Error,
                       Catch::Predicate<Error>([](const Error& e) { return e.kind() == ErrorKind::event; }));
}

TEST_CASE("in-process: a malformed variable is reported and not guessed at") {
  EnvBlock env = preload_env();
  set_inprocess_env(env, software_set(), first(1), 1);
  env.set(kInprocessProgramVar, "1");
  const ChildRun r = run_preloaded("stackaddr", {}, env);
  REQUIRE(exited_zero(r.status));
  CHECK(r.result == "obsprobe 1\nerror\t-\t22\tOBSCHECK_PROGRAM must be exactly 3 digits\nend\n");
}

TEST_CASE("in-process: without a valid result fd the library stays passive and writes nothing") {
  EnvBlock env = preload_env();
  set_inprocess_env(env, software_set(), first(1), 1, 9);  // fd 9 is closed in the child
  const ChildRun r = run_preloaded("stackaddr", {}, env);
  REQUIRE(exited_zero(r.status));
  CHECK(r.result.empty());
  CHECK_THROWS_WITH(parse_inprocess_result(r.result, "stackaddr"), Catch::Contains("did stackaddr start?"));
}

TEST_CASE("in-process: the PAPI backend without a PAPI counter component reports PAPI's own error") {
  EventSet s;
  s.events = {counter("PAPI_TOT_CYC", PERF_TYPE_HARDWARE, PERF_COUNT_HW_CPU_CYCLES)};
  EnvBlock env = preload_env();
  set_inprocess_env(env, s, first(1), 1, kInprocessResultFd, InprocessBackend::papi);
  const ChildRun r = run_preloaded("stackaddr", {}, env);
  REQUIRE(exited_zero(r.status));
  CHECK(r.out.rfind("stack=0x", 0) == 0);
  if (r.result.find("\nevent\t") != std::string::npos) {
    WARN("SKIPPED: PAPI counts PAPI_TOT_CYC on this host; the error path is not exercised");
    return;
  }
  // obsprobe 1 \n error \t <name> \t <code> \t <message> \n end \n
  const std::string prefix = "obsprobe 1\nerror\t";
  REQUIRE(r.result.rfind(prefix, 0) == 0);
  const std::string line = r.result.substr(prefix.size(), r.result.find('\n', prefix.size()) - prefix.size());
  const auto t1 = line.find('\t'), t2 = line.find('\t', t1 + 1);
  REQUIRE(t2 != std::string::npos);
  const int code = std::stoi(line.substr(t1 + 1, t2 - t1 - 1));
  CHECK(code < 0);  // a PAPI code, not an errno
  // PAPI fills its message table in PAPI_library_init, as the library's child did.
  REQUIRE(PAPI_library_init(PAPI_VER_CURRENT) == PAPI_VER_CURRENT);
  const char* papi_message = PAPI_strerror(code);
  REQUIRE(papi_message != nullptr);
  CHECK(line.substr(t2 + 1) == papi_message);
  CHECK_THROWS_WITH(parse_inprocess_result(r.result), Catch::Contains(papi_message));
}

#endif
