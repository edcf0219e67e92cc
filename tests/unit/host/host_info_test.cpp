#include <catch2/catch.hpp>

#include "fixtures.h"
#include "host/doctor.h"
#include "host/host_info.h"

#include <sys/sysinfo.h>
#include <sys/utsname.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>

using namespace obscheck;
using obscheck::test::fixture;

TEST_CASE("parse_cpu_list reads the kernel's list syntax") {
  CHECK(parse_cpu_list("0-3,8,10-11") == std::vector<int>{0, 1, 2, 3, 8, 10, 11});
  CHECK(parse_cpu_list("5") == std::vector<int>{5});
  CHECK(parse_cpu_list("") == std::vector<int>{});
  CHECK(parse_cpu_list("\n") == std::vector<int>{});
  CHECK(parse_cpu_list("2,0-1,1") == std::vector<int>{0, 1, 2});
  CHECK_FALSE(parse_cpu_list("3-1").has_value());
  CHECK_FALSE(parse_cpu_list("a").has_value());
  CHECK_FALSE(parse_cpu_list("0,,1").has_value());
  CHECK_FALSE(parse_cpu_list("-1").has_value());
}

TEST_CASE("format_cpu_list writes the compact form") {
  CHECK(format_cpu_list({5, 0, 1, 2}) == "0-2,5");
  CHECK(format_cpu_list({3}) == "3");
  CHECK(format_cpu_list({}) == "");
  CHECK(format_cpu_list({0, 2, 4, 5}) == "0,2,4-5");
}

TEST_CASE("read_host on the bare-metal-noisy fixture") {
  const HostInfo h = read_host(fixture("bare-metal-noisy"), test::skylake_cpuid());
  CHECK(h.hostname == "desk");
  CHECK(h.kernel_release == "6.1.0-18-amd64");
  CHECK(h.kernel_version == "#1 SMP PREEMPT_DYNAMIC Debian 6.1.76-1 (2024-02-01)");
  CHECK(h.arch == "x86_64");
  CHECK(h.cpu_vendor == "GenuineIntel");
  CHECK(h.cpu_model == "Intel(R) Core(TM) i7-7700 CPU @ 3.60GHz");
  CHECK(h.present_cpus == std::vector<int>{0, 1, 2, 3});
  CHECK(h.online_cpus == std::vector<int>{0, 1, 2, 3});
  CHECK(h.smt_active == true);
  CHECK(h.smt_control == "on");
  CHECK(h.cpufreq_driver == "intel_cpufreq");
  CHECK(h.governors == std::vector<CpuGovernor>{
                           {0, "ondemand"}, {1, "ondemand"}, {2, "ondemand"}, {3, "performance"}});
  CHECK(h.boost == true);
  CHECK(h.boost_control == "/sys/devices/system/cpu/intel_pstate/no_turbo");
  CHECK(h.clocksource == "tsc");
  CHECK(h.available_clocksources == std::vector<std::string>{"tsc", "hpet", "acpi_pm"});
  CHECK_FALSE(h.virtualized);
  CHECK(h.hypervisor.empty());
  CHECK(h.hypervisor_evidence.empty());
  CHECK(h.perf_events);
  CHECK(h.perf_event_paranoid == 4);
  CHECK(h.nmi_watchdog == 1);
  CHECK(h.pmus == std::vector<std::string>{"breakpoint", "cpu", "msr", "power", "software",
                                           "tracepoint", "uprobe"});
  CHECK(h.core_pmus == std::vector<std::string>{"cpu"});
  CHECK(h.pmu_name == "skylake");
  CHECK(h.gp_counters == 4);
  CHECK(h.fixed_counters == 3);
  CHECK(h.counters_source == "cpuid leaf 0xa");
  CHECK(h.breakpoint_slots == 4u);
  CHECK(h.isolated_cpus.empty());
  CHECK(h.nohz_full_cpus.empty());
  CHECK(h.cmdline_isolcpus.empty());
  REQUIRE(h.load.has_value());
  CHECK(h.load->one == 3.52);
  CHECK(h.load->five == 2.10);
  CHECK(h.load->fifteen == 1.05);
  CHECK(h.randomize_va_space == 2);
  CHECK(h.thp_enabled == "always");
  CHECK(h.mem_total_kb == 32602164u);
  CHECK(h.swap_devices == 2u);
  CHECK(h.swap_total_kb == 16777212u + 2097148u);
  CHECK(h.swappiness == 60);
  CHECK(h.euid == 1000u);
  CHECK_FALSE(h.perf_capable);
}

