// Availability, established by really opening events on a child, and the reasons.
#include <cerrno>
#include <filesystem>

#include <catch2/catch.hpp>

#include "events/event.h"
#include "util/error.h"

using namespace obscheck;
using Catch::Matchers::Contains;
using Catch::Matchers::StartsWith;

namespace {
const std::string kCalls = std::string(OBSCHECK_WORKLOADS) + "/calls";
bool host_has_cpu_pmu() { return read_host_perf_facts().cpu_pmu; }
}  // namespace

TEST_CASE("cycles on a host without a hardware PMU: the no-PMU diagnosis") {
  if (host_has_cpu_pmu()) {
    WARN("skipped: this host has a CPU PMU (" << kSysfsPmuRoot << "/cpu exists)");
    return;
  }
  const Availability a = probe_event(resolve_event("cycles"));
  CHECK_FALSE(a.available);
  CHECK((a.err == ENOENT || a.err == EOPNOTSUPP));
  CHECK(a.reason ==
        "no hardware PMU on this host (no /sys/bus/event_source/devices/cpu; a VM without PMU "
        "passthrough?)");
  CHECK(a.hint == software_events_hint(read_host_perf_facts()));
}

TEST_CASE("the no-PMU hint suggests tsc only to a user who may count it") {
  // tsc (msr/tsc/) counts every level or none: a user who may not count the kernel
  // would meet "cannot count tsc" next.
  HostPerfFacts student;
  student.paranoid = 2;
  CHECK(software_events_hint(student) ==
        "count software events instead: --counters task-clock,page-faults,ctx-switches — or use the simulated "
        "backend (--backend sim)");
  HostPerfFacts root = student;
  root.cap_perfmon = true;
  CHECK(software_events_hint(root) ==
        "count software events instead: --counters task-clock,page-faults,ctx-switches,tsc — or use the "
        "simulated backend (--backend sim)");
}

TEST_CASE("software events and msr/tsc/ open for real") {
  const EventSet set = parse_events("page-faults,task-clock,tsc,{ctx-switches,migrations}");
  const auto av = probe_event_set(set);
  REQUIRE(av.size() == 5);
  for (std::size_t i = 0; i < av.size(); ++i) {
    INFO(set.events[i].name << ": " << av[i].reason);
    CHECK(av[i].available);
    CHECK(av[i].err == 0);
  }
}

TEST_CASE("a uprobe and four breakpoints open, a fifth breakpoint finds no debug register") {
  const std::string bp = "bp:" + kCalls + ":obs_hot";
  CHECK(probe_event(resolve_event("uprobe:" + kCalls + ":obs_hot")).available);
  // Breakpoint slots are per task, so the fifth fails whether or not the five are
  // grouped; here they are one group, opened leader first.
  const EventSet set = parse_events("{" + bp + "," + bp + "," + bp + "," + bp + "," + bp + "}");
  const auto av = probe_event_set(set);
  REQUIRE(av.size() == 5);
  CHECK_FALSE(av[4].available);
  CHECK(av[4].err == ENOSPC);
  CHECK_THAT(av[4].reason, Contains("no free slot"));
  CHECK_THAT(av[4].reason, Contains("the CPU has 4 debug registers"));
  for (int i = 0; i < 4; ++i) {
    INFO("member " << i);
    CHECK_FALSE(av[i].available);  // a group is all-or-nothing
    CHECK_THAT(av[i].reason, StartsWith("its group cannot be opened: " + bp + " fails (ENOSPC)"));
  }
  // Four fit.
  for (const auto& a : probe_event_set(parse_events(bp + "," + bp + "," + bp + "," + bp)))
    CHECK(a.available);
}

TEST_CASE("diagnose_open_error: permission refusals name the paranoid level and the fix") {
  // Root here, so EACCES cannot happen for real; the message is a pure function.
  const EventDesc cycles = resolve_event("cycles");
  const HostPerfFacts host{.cpu_pmu = true, .paranoid = 3};
  for (int err : {EACCES, EPERM}) {
    const Availability a = diagnose_open_error(cycles, err, host, false);
    CHECK_FALSE(a.available);
    CHECK(a.err == err);
    CHECK_THAT(a.reason, StartsWith("perf_event_paranoid is 3, which forbids opening cycles ("));
    CHECK(a.hint == "allow it with: sysctl kernel.perf_event_paranoid=1 (or run as root)");
  }
}

TEST_CASE("diagnose_open_error: a refused uprobe asks for the capability, as doctor does, not the sysctl") {
  // The uprobe PMU wants CAP_PERFMON whatever perf_event_paranoid says: the sysctl
  // hint would lead the user into the same refusal.
  const EventDesc probe = resolve_event("uprobe:" + kCalls + ":obs_hot");
  const HostPerfFacts host{.cpu_pmu = false, .paranoid = 1};
  const Availability a = diagnose_open_error(probe, EACCES, host, false);
  CHECK_FALSE(a.available);
  CHECK_THAT(a.reason, StartsWith("uprobes need CAP_PERFMON or CAP_SYS_ADMIN"));
  CHECK_THAT(a.hint, Contains("setcap cap_perfmon+ep"));
  CHECK(a.hint.find("perf_event_paranoid") == std::string::npos);
}

