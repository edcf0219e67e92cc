#include <catch2/catch.hpp>

#include "fixtures.h"
#include "host/doctor.h"
#include "util/error.h"

using namespace obscheck;
using obscheck::test::fixture;

namespace {

struct Expected {
  std::string id;
  Severity severity;
  std::string fix;
};

const std::string kGovernorFix =
    "echo performance | sudo tee /sys/devices/system/cpu/cpu*/cpufreq/scaling_governor";
const std::string kPassthroughFix =
    "enable the virtual PMU in the hypervisor (libvirt: <cpu mode='host-passthrough'/> and "
    "<pmu state='on'/> under <features>; QEMU: -cpu host,pmu=on), or measure with "
    "--backend sim";
const std::string kSetcapFix = "sudo setcap cap_perfmon+ep $(command -v obscheck)";

void require_findings(const std::vector<Finding>& got, const std::vector<Expected>& want) {
  std::string listing;
  for (const auto& f : got) listing += f.id + " (" + std::string(to_string(f.severity)) + ")\n";
  INFO("findings:\n" << listing);
  REQUIRE(got.size() == want.size());
  for (std::size_t i = 0; i < want.size(); ++i) {
    INFO("finding " << i);
    CHECK(got[i].id == want[i].id);
    CHECK(got[i].severity == want[i].severity);
    CHECK(got[i].fix == want[i].fix);
    CHECK_FALSE(got[i].what.empty());
    CHECK_FALSE(got[i].why.empty());
  }
}

const Finding& find(const std::vector<Finding>& fs, std::string_view id) {
  for (const auto& f : fs)
    if (f.id == id) return f;
  FAIL("no finding " << id);
  throw;  // unreachable: FAIL throws
}

}  // namespace

TEST_CASE("doctor on bare-metal-noisy: paranoid 4 for a plain user blocks") {
  const auto fs = doctor_checks(read_host(fixture("bare-metal-noisy"), test::skylake_cpuid()));
  require_findings(
      fs, {
              {"perf-paranoid", Severity::blocking, "sudo sysctl -w kernel.perf_event_paranoid=2"},
              {"nmi-watchdog", Severity::warning, "sudo sysctl -w kernel.nmi_watchdog=0"},
              {"cpu-governor", Severity::warning, kGovernorFix},
              {"boost", Severity::warning,
               "echo 1 | sudo tee /sys/devices/system/cpu/intel_pstate/no_turbo"},
              {"smt", Severity::warning, "echo off | sudo tee /sys/devices/system/cpu/smt/control"},
              {"load", Severity::warning, "ps -eo pid,pcpu,comm --sort=-pcpu | head"},
              {"thp", Severity::warning,
               "echo madvise | sudo tee /sys/kernel/mm/transparent_hugepage/enabled"},
              {"swap", Severity::warning, "sudo swapoff -a"},
              {"counter-slots", Severity::info, ""},
              {"uprobes-need-privilege", Severity::info, kSetcapFix},
              {"no-isolated-cpus", Severity::info,
               "add isolcpus=3 nohz_full=3 to GRUB_CMDLINE_LINUX in /etc/default/grub, sudo "
               "update-grub, reboot, then run with --cpu 3"},
              {"aslr", Severity::info, ""},
          });
  CHECK(has_blocking(fs));
  CHECK(find(fs, "perf-paranoid").what ==
        "perf_event_paranoid is 4 and this user has neither CAP_PERFMON nor CAP_SYS_ADMIN");
  // cpu 3 is already on performance; the others are grouped into one range.
  CHECK(find(fs, "cpu-governor").what == "scaling governor is ondemand on cpu 0-2");
  CHECK(find(fs, "boost").what ==
        "turbo boost is on (/sys/devices/system/cpu/intel_pstate/no_turbo is 0)");
  // 0.5 x 4 online CPUs = 2.0 < 3.52.
  CHECK(find(fs, "load").what ==
        "1-minute load average 3.52 on 4 online CPUs (warning above 2.0)");
  // 16777212 + 2097148 KiB from the two /proc/swaps lines.
  CHECK(find(fs, "swap").what ==
        "swap is active: 2 devices, 18874360 KiB, vm.swappiness=60");
  CHECK(find(fs, "counter-slots").what ==
        "4 general-purpose counters (+3 fixed) per logical CPU (cpuid leaf 0xa); the NMI "
        "watchdog holds one of them");
  CHECK(find(fs, "aslr").what == "ASLR is on (kernel.randomize_va_space=2)");
  CHECK(find(fs, "aslr").why.find("ADDR_NO_RANDOMIZE") != std::string::npos);
}