TEST_CASE("read_host on the kvm-no-pmu fixture (this project's development guest)") {
  const HostInfo h = read_host(fixture("kvm-no-pmu"), test::kvm_no_pmu_cpuid());
  CHECK(h.kernel_release == "6.18.44-fc-v669");
  CHECK(h.cpu_model == "Intel(R) Xeon(R) Processor");
  CHECK(h.online_cpus == std::vector<int>{0, 1});
  CHECK(h.smt_active == false);
  CHECK(h.smt_control == "notsupported");
  CHECK(h.governors.empty());
  CHECK(h.cpufreq_driver.empty());
  CHECK_FALSE(h.boost.has_value());
  CHECK(h.virtualized);
  CHECK(h.hypervisor == "KVM");
  CHECK(h.hypervisor_evidence ==
        std::vector<std::string>{"cpuid leaf 0x40000000 signature \"KVMKVMKVM\"",
                                 "\"hypervisor\" flag in /proc/cpuinfo"});
  CHECK(h.perf_event_paranoid == 2);
  CHECK(h.nmi_watchdog == 0);
  CHECK(h.pmus ==
        std::vector<std::string>{"breakpoint", "msr", "software", "tracepoint", "uprobe"});
  CHECK(h.core_pmus.empty());
  CHECK(h.pmu_name.empty());
  CHECK(h.gp_counters == 0);
  CHECK(h.fixed_counters == 0);
  CHECK(h.counters_source == "no core PMU in /sys/bus/event_source/devices");
  CHECK(h.breakpoint_slots == 4u);
  // isolcpus=1 appears only after "--", where the arguments belong to init.
  CHECK(h.cmdline_isolcpus.empty());
  CHECK(h.isolated_cpus.empty());
  CHECK(h.thp_enabled == "madvise");
  CHECK(h.swap_devices == 0u);
  CHECK(h.swap_total_kb == 0u);
  CHECK(h.mem_total_kb == 24684084u);
  CHECK(h.euid == 0u);
  CHECK(h.perf_capable);
}

TEST_CASE("read_host on the hybrid-isolated fixture") {
  const HostInfo h = read_host(fixture("hybrid-isolated"), test::hybrid_cpuid());
  CHECK(h.core_pmus == std::vector<std::string>{"cpu_atom", "cpu_core"});
  CHECK(h.pmu_name == "alderlake_hybrid");
  CHECK(h.gp_counters == 8);
  CHECK(h.fixed_counters == 4);
  CHECK(h.isolated_cpus == std::vector<int>{2, 3});
  CHECK(h.nohz_full_cpus == std::vector<int>{2, 3});
  CHECK(h.cmdline_isolcpus == "2-3");
  CHECK(h.cmdline_nohz_full == "2-3");
  CHECK(h.boost == false);
  CHECK(h.smt_active == false);
  CHECK(h.smt_control == "off");
  CHECK(h.thp_enabled == "never");
  CHECK(h.randomize_va_space == 0);
  CHECK(h.clocksource == "hpet");
  CHECK_FALSE(h.virtualized);  // a hardware maker's DMI strings are no evidence
}

TEST_CASE("read_host on the xen-amd fixture") {
  const HostInfo h = read_host(fixture("xen-amd"), test::xen_amd_cpuid());
  CHECK(h.cpu_vendor == "AuthenticAMD");
  CHECK(h.virtualized);
  CHECK(h.hypervisor == "Xen");
  CHECK(h.hypervisor_evidence ==
        std::vector<std::string>{"cpuid leaf 0x40000000 signature \"XenVMMXenVMM\"",
                                 "\"hypervisor\" flag in /proc/cpuinfo",
                                 "/sys/hypervisor/type is \"xen\"",
                                 "DMI says \"Xen\" / \"HVM domU\""});
  CHECK(h.core_pmus == std::vector<std::string>{"cpu"});
  // Fn8000_0001 ECX[23] PerfCtrExtCore: six core counters (AMD APM Vol. 2, 13.2).
  CHECK(h.gp_counters == 6);
  CHECK(h.fixed_counters == 0);
  CHECK(h.counters_source == "cpuid 0x80000001 PerfCtrExtCore");
  CHECK(h.swap_devices == 0u);  // no /proc/swaps at all
  CHECK(h.swappiness == 60);
  CHECK(h.perf_event_paranoid == 3);
  CHECK(h.perf_capable);
}

TEST_CASE("counter slots on AMD come from the extended CPUID leaves") {
  auto cpuid = test::xen_amd_cpuid();
  cpuid.amd_perfctr_ext_core = false;
  HostInfo legacy = read_host(fixture("xen-amd"), cpuid);
  CHECK(legacy.gp_counters == 4);
  cpuid.amd_perfmon_v2 = true;
  cpuid.amd_core_counters = 6;
  HostInfo v2 = read_host(fixture("xen-amd"), cpuid);
  CHECK(v2.gp_counters == 6);
  CHECK(v2.counters_source == "cpuid 0x80000022");
}

TEST_CASE("read_host under a root that does not exist knows nothing and says so") {
  const HostInfo h = read_host("/nonexistent-obscheck-root", CpuidInfo{});
  HostInfo nothing;
  nothing.counters_source = "no core PMU in /sys/bus/event_source/devices";
  CHECK(h == nothing);
  // Only the absence of perf_event itself is a finding; unknown properties are not.
  const auto findings = doctor_checks(h);
  REQUIRE(findings.size() == 1);
  CHECK(findings[0].id == "perf-events-missing");
  CHECK(findings[0].severity == Severity::blocking);
  CHECK(has_blocking(findings));
}

