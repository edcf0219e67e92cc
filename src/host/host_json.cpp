// HostInfo <-> JSON, for the journal's manifest line and `obscheck report`.
#include "host/host_info.h"

#include <fmt/core.h>

#include <string>
#include <string_view>

namespace obscheck {

namespace {

template <typename T>
void put(nlohmann::json& j, const char* key, const std::optional<T>& v) {
  j[key] = v ? nlohmann::json(*v) : nlohmann::json(nullptr);
}

template <typename T>
void put(nlohmann::json& j, const char* key, const T& v) {
  j[key] = v;
}

template <typename T>
void get(const nlohmann::json& j, const char* key, std::optional<T>& v) {
  auto it = j.find(key);
  if (it == j.end() || it->is_null()) {
    v.reset();
    return;
  }
  v = it->template get<T>();
}

template <typename T>
void get(const nlohmann::json& j, const char* key, T& v) {
  if (auto it = j.find(key); it != j.end()) it->get_to(v);
}

}  // namespace

void to_json(nlohmann::json& j, const CpuGovernor& g) {
  j = nlohmann::json{{"cpu", g.cpu}, {"governor", g.governor}};
}
void from_json(const nlohmann::json& j, CpuGovernor& g) {
  get(j, "cpu", g.cpu);
  get(j, "governor", g.governor);
}
void to_json(nlohmann::json& j, const LoadAverage& l) {
  j = nlohmann::json{{"1min", l.one}, {"5min", l.five}, {"15min", l.fifteen}};
}
void from_json(const nlohmann::json& j, LoadAverage& l) {
  get(j, "1min", l.one);
  get(j, "5min", l.five);
  get(j, "15min", l.fifteen);
}

// One list of fields for both directions, so a field cannot be written and not read.
#define OBSCHECK_CPUID_FIELDS(F)                                                         \
  F(available) F(vendor) F(max_leaf) F(hypervisor_bit) F(hypervisor_signature)           \
  F(perfmon_version) F(perfmon_gp_counters) F(perfmon_gp_width) F(perfmon_fixed_counters) \
  F(amd_perfctr_ext_core) F(amd_perfmon_v2) F(amd_core_counters)

#define OBSCHECK_HOST_FIELDS(F)                                                            \
  F(hostname) F(kernel_release) F(kernel_version) F(arch) F(cpu_vendor) F(cpu_model)       \
  F(present_cpus) F(online_cpus) F(smt_active) F(smt_control) F(cpufreq_driver)            \
  F(governors) F(boost) F(boost_control) F(clocksource) F(available_clocksources)          \
  F(virtualized) F(hypervisor) F(hypervisor_evidence) F(perf_events) F(perf_event_paranoid) \
  F(nmi_watchdog) F(pmus) F(core_pmus) F(pmu_name) F(cpuid) F(gp_counters)                  \
  F(fixed_counters) F(counters_source) F(breakpoint_slots) F(isolated_cpus)                \
  F(nohz_full_cpus) F(cmdline_isolcpus) F(cmdline_nohz_full) F(load)                        \
  F(randomize_va_space) F(thp_enabled) F(mem_total_kb) F(swap_devices) F(swap_total_kb)    \
  F(swappiness) F(euid) F(perf_capable)

void to_json(nlohmann::json& j, const CpuidInfo& c) {
  j = nlohmann::json::object();
#define F(name) put(j, #name, c.name);
  OBSCHECK_CPUID_FIELDS(F)
#undef F
}

void from_json(const nlohmann::json& j, CpuidInfo& c) {
  c = CpuidInfo{};
#define F(name) get(j, #name, c.name);
  OBSCHECK_CPUID_FIELDS(F)
#undef F
}

void to_json(nlohmann::json& j, const HostInfo& h) {
  j = nlohmann::json::object();
#define F(name) put(j, #name, h.name);
  OBSCHECK_HOST_FIELDS(F)
#undef F
}

void from_json(const nlohmann::json& j, HostInfo& h) {
  h = HostInfo{};
#define F(name) get(j, #name, h.name);
  OBSCHECK_HOST_FIELDS(F)
#undef F
}

std::string host_json_problem(const nlohmann::json& j) {
  if (!j.is_object()) return "field host is not an object";
  const auto wrong = [](const std::string& path) { return fmt::format("field {} has the wrong type", path); };
  HostInfo h;
  CpuidInfo c;
#define F(name)                                \
  try {                                        \
    get(j, #name, h.name);                     \
  } catch (const nlohmann::json::exception&) { \
    if (std::string_view(#name) != "cpuid") return wrong("host." #name); \
  }
  OBSCHECK_HOST_FIELDS(F)
#undef F
  const auto cpuid = j.find("cpuid");
  if (cpuid == j.end() || cpuid->is_null()) return "";
  if (!cpuid->is_object()) return wrong("host.cpuid");
#define F(name)                                \
  try {                                        \
    get(*cpuid, #name, c.name);                \
  } catch (const nlohmann::json::exception&) { \
    return wrong("host.cpuid." #name);         \
  }
  OBSCHECK_CPUID_FIELDS(F)
#undef F
  return "";
}

}  // namespace obscheck
