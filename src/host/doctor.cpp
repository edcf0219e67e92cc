#include "host/doctor.h"

#include "util/error.h"

#include <fmt/format.h>

#include <algorithm>
#include <map>

namespace obscheck {

namespace {

// Debian's and Ubuntu's kernels (patch "security,perf: Allow further restriction of
// perf_event_open") read 3 and above as "no perf_event_open without CAP_PERFMON or
// CAP_SYS_ADMIN"; upstream kernels treat them as 2.
constexpr int kParanoidDisallowAll = 3;
// 2: unprivileged users may count user space only (kernel/events/core.c perf_allow_kernel).
constexpr int kParanoidUserOnly = 2;
// More runnable tasks than half the CPUs means the target will share a CPU with
// something for a noticeable part of a run (the limit the doctor was specified with;
// Rechistov, "Pitfalls of measuring software performance": "Do not run on a busy system").
constexpr double kLoadPerCpuLimit = 0.5;

// The driver option that replaces hardware counters with the cachegrind model
// (the simulated PMU); named once so the advice follows the option.
constexpr std::string_view kSimBackend = "--backend sim";

constexpr std::string_view kGovernorFix =
    "echo performance | sudo tee /sys/devices/system/cpu/cpu*/cpufreq/scaling_governor";

using Findings = std::vector<Finding>;

void add(Findings& out, std::string_view id, Severity s, std::string what, std::string why,
         std::string fix = {}) {
  out.push_back({std::string(id), s, std::move(what), std::move(why), std::move(fix)});
}

bool contains(const std::vector<std::string>& v, std::string_view x) {
  return std::ranges::find(v, x) != v.end();
}

void check_perf_access(const HostInfo& h, Findings& out) {
  if (!h.perf_events) {
    add(out, finding_id::perf_events_missing, Severity::blocking,
        "the kernel has no perf_event support (/proc/sys/kernel/perf_event_paranoid is missing)",
        "every observer and every reference counter is a perf event; nothing can be measured",
        "boot a kernel built with CONFIG_PERF_EVENTS=y");
    return;
  }
  if (!h.perf_event_paranoid || h.perf_capable) return;
  const int p = *h.perf_event_paranoid;
  if (p >= kParanoidDisallowAll) {
    add(out, finding_id::perf_paranoid, Severity::blocking,
        fmt::format("perf_event_paranoid is {} and this user has neither CAP_PERFMON nor "
                    "CAP_SYS_ADMIN",
                    p),
        "Debian and Ubuntu kernels read 3 and above as \"no perf_event_open for "
        "unprivileged users\": obscheck could not count even task-clock on its own child. "
        "Granting the capability works too: sudo setcap cap_perfmon+ep $(command -v obscheck)",
        fmt::format("sudo sysctl -w kernel.perf_event_paranoid={}", kParanoidUserOnly));
  } else if (p == kParanoidUserOnly) {
    add(out, finding_id::perf_paranoid_kernel, Severity::info,
        "perf_event_paranoid is 2: this user may count user space only",
        "an event that also counts kernel mode is refused (EACCES), so obscheck counts every "
        "event at user level only, as perf stat falls back to, and says so in each report; "
        "context switches and other events the kernel raises on its own read 0 there, and "
        "tsc (the msr PMU counts every level or none) cannot be counted; the demo leaves tsc out. "
        "Granting the capability works too: sudo setcap cap_perfmon+ep $(command -v obscheck)",
        "sudo sysctl -w kernel.perf_event_paranoid=1");
  }
}

std::string pmu_passthrough_fix(const HostInfo& h) {
  if (h.virtualized)
    return fmt::format(
        "enable the virtual PMU in the hypervisor (libvirt: <cpu mode='host-passthrough'/> "
        "and <pmu state='on'/> under <features>; QEMU: -cpu host,pmu=on), or measure with {}",
        kSimBackend);
  return fmt::format("boot a kernel with the PMU driver for this CPU, or measure with {}",
                     kSimBackend);
}

void check_pmu(const HostInfo& h, Findings& out) {
  if (!h.perf_events) return;
  if (h.core_pmus.empty()) {
    std::string what = "no hardware PMU: no cpu PMU in /sys/bus/event_source/devices";
    const auto& c = h.cpuid;
    if (c.vendor == "GenuineIntel" && c.max_leaf >= 0xA && c.perfmon_version == 0)
      what += "; CPUID leaf 0xA reports no architectural performance monitoring (version 0)";
    add(out, finding_id::no_hardware_pmu, Severity::warning, std::move(what),
        "cycles, instructions and cache events cannot be counted (the kernel answers "
        "ENOENT); software events (task-clock, page-faults, context switches), hardware "
        "breakpoints and uprobes still work, and " + std::string(kSimBackend) +
            " models the hardware counters with cachegrind",
        pmu_passthrough_fix(h));
    return;
  }
  if (contains(h.core_pmus, "cpu_core") && contains(h.core_pmus, "cpu_atom"))
    add(out, finding_id::hybrid_cpu, Severity::warning,
        "hybrid CPU: separate cpu_core (P-core) and cpu_atom (E-core) PMUs",
        "the two core types differ in speed, caches and counters; a target that migrates "
        "between them mixes two machines in one run",
        "pin the target to one core type with --cpu N (lscpu --extended lists each CPU's "
        "maximum frequency, which tells the types apart)");
  if (h.gp_counters > 0) {
    std::string what = fmt::format("{} general-purpose counters (+{} fixed) per logical CPU ({})",
                                    h.gp_counters, h.fixed_counters, h.counters_source);
    if (h.nmi_watchdog.value_or(0) > 0) what += "; the NMI watchdog holds one of them";
    add(out, finding_id::counter_slots, Severity::info, std::move(what),
        "a configuration with more events than free counters is multiplexed by the kernel; "
        "obscheck marks multiplexed runs incomparable instead of scaling them");
  }
  if (h.nmi_watchdog.value_or(0) > 0)
    add(out, finding_id::nmi_watchdog, Severity::warning,
        fmt::format("the NMI watchdog is on (kernel.nmi_watchdog={}) and holds a hardware "
                    "counter on every CPU",
                    *h.nmi_watchdog),
        "one counter fewer for obscheck: an event list that would fit the PMU is "
        "multiplexed instead, and the watchdog's periodic NMIs interrupt the target",
        "sudo sysctl -w kernel.nmi_watchdog=0");
}

void check_probes(const HostInfo& h, Findings& out) {
  if (!h.perf_events) return;
  if (contains(h.pmus, "uprobe") && !h.perf_capable)
    add(out, finding_id::uprobes_need_privilege, Severity::info,
        "uprobe perf events need CAP_PERFMON or CAP_SYS_ADMIN, which this user lacks",
        "the kernel refuses perf_event_open on the uprobe PMU without the capability "
        "whatever perf_event_paranoid says, so the software-probe observer cannot run",
        "sudo setcap cap_perfmon+ep $(command -v obscheck)");
  if (!contains(h.pmus, "breakpoint"))
    add(out, finding_id::no_breakpoints, Severity::info,
        "no breakpoint PMU in /sys/bus/event_source/devices",
        "the hardware-breakpoint observer (bp:PATH:SYMBOL) is unavailable on this kernel");
}

void check_virtualization(const HostInfo& h, Findings& out) {
  if (!h.virtualized) return;
  std::string evidence;
  for (const auto& e : h.hypervisor_evidence) evidence += (evidence.empty() ? "" : "; ") + e;
  add(out, finding_id::virtual_machine, Severity::warning,
      fmt::format("running in a virtual machine ({}: {})",
                  h.hypervisor.empty() ? "hypervisor unknown" : h.hypervisor, evidence),
      "the hypervisor steals time for other guests and its own exits, virtualises timers "
      "and the PMU, and turns every breakpoint or uprobe trap into an exit costing "
      "microseconds: timing noise is larger and observer costs differ from bare metal "
      "(background load: \"The methodology problem: most benchmarks are wrong\")",
      "repeat the measurement on bare metal before trusting small timing effects; at least "
      "pin each vCPU to a dedicated host core (virsh vcpupin DOMAIN VCPU HOSTCPU)");
}

void check_frequency(const HostInfo& h, Findings& out) {
  const std::string_view freq_why =
      "a governor other than performance raises the clock only when load appears, so "
      "early and short runs see a slower CPU than later ones (frequency: \"The methodology problem: most benchmarks are wrong\"; Rechistov, \"Pitfalls of measuring software performance\": "
      "fixate the frequency)";
  if (h.governors.empty() && !h.online_cpus.empty()) {
    add(out, finding_id::no_cpufreq, Severity::info,
        h.virtualized ? "no cpufreq in this guest: the CPU frequency is the hypervisor host's "
                        "to set"
                      : "no cpufreq driver: firmware sets the CPU frequency",
        "obscheck cannot see frequency scaling from here; it shows up as drift between "
        "blocks, which the analysis tests for",
        h.virtualized ? "on the hypervisor host: " + std::string(kGovernorFix) : std::string{});
  } else if (!h.governors.empty()) {
    std::map<std::string, std::vector<int>> by_governor;
    for (const auto& g : h.governors)
      if (g.governor != "performance") by_governor[g.governor].push_back(g.cpu);
    if (!by_governor.empty()) {
      std::string what = "scaling governor is ";
      bool first = true;
      for (const auto& [gov, cpus] : by_governor) {
        what += fmt::format("{}{} on cpu {}", first ? "" : ", ", gov, format_cpu_list(cpus));
        first = false;
      }
      add(out, finding_id::cpu_governor, Severity::warning, std::move(what),
          std::string(freq_why), std::string(kGovernorFix));
    }
  }
  if (h.boost.value_or(false)) {
    const bool pstate = h.boost_control.ends_with("intel_pstate/no_turbo");
    add(out, finding_id::boost, Severity::warning,
        fmt::format("turbo boost is on ({} is {})", h.boost_control, pstate ? "0" : "1"),
        "boost raises the clock while the package is cool and few cores are busy, then "
        "drops it: the same run slows down as the chip heats up (Rechistov, \"Pitfalls of measuring software performance\"; \"The methodology problem: most benchmarks are wrong\"; "
        "\"Estimating Benchmark Results Uncertainty\")",
        pstate ? "echo 1 | sudo tee /sys/devices/system/cpu/intel_pstate/no_turbo"
               : "echo 0 | sudo tee /sys/devices/system/cpu/cpufreq/boost");
  }
}

void check_cpu_sharing(const HostInfo& h, Findings& out) {
  if (h.smt_active.value_or(false))
    add(out, finding_id::smt, Severity::warning,
        "SMT (hyper-threading) is on: sibling logical CPUs share one core",
        "whatever runs on the sibling shares the target's caches, TLB and execution units, "
        "and on many Intel cores SMT halves the general-purpose counters per logical CPU "
        "(SMT effects: \"The methodology problem: most benchmarks are wrong\")",
        "echo off | sudo tee /sys/devices/system/cpu/smt/control");
  if (h.online_cpus.size() >= 2) {
    if (h.isolated_cpus.empty()) {
      const int n = h.online_cpus.back();
      add(out, finding_id::no_isolated_cpus, Severity::info,
          "no isolated CPUs: the scheduler may run other tasks on the target's CPU",
          "daemons, kernel threads and interrupts preempt the target and pollute its caches "
          "(isolcpus: \"The methodology problem: most benchmarks are wrong\"; pin threads: Rechistov, \"Pitfalls of measuring software performance\")",
          fmt::format("add isolcpus={0} nohz_full={0} to GRUB_CMDLINE_LINUX in "
                      "/etc/default/grub, sudo update-grub, reboot, then run with --cpu {0}",
                      n));
    } else {
      std::string what = fmt::format("isolated CPUs: {}", format_cpu_list(h.isolated_cpus));
      if (!h.nohz_full_cpus.empty())
        what += fmt::format(" (nohz_full: {})", format_cpu_list(h.nohz_full_cpus));
      add(out, finding_id::isolated_cpus, Severity::info, std::move(what),
          "an isolated CPU runs only what is pinned to it, the quietest place for the target",
          fmt::format("run with --cpu {}", h.isolated_cpus.front()));
    }
  }
  if (h.load && !h.online_cpus.empty()) {
    const double limit = kLoadPerCpuLimit * static_cast<double>(h.online_cpus.size());
    if (h.load->one > limit)
      add(out, finding_id::load, Severity::warning,
          fmt::format("1-minute load average {:.2f} on {} online CPUs (warning above {:.1f})",
                      h.load->one, h.online_cpus.size(), limit),
          "other runnable tasks compete with the target for CPUs, caches and memory "
          "bandwidth; stop them before measuring (Rechistov, \"Pitfalls of measuring software performance\"; \"The methodology problem: most benchmarks are wrong\")",
          "ps -eo pid,pcpu,comm --sort=-pcpu | head");
  }
}

void check_memory(const HostInfo& h, Findings& out) {
  if (h.thp_enabled == "always")
    add(out, finding_id::thp, Severity::warning, "transparent huge pages: always",
        "whether a region gets 2 MiB pages depends on its alignment and on khugepaged's "
        "timing, so page-fault counts, TLB misses and memory layout vary from run to run",
        "echo madvise | sudo tee /sys/kernel/mm/transparent_hugepage/enabled");
  if (h.swap_devices > 0) {
    std::string what = fmt::format("swap is active: {} device{}, {} KiB", h.swap_devices,
                                   h.swap_devices == 1 ? "" : "s", h.swap_total_kb);
    if (h.swappiness) what += fmt::format(", vm.swappiness={}", *h.swappiness);
    add(out, finding_id::swap, Severity::warning, std::move(what),
        "pages of the target may be swapped out between runs; a major fault costs "
        "milliseconds and shows up as an outlier or a drift",
        "sudo swapoff -a");
  }
  if (h.randomize_va_space.value_or(0) > 0)
    add(out, finding_id::aslr, Severity::info,
        fmt::format("ASLR is on (kernel.randomize_va_space={})", *h.randomize_va_space),
        "nothing to do: obscheck starts every target with personality(ADDR_NO_RANDOMIZE), "
        "so each run sees the same stack and mmap addresses (Mytkowicz et al., \"Observer Effect "
        "and Measurement Bias in Performance Analysis\", disabled stack randomisation for the same reason); tools run beside obscheck "
        "still randomise");
}

void check_clocksource(const HostInfo& h, Findings& out) {
  if (h.clocksource.empty() || h.clocksource == "tsc") return;
  const bool tsc_available = contains(h.available_clocksources, "tsc");
  const bool x86 = h.arch == "x86_64" || h.arch == "i386" || h.arch == "i686";
  if (!tsc_available && !x86) return;  // other architectures have their own counters
  add(out, finding_id::clocksource, Severity::info,
      fmt::format("clocksource is {}, not tsc{}", h.clocksource,
                  tsc_available ? "" : " (the kernel does not offer tsc)"),
      "wall-clock reads through a clocksource other than the TSC cost more and, in a "
      "guest, may exit to the hypervisor; that adds noise to the wall time of short runs",
      tsc_available
          ? "echo tsc | sudo tee /sys/devices/system/clocksource/clocksource0/current_clocksource"
          : "");
}

}  // namespace

std::string_view to_string(Severity s) {
  switch (s) {
    case Severity::info: return "info";
    case Severity::warning: return "warning";
    case Severity::blocking: return "blocking";
  }
  return "info";
}

Severity severity_from_string(std::string_view s) {
  if (s == "info") return Severity::info;
  if (s == "warning") return Severity::warning;
  if (s == "blocking") return Severity::blocking;
  throw Error(ErrorKind::io, fmt::format("unknown severity \"{}\"", s),
              "expected info, warning or blocking");
}

std::vector<Finding> doctor_checks(const HostInfo& host) {
  Findings out;
  check_perf_access(host, out);
  check_pmu(host, out);
  check_probes(host, out);
  check_virtualization(host, out);
  check_frequency(host, out);
  check_cpu_sharing(host, out);
  check_memory(host, out);
  check_clocksource(host, out);
  std::ranges::stable_sort(out, [](const Finding& a, const Finding& b) {
    return static_cast<int>(a.severity) > static_cast<int>(b.severity);
  });
  return out;
}

bool has_blocking(const std::vector<Finding>& findings) {
  return std::ranges::any_of(findings,
                             [](const Finding& f) { return f.severity == Severity::blocking; });
}

void to_json(nlohmann::json& j, const Finding& f) {
  j = nlohmann::json{{"id", f.id},   {"severity", to_string(f.severity)},
                     {"what", f.what}, {"why", f.why},
                     {"fix", f.fix}};
}

void from_json(const nlohmann::json& j, Finding& f) {
  f.id = j.at("id").get<std::string>();
  f.severity = severity_from_string(j.at("severity").get<std::string>());
  f.what = j.value("what", std::string{});
  f.why = j.value("why", std::string{});
  f.fix = j.value("fix", std::string{});
}

}  // namespace obscheck