TEST_CASE("doctor on kvm-no-pmu: no PMU and a VM are warnings, nothing blocks") {
  const auto fs = doctor_checks(read_host(fixture("kvm-no-pmu"), test::kvm_no_pmu_cpuid()));
  require_findings(fs, {
                           {"no-hardware-pmu", Severity::warning, kPassthroughFix},
                           {"virtual-machine", Severity::warning,
                            "repeat the measurement on bare metal before trusting small timing "
                            "effects; at least pin each vCPU to a dedicated host core (virsh "
                            "vcpupin DOMAIN VCPU HOSTCPU)"},
                           {"no-cpufreq", Severity::info, "on the hypervisor host: " + kGovernorFix},
                           {"no-isolated-cpus", Severity::info,
                            "add isolcpus=1 nohz_full=1 to GRUB_CMDLINE_LINUX in "
                            "/etc/default/grub, sudo update-grub, reboot, then run with --cpu 1"},
                           {"aslr", Severity::info, ""},
                       });
  CHECK_FALSE(has_blocking(fs));
  CHECK(find(fs, "no-hardware-pmu").what ==
        "no hardware PMU: no cpu PMU in /sys/bus/event_source/devices; CPUID leaf 0xA reports "
        "no architectural performance monitoring (version 0)");
  CHECK(find(fs, "virtual-machine").what ==
        "running in a virtual machine (KVM: cpuid leaf 0x40000000 signature \"KVMKVMKVM\"; "
        "\"hypervisor\" flag in /proc/cpuinfo)");
}

TEST_CASE("doctor on hybrid-isolated: a tuned host has only the hybrid warning") {
  const auto fs = doctor_checks(read_host(fixture("hybrid-isolated"), test::hybrid_cpuid()));
  require_findings(
      fs, {
              {"hybrid-cpu", Severity::warning,
               "pin the target to one core type with --cpu N (lscpu --extended lists each "
               "CPU's maximum frequency, which tells the types apart)"},
              {"counter-slots", Severity::info, ""},
              {"uprobes-need-privilege", Severity::info, kSetcapFix},
              {"isolated-cpus", Severity::info, "run with --cpu 2"},
              {"clocksource", Severity::info,
               "echo tsc | sudo tee "
               "/sys/devices/system/clocksource/clocksource0/current_clocksource"},
          });
  CHECK_FALSE(has_blocking(fs));
  CHECK(find(fs, "isolated-cpus").what == "isolated CPUs: 2-3 (nohz_full: 2-3)");
  CHECK(find(fs, "clocksource").what == "clocksource is hpet, not tsc");
  CHECK(find(fs, "counter-slots").what ==
        "8 general-purpose counters (+4 fixed) per logical CPU (cpuid leaf 0xa)");
}

TEST_CASE("doctor on xen-amd: root is not held back by paranoid 3") {
  const auto fs = doctor_checks(read_host(fixture("xen-amd"), test::xen_amd_cpuid()));
  require_findings(fs, {
                           {"nmi-watchdog", Severity::warning,
                            "sudo sysctl -w kernel.nmi_watchdog=0"},
                           {"virtual-machine", Severity::warning,
                            "repeat the measurement on bare metal before trusting small timing "
                            "effects; at least pin each vCPU to a dedicated host core (virsh "
                            "vcpupin DOMAIN VCPU HOSTCPU)"},
                           {"load", Severity::warning, "ps -eo pid,pcpu,comm --sort=-pcpu | head"},
                           {"counter-slots", Severity::info, ""},
                           {"no-cpufreq", Severity::info, "on the hypervisor host: " + kGovernorFix},
                           {"aslr", Severity::info, ""},
                           {"clocksource", Severity::info, ""},
                       });
  CHECK_FALSE(has_blocking(fs));
  // One online CPU: 0.5 x 1 = 0.5 < 0.90.
  CHECK(find(fs, "load").what == "1-minute load average 0.90 on 1 online CPUs (warning above 0.5)");
  CHECK(find(fs, "clocksource").what == "clocksource is xen, not tsc (the kernel does not offer tsc)");
  CHECK(find(fs, "counter-slots").what ==
        "6 general-purpose counters (+0 fixed) per logical CPU (cpuid 0x80000001 "
        "PerfCtrExtCore); the NMI watchdog holds one of them");
}