TEST_CASE("HostInfo survives a JSON round trip") {
  for (const auto& [name, cpuid] :
       {std::pair{"bare-metal-noisy", test::skylake_cpuid()},
        std::pair{"kvm-no-pmu", test::kvm_no_pmu_cpuid()},
        std::pair{"hybrid-isolated", test::hybrid_cpuid()},
        std::pair{"xen-amd", test::xen_amd_cpuid()}}) {
    INFO(name);
    const HostInfo h = read_host(fixture(name), cpuid);
    const std::string text = nlohmann::json(h).dump();
    const HostInfo back = nlohmann::json::parse(text).get<HostInfo>();
    CHECK(back == h);
  }
  const HostInfo live = read_host();
  CHECK(nlohmann::json::parse(nlohmann::json(live).dump()).get<HostInfo>() == live);
}

TEST_CASE("HostInfo JSON: unknown values are null, missing keys keep defaults") {
  const HostInfo h = read_host(fixture("kvm-no-pmu"), test::kvm_no_pmu_cpuid());
  const nlohmann::json j = h;
  CHECK(j.at("boost").is_null());
  CHECK(j.at("perf_event_paranoid") == 2);
  CHECK(j.at("cpuid").at("hypervisor_signature") == "KVMKVMKVM");
  CHECK(j.at("load").at("1min") == 0.06);

  const auto partial = nlohmann::json{{"hostname", "old"}, {"online_cpus", {0, 1}}};
  const HostInfo old = partial.get<HostInfo>();
  CHECK(old.hostname == "old");
  CHECK(old.online_cpus == std::vector<int>{0, 1});
  CHECK_FALSE(old.perf_event_paranoid.has_value());
  CHECK(old.kernel_release.empty());

  CHECK_THROWS_AS((nlohmann::json{{"online_cpus", "0-1"}}.get<HostInfo>()),
                  nlohmann::json::exception);
}

// Facts true of any Linux host, checked against the system calls that report them.
TEST_CASE("read_host on the live host agrees with the kernel's own answers") {
  const HostInfo h = read_host();
  utsname u{};
  REQUIRE(::uname(&u) == 0);
  CHECK(h.kernel_release == u.release);
  CHECK(h.hostname == u.nodename);
  CHECK(h.arch == u.machine);
  CHECK(h.online_cpus.size() == static_cast<std::size_t>(::sysconf(_SC_NPROCESSORS_ONLN)));
  struct sysinfo si {};
  REQUIRE(::sysinfo(&si) == 0);
  CHECK(h.mem_total_kb == static_cast<std::uint64_t>(si.totalram) * si.mem_unit / 1024);
  CHECK(h.euid == static_cast<unsigned>(::geteuid()));
  if (::geteuid() == 0) CHECK(h.perf_capable);
  REQUIRE(h.randomize_va_space.has_value());
  CHECK(*h.randomize_va_space >= 0);
  CHECK(*h.randomize_va_space <= 2);
  // perf_event_paranoid is readable wherever perf_event exists.
  CHECK(h.perf_events == std::filesystem::exists("/proc/sys/kernel/perf_event_paranoid"));
  if (h.perf_events) CHECK(h.perf_event_paranoid.has_value());
  const bool cpu_pmu = std::filesystem::exists("/sys/bus/event_source/devices/cpu") ||
                       std::filesystem::exists("/sys/bus/event_source/devices/cpu_core");
  CHECK(cpu_pmu == !h.core_pmus.empty());
  if (!cpu_pmu) CHECK(h.gp_counters == 0);
#if defined(__x86_64__)
  CHECK(h.cpuid.available);
  if (std::filesystem::exists("/sys/bus/event_source/devices/breakpoint"))
    CHECK(h.breakpoint_slots == 4u);
#endif
}

// The development guest: KVM, no virtual PMU. Skipped on any other kind of host.
TEST_CASE("read_host on a KVM guest without a PMU detects both") {
  const CpuidInfo cpuid = read_cpuid();
  if (cpuid.hypervisor_signature != "KVMKVMKVM" ||
      std::filesystem::exists("/sys/bus/event_source/devices/cpu")) {
    WARN("skipped: not a KVM guest without a cpu PMU");
    return;
  }
  const HostInfo h = read_host("/", cpuid);
  CHECK(h.virtualized);
  CHECK(h.hypervisor == "KVM");
  CHECK(h.core_pmus.empty());
  CHECK(h.cpuid.perfmon_version == 0);
  const auto findings = doctor_checks(h);
  auto has = [&](std::string_view id, Severity s) {
    return std::ranges::any_of(findings,
                               [&](const Finding& f) { return f.id == id && f.severity == s; });
  };
  CHECK(has("no-hardware-pmu", Severity::warning));
  CHECK(has("virtual-machine", Severity::warning));
  if (h.perf_capable) CHECK_FALSE(has_blocking(findings));
}
