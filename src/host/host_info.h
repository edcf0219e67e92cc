// host/: what this machine is, as far as measurement noise and bias are concerned.
//
// `HostInfo` is a plain value read from procfs/sysfs (and the CPUID instruction). It
// never changes the host. It is recorded in the journal's manifest line and re-read by
// `obscheck report`, so it converts to and from JSON (data, not presentation: the
// wording of the doctor's advice lives in doctor.h, the layout in report/ and cli/).
//
// Every file is read under a filesystem root (default "/"), so tests can point
// read_host at a fixture tree. A file that is missing or unreadable leaves its field
// at its "unknown" value (empty string/vector, std::nullopt); read_host never throws
// for a missing file: a VM without cpufreq or DMI is a normal host, not an error.
#pragma once

#include <nlohmann/json.hpp>

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace obscheck {

// The CPUID answers host/ uses. Read live by read_cpuid(); tests pass their own.
// All zero/empty/false where the instruction or a leaf does not exist (non-x86, or a
// leaf above the maximum the CPU reports).
struct CpuidInfo {
  bool available = false;            // the CPUID instruction exists (x86 only)
  std::string vendor;                // leaf 0: "GenuineIntel", "AuthenticAMD", ...
  unsigned max_leaf = 0;             // leaf 0 EAX
  bool hypervisor_bit = false;       // leaf 1 ECX bit 31, set by every mainstream hypervisor
  std::string hypervisor_signature;  // leaf 0x40000000 EBX:ECX:EDX, trailing NULs cut
                                     // ("KVMKVMKVM", "Microsoft Hv", "VMwareVMware")
  // Intel architectural performance monitoring, leaf 0xA (SDM Vol. 2A, CPUID).
  unsigned perfmon_version = 0;         // EAX[7:0]; 0 = no architectural PMU
  unsigned perfmon_gp_counters = 0;     // EAX[15:8], general-purpose counters per logical CPU
  unsigned perfmon_gp_width = 0;        // EAX[23:16], bits per counter
  unsigned perfmon_fixed_counters = 0;  // EDX[4:0], meaningful from version 2
  // AMD core counters (APM Vol. 3, CPUID Fn8000_0001 and Fn8000_0022).
  bool amd_perfctr_ext_core = false;  // Fn8000_0001 ECX bit 23: six core counters, not four
  bool amd_perfmon_v2 = false;        // Fn8000_0022 EAX bit 0
  unsigned amd_core_counters = 0;     // Fn8000_0022 EBX[3:0] when perfmon v2

  bool operator==(const CpuidInfo&) const = default;
};

// Executes CPUID on the calling CPU. On a non-x86 build returns CpuidInfo{}.
CpuidInfo read_cpuid();

struct CpuGovernor {
  int cpu = 0;
  std::string governor;  // cpu<N>/cpufreq/scaling_governor
  bool operator==(const CpuGovernor&) const = default;
};

struct LoadAverage {
  double one = 0, five = 0, fifteen = 0;  // /proc/loadavg, runnable+uninterruptible tasks
  bool operator==(const LoadAverage&) const = default;
};

struct HostInfo {
  // Identity (procfs, so fixture trees can supply them).
  std::string hostname;        // /proc/sys/kernel/hostname
  std::string kernel_release;  // /proc/sys/kernel/osrelease (uname -r)
  std::string kernel_version;  // /proc/sys/kernel/version (uname -v)
  std::string arch;            // /proc/sys/kernel/arch; uname(2) when absent and root is "/"

  // CPU.
  std::string cpu_vendor;         // /proc/cpuinfo vendor_id
  std::string cpu_model;          // /proc/cpuinfo "model name"
  std::vector<int> present_cpus;  // /sys/devices/system/cpu/present
  std::vector<int> online_cpus;   // /sys/devices/system/cpu/online
  std::optional<bool> smt_active;  // /sys/devices/system/cpu/smt/active
  std::string smt_control;         // smt/control: on off forceoff notsupported notimplemented
  std::string cpufreq_driver;      // cpu<first online>/cpufreq/scaling_driver
  std::vector<CpuGovernor> governors;  // online CPUs that have cpufreq; empty in most VMs
  std::optional<bool> boost;           // turbo/boost currently allowed
  std::string boost_control;  // the file that says so (and switches it), absolute path
  std::string clocksource;    // clocksource0/current_clocksource
  std::vector<std::string> available_clocksources;

  // Virtualisation.
  bool virtualized = false;
  std::string hypervisor;           // "KVM", "QEMU", "VMware", "Xen", "Hyper-V", ... or ""
  std::vector<std::string> hypervisor_evidence;  // each source that said so, in words

  // perf_event and the PMU.
  bool perf_events = false;                 // the kernel has perf_event (paranoid file exists)
  std::optional<int> perf_event_paranoid;   // /proc/sys/kernel/perf_event_paranoid
  std::optional<int> nmi_watchdog;          // /proc/sys/kernel/nmi_watchdog
  std::vector<std::string> pmus;            // /sys/bus/event_source/devices/*, sorted
  std::vector<std::string> core_pmus;       // those that count core events: cpu, cpu_core,
                                            // cpu_atom (hybrid), armv8_* / armv7_*
  std::string pmu_name;                     // <core pmu>/caps/pmu_name ("skylake", ...)
  CpuidInfo cpuid;                          // the raw answers the fields below came from
  unsigned gp_counters = 0;     // general-purpose counters per logical CPU a perf_event
                                // user can program; 0 without a core PMU or when unknown
  unsigned fixed_counters = 0;  // Intel fixed-function counters (cycles, instructions, ...)
  std::string counters_source;  // how gp_counters was learnt, e.g. "cpuid leaf 0xa"
  std::optional<unsigned> breakpoint_slots;  // hardware breakpoints (x86: DR0-DR3 = 4)

  // Scheduling.
  std::vector<int> isolated_cpus;   // /sys/devices/system/cpu/isolated
  std::vector<int> nohz_full_cpus;  // /sys/devices/system/cpu/nohz_full
  std::string cmdline_isolcpus;     // value of isolcpus= on /proc/cmdline, if any
  std::string cmdline_nohz_full;    // value of nohz_full= on /proc/cmdline, if any
  std::optional<LoadAverage> load;

  // Memory and layout.
  std::optional<int> randomize_va_space;  // ASLR: 0 off, 1 stack/mmap/vdso, 2 also brk
  std::string thp_enabled;  // transparent_hugepage/enabled, the [bracketed] choice
  std::uint64_t mem_total_kb = 0;   // /proc/meminfo MemTotal
  unsigned swap_devices = 0;        // lines after the header of /proc/swaps
  std::uint64_t swap_total_kb = 0;  // their sizes summed
  std::optional<int> swappiness;    // /proc/sys/vm/swappiness

  // Who is asking (/proc/self/status of the reading process).
  std::optional<unsigned> euid;
  bool perf_capable = false;  // CapEff holds CAP_PERFMON (38) or CAP_SYS_ADMIN (21):
                              // perf_event_paranoid does not apply

  bool operator==(const HostInfo&) const = default;
};

// Reads everything under `root` ("/" for the live host). CPUID is passed in so that
// fixture trees can describe a CPU other than the one running the test.
HostInfo read_host(const std::string& root = "/", const CpuidInfo& cpuid = read_cpuid());

// Parses a kernel CPU list ("0-3,8,10-11"; "" = none). nullopt when malformed.
std::optional<std::vector<int>> parse_cpu_list(std::string_view text);

// Formats a CPU list back into the kernel's compact form ({0,1,2,5} -> "0-2,5").
std::string format_cpu_list(const std::vector<int>& cpus);

// JSON conversion for the journal. from_json accepts objects written by older
// versions: a missing key keeps the default; a key of the wrong type throws
// nlohmann::json::exception (the caller, record/, reports the file and line).
void to_json(nlohmann::json& j, const CpuGovernor& g);
void from_json(const nlohmann::json& j, CpuGovernor& g);
void to_json(nlohmann::json& j, const LoadAverage& l);
void from_json(const nlohmann::json& j, LoadAverage& l);
void to_json(nlohmann::json& j, const CpuidInfo& c);
void from_json(const nlohmann::json& j, CpuidInfo& c);
void to_json(nlohmann::json& j, const HostInfo& h);
void from_json(const nlohmann::json& j, HostInfo& h);
// What from_json(HostInfo) would throw for, in words naming the field ("field
// host.cpuid.max_leaf has the wrong type"), or "" when `j` reads as a HostInfo.
std::string host_json_problem(const nlohmann::json& j);

}  // namespace obscheck