TEST_CASE("doctor: perf_event_paranoid thresholds for an unprivileged user") {
  HostInfo h = read_host(fixture("hybrid-isolated"), test::hybrid_cpuid());
  REQUIRE_FALSE(h.perf_capable);
  auto ids = [](const std::vector<Finding>& fs) {
    std::vector<std::string> out;
    for (const auto& f : fs)
      if (f.id.starts_with("perf-")) out.push_back(f.id + ":" + std::string(to_string(f.severity)));
    return out;
  };
  h.perf_event_paranoid = -1;
  CHECK(ids(doctor_checks(h)).empty());
  h.perf_event_paranoid = 1;
  CHECK(ids(doctor_checks(h)).empty());
  h.perf_event_paranoid = 2;
  CHECK(ids(doctor_checks(h)) == std::vector<std::string>{"perf-paranoid-kernel:info"});
  CHECK(find(doctor_checks(h), "perf-paranoid-kernel").fix ==
        "sudo sysctl -w kernel.perf_event_paranoid=1");
  h.perf_event_paranoid = 3;
  CHECK(ids(doctor_checks(h)) == std::vector<std::string>{"perf-paranoid:blocking"});
  CHECK(has_blocking(doctor_checks(h)));
  h.perf_capable = true;  // CAP_PERFMON lifts every paranoid level
  CHECK(ids(doctor_checks(h)).empty());
  CHECK_FALSE(has_blocking(doctor_checks(h)));
}

TEST_CASE("doctor: boost through cpufreq/boost, the NMI watchdog without a PMU") {
  HostInfo h = read_host(fixture("kvm-no-pmu"), test::kvm_no_pmu_cpuid());
  h.boost = true;
  h.boost_control = "/sys/devices/system/cpu/cpufreq/boost";
  h.nmi_watchdog = 1;  // with no PMU the watchdog holds no counter: not a finding
  const auto fs = doctor_checks(h);
  CHECK(find(fs, "boost").fix == "echo 0 | sudo tee /sys/devices/system/cpu/cpufreq/boost");
  CHECK(find(fs, "boost").what == "turbo boost is on (/sys/devices/system/cpu/cpufreq/boost is 1)");
  CHECK(std::ranges::none_of(fs, [](const Finding& f) { return f.id == "nmi-watchdog"; }));
}

TEST_CASE("doctor: load exactly at the limit is not a warning") {
  HostInfo h = read_host(fixture("kvm-no-pmu"), test::kvm_no_pmu_cpuid());
  h.load = LoadAverage{1.0, 1.0, 1.0};  // 0.5 x 2 CPUs = 1.0, not above it
  CHECK(std::ranges::none_of(doctor_checks(h), [](const Finding& f) { return f.id == "load"; }));
  h.load->one = 1.01;
  CHECK(find(doctor_checks(h), "load").severity == Severity::warning);
}

TEST_CASE("doctor: a kernel without perf_event blocks, and nothing perf-related is added") {
  HostInfo h = read_host(fixture("kvm-no-pmu"), test::kvm_no_pmu_cpuid());
  h.perf_events = false;
  h.perf_event_paranoid.reset();
  h.pmus.clear();
  const auto fs = doctor_checks(h);
  REQUIRE_FALSE(fs.empty());
  CHECK(fs[0].id == "perf-events-missing");
  CHECK(fs[0].fix == "boot a kernel built with CONFIG_PERF_EVENTS=y");
  CHECK(std::ranges::none_of(fs, [](const Finding& f) {
    return f.id == "no-hardware-pmu" || f.id == "no-breakpoints";
  }));
}

TEST_CASE("Finding survives a JSON round trip and an unknown severity is an io error") {
  const auto fs = doctor_checks(read_host(fixture("bare-metal-noisy"), test::skylake_cpuid()));
  const std::string text = nlohmann::json(fs).dump();
  CHECK(nlohmann::json::parse(text).get<std::vector<Finding>>() == fs);
  CHECK(nlohmann::json(fs[0]).at("severity") == "blocking");

  const auto bad = nlohmann::json{{"id", "x"}, {"severity", "fatal"}};
  try {
    (void)bad.get<Finding>();
    FAIL("expected an Error");
  } catch (const Error& e) {
    CHECK(e.kind() == ErrorKind::io);
    CHECK(std::string(e.what()) == "unknown severity \"fatal\"");
  }
  CHECK(severity_from_string("warning") == Severity::warning);
  CHECK(to_string(Severity::info) == "info");
}
