// libpfm4 and PAPI are loaded on first use (events/shared_libs.h), not linked: the
// loader for real, and its errors.
#include <dlfcn.h>
#include <linux/perf_event.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <unistd.h>

#include <catch2/catch.hpp>

#include "events/libpfm_events.h"
#include "events/shared_libs.h"
#include "util/error.h"

using namespace obscheck;
using Catch::Matchers::Contains;
using Catch::Matchers::StartsWith;

namespace {

// Run alone, in a process of its own, by the test case after it: any other test case
// of this executable may already have loaded libpfm4.
constexpr const char* kFreshProcessCase = "first use of libpfm4 in a fresh process";

}  // namespace

TEST_CASE("first use of libpfm4 in a fresh process", "[.fresh_process]") {
  // Neither this executable nor obscheck_events links libpfm4: nothing has mapped it.
  REQUIRE(dlopen(kLibpfmName.soname, RTLD_NOW | RTLD_NOLOAD) == nullptr);
  // "perf::PAGE-FAULTS" is libpfm4's own name (its perf PMU table), so only libpfm4
  // can resolve it: PERF_TYPE_SOFTWARE / PERF_COUNT_SW_PAGE_FAULTS, as perf_event_open(2).
  const auto enc = pfm_encode("perf::PAGE-FAULTS");
  REQUIRE(enc);
  CHECK(enc->attr.type == PERF_TYPE_SOFTWARE);
  CHECK(enc->attr.config == PERF_COUNT_SW_PAGE_FAULTS);
  CHECK(enc->pmu == "perf");
  void* handle = dlopen(kLibpfmName.soname, RTLD_NOW | RTLD_NOLOAD);
  REQUIRE(handle != nullptr);
  CHECK(reinterpret_cast<void*>(libpfm().get_os_event_encoding) ==
        dlsym(handle, "pfm_get_os_event_encoding"));
  dlclose(handle);  // the NOLOAD reference only; the loader's own stays
}

TEST_CASE("libpfm4 is not mapped until first use, then an event name resolves through it") {
  const pid_t pid = fork();
  REQUIRE(pid >= 0);
  if (pid == 0) {
    // -w NoTests: a case name that matches nothing fails instead of passing empty.
    execl("/proc/self/exe", "test_events", "-w", "NoTests", kFreshProcessCase, nullptr);
    _exit(127);
  }
  int status = 0;
  REQUIRE(waitpid(pid, &status, 0) == pid);
  REQUIRE(WIFEXITED(status));
  INFO("the fresh process's own output, above, names the check that failed");
  CHECK(WEXITSTATUS(status) == 0);  // Catch2's exit status: the number of failed checks
}

TEST_CASE("a library that cannot be opened is a host error naming the package to install") {
  const SharedLibName absent{"libpfm4", "libobscheck-absent.so.9", "libobscheck-absent9"};
  try {
    load_libpfm(absent);
    FAIL("loading an absent soname succeeded");
  } catch (const Error& e) {
    CHECK(e.kind() == ErrorKind::host);
    // glibc's dlerror() for a soname no search path holds.
    CHECK(std::string(e.what()) ==
          "cannot load libpfm4: libobscheck-absent.so.9: cannot open shared object file: No such "
          "file or directory");
    CHECK(e.hint() == "apt-get install libobscheck-absent9");
  }
}

TEST_CASE("a library without a function obscheck calls is a host error too") {
  // libpfm4 opens, but has no PAPI_library_init (the first function PAPI's table needs).
  const SharedLibName wrong{"PAPI", kLibpfmName.soname, "libpapi-test-package"};
  try {
    load_libpapi(wrong);
    FAIL("PAPI's functions were found in libpfm4");
  } catch (const Error& e) {
    CHECK(e.kind() == ErrorKind::host);
    CHECK_THAT(e.what(), StartsWith("cannot load PAPI: ") &&
                             Contains("undefined symbol: PAPI_library_init"));
    CHECK(e.hint() == "apt-get install libpapi-test-package");
  }
}

TEST_CASE("the build's sonames are the ones the installed libraries carry") {
  // Debian 12: libpfm4 ships libpfm.so.4, libpapi7.0 ships libpapi.so.7.0 (readelf -d).
  CHECK(std::string(kLibpfmName.soname) == "libpfm.so.4");
  CHECK(std::string(kLibpfmName.package) == "libpfm4");
  CHECK(std::string(kLibpapiName.soname) == "libpapi.so.7.0");
  CHECK(std::string(kLibpapiName.package) == "libpapi7.0");
}
