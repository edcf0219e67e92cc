// host/doctor: which of this host's properties add noise or bias to a measurement,
// how much that matters, and the exact command that removes it.
//
// Pure: takes a HostInfo, returns findings; reads nothing, changes nothing, prints
// nothing (cli/ and report/ lay the findings out).
#pragma once

#include "host/host_info.h"

#include <nlohmann/json.hpp>

#include <string>
#include <string_view>
#include <vector>

namespace obscheck {

// blocking: obscheck cannot measure on this host as it stands (doctor exits non-zero).
// warning:  measurements work but carry avoidable noise or bias; fix before trusting
//           small effects.
// info:     worth knowing; nothing needs changing.
enum class Severity { info, warning, blocking };

std::string_view to_string(Severity s);
// Throws Error(ErrorKind::io) for anything but "info", "warning", "blocking".
Severity severity_from_string(std::string_view s);

struct Finding {
  std::string id;  // stable, kebab-case ("cpu-governor"); scripts and tests key on it
  Severity severity = Severity::info;
  std::string what;  // the observed fact, with the value read ("governor is ondemand on cpu 0-3")
  std::string why;   // why it adds noise or bias, and which seed says so
  std::string fix;   // the exact command that removes it; empty when nothing needs doing
  bool operator==(const Finding&) const = default;
};

// Stable check ids (the vocabulary of Finding::id).
namespace finding_id {
inline constexpr std::string_view perf_events_missing = "perf-events-missing";
inline constexpr std::string_view perf_paranoid = "perf-paranoid";
inline constexpr std::string_view perf_paranoid_kernel = "perf-paranoid-kernel";
inline constexpr std::string_view no_hardware_pmu = "no-hardware-pmu";
inline constexpr std::string_view hybrid_cpu = "hybrid-cpu";
inline constexpr std::string_view counter_slots = "counter-slots";
inline constexpr std::string_view nmi_watchdog = "nmi-watchdog";
inline constexpr std::string_view uprobes_need_privilege = "uprobes-need-privilege";
inline constexpr std::string_view no_breakpoints = "no-breakpoints";
inline constexpr std::string_view virtual_machine = "virtual-machine";
inline constexpr std::string_view cpu_governor = "cpu-governor";
inline constexpr std::string_view no_cpufreq = "no-cpufreq";
inline constexpr std::string_view boost = "boost";
inline constexpr std::string_view smt = "smt";
inline constexpr std::string_view no_isolated_cpus = "no-isolated-cpus";
inline constexpr std::string_view isolated_cpus = "isolated-cpus";
inline constexpr std::string_view load = "load";
inline constexpr std::string_view thp = "thp";
inline constexpr std::string_view swap = "swap";
inline constexpr std::string_view aslr = "aslr";
inline constexpr std::string_view clocksource = "clocksource";
}  // namespace finding_id

// Every check that applies to `host`, most severe first; within one severity in the
// order of the ids above. A property that could not be read produces no finding
// (an unreadable governor is not a wrong governor).
std::vector<Finding> doctor_checks(const HostInfo& host);

// True when any finding is blocking: `obscheck doctor` then exits with
// ExitCode::findings.
bool has_blocking(const std::vector<Finding>& findings);

void to_json(nlohmann::json& j, const Finding& f);
void from_json(const nlohmann::json& j, Finding& f);  // unknown severity: Error(io)

}  // namespace obscheck