TEST_CASE("diagnose_open_error: the other errnos") {
  const EventDesc cycles = resolve_event("cycles");
  const EventDesc faults = resolve_event("page-faults");
  const HostPerfFacts with_pmu{.cpu_pmu = true, .paranoid = 2};
  const HostPerfFacts no_pmu{.cpu_pmu = false, .paranoid = 2};
  CHECK(diagnose_open_error(cycles, 0, no_pmu, false).available);
  CHECK_THAT(diagnose_open_error(cycles, EOPNOTSUPP, no_pmu, false).reason,
             StartsWith("no hardware PMU on this host"));
  CHECK(diagnose_open_error(cycles, ENOENT, with_pmu, false).reason ==
        "this CPU's PMU does not support cycles (ENOENT from perf_event_open)");
  CHECK(diagnose_open_error(faults, ENOENT, no_pmu, false).reason ==
        "the kernel does not support page-faults on this host (ENOENT from perf_event_open)");
  CHECK(diagnose_open_error(cycles, ENOSPC, with_pmu, true).reason ==
        "no free slot for cycles: more events than counters in one group (ENOSPC from "
        "perf_event_open)");
  CHECK(diagnose_open_error(cycles, EINVAL, with_pmu, false).reason ==
        "the kernel rejected cycles: an unsupported modifier or attribute (EINVAL from "
        "perf_event_open)");
  CHECK(diagnose_open_error(cycles, EBUSY, with_pmu, false).hint ==
        "stop other profilers; on a host, check the NMI watchdog (kernel.nmi_watchdog=0)");
}

TEST_CASE("host facts come from sysfs and procfs") {
  const HostPerfFacts h = read_host_perf_facts();
  CHECK(h.cpu_pmu == std::filesystem::exists("/sys/bus/event_source/devices/cpu"));
  CHECK(h.paranoid >= -1);
  CHECK(h.paranoid <= 4);
  CHECK(read_host_perf_facts(std::string(OBSCHECK_GOLDEN_DIR) + "/events/sysfs").cpu_pmu);
}

TEST_CASE("event_catalog lists every alias with this host's answer") {
  const auto cat = event_catalog(false);
  REQUIRE(cat.size() == event_aliases().size());
  for (const auto& c : cat) {
    INFO(c.name << ": " << c.availability.reason);
    CHECK(c.source == "alias");
    CHECK_FALSE(c.description.empty());
    if (c.name == "page-faults" || c.name == "task-clock" || c.name == "tsc")
      CHECK(c.availability.available);
    if (!host_has_cpu_pmu() && (c.name == "cycles" || c.name == "l1d"))
      CHECK_THAT(c.availability.reason, StartsWith("no hardware PMU on this host"));
    if (!c.availability.available) CHECK_FALSE(c.availability.reason.empty());
  }
}

TEST_CASE("event_catalog(all) adds sysfs, libpfm4 and PAPI entries, each probed") {
  const auto cat = event_catalog(true);
  auto find = [&](const std::string& name) -> const CatalogEntry* {
    for (const auto& c : cat)
      if (c.name == name) return &c;
    return nullptr;
  };
  if (std::filesystem::exists("/sys/bus/event_source/devices/msr/events/tsc")) {
    const CatalogEntry* tsc = find("msr/tsc/");
    REQUIRE(tsc);
    CHECK(tsc->source == "sysfs");
    CHECK(tsc->description == "event=0x00");
    CHECK(tsc->availability.available);
  }
  // libpfm4's generic perf PMU is present on every Linux host; its software events open.
  const CatalogEntry* clock = find("perf::PERF_COUNT_SW_TASK_CLOCK");
  REQUIRE(clock);
  CHECK(clock->source == "libpfm4");
  CHECK(clock->availability.available);
  const CatalogEntry* tot_cyc = find("PAPI_TOT_CYC");
  REQUIRE(tot_cyc);
  CHECK(tot_cyc->source == "papi");
  CHECK(tot_cyc->description == "Total cycles");
  if (!host_has_cpu_pmu()) CHECK_FALSE(tot_cyc->availability.available);
}

TEST_CASE("diagnose_open_error: with CAP_PERFMON an EPERM is not blamed on perf_event_paranoid") {
  EventDesc tp;
  tp.name = "ftrace:function";
  tp.attr.type = PERF_TYPE_TRACEPOINT;
  const HostPerfFacts root{.cpu_pmu = false, .paranoid = 2, .cap_perfmon = true};
  const Availability a = diagnose_open_error(tp, EPERM, root, false);
  CHECK(a.reason == "the kernel refuses ftrace:function to perf_event_open even with this privilege (EPERM from "
                    "perf_event_open)");
  CHECK(a.hint == "this tracepoint cannot be counted; choose another (obscheck events --all)");
  // Without the capability the paranoid level is the cause, and named.
  const HostPerfFacts user{.cpu_pmu = false, .paranoid = 2, .cap_perfmon = false};
  CHECK(diagnose_open_error(tp, EPERM, user, false).reason ==
        "perf_event_paranoid is 2, which forbids opening ftrace:function (EPERM from perf_event_open)");
}
