#include "report/doctor_report.h"

#include <fmt/core.h>

namespace obscheck {

std::string host_summary_text(const HostInfo& h) {
  std::string pmu = h.core_pmus.empty() ? "no hardware PMU"
                                        : fmt::format("PMU {} ({} programmable + {} fixed counters)",
                                                      h.pmu_name.empty() ? h.core_pmus.front() : h.pmu_name,
                                                      h.gp_counters, h.fixed_counters);
  std::string out = fmt::format("  host: {}, Linux {} {}, {} online CPU{}\n", h.hostname, h.kernel_release, h.arch,
                                h.online_cpus.size(), h.online_cpus.size() == 1 ? "" : "s");
  out += fmt::format("  cpu:  {}{}; {}\n", h.cpu_model,
                     h.virtualized ? fmt::format(" (virtual machine: {})", h.hypervisor.empty() ? "unknown" : h.hypervisor)
                                   : "",
                     pmu);
  return out;
}

std::string doctor_text(const HostInfo& host, const std::vector<Finding>& findings, bool color) {
  const char* red = color ? "\x1b[31m" : "";
  const char* yellow = color ? "\x1b[33m" : "";
  const char* dim = color ? "\x1b[2m" : "";
  const char* reset = color ? "\x1b[0m" : "";
  std::string out = "obscheck doctor: noise sources on this host\n" + host_summary_text(host) + "\n";
  std::size_t counts[3] = {0, 0, 0};
  for (const Finding& f : findings) {
    ++counts[static_cast<int>(f.severity)];
    const char* c = f.severity == Severity::blocking ? red : f.severity == Severity::warning ? yellow : dim;
    out += fmt::format("  {}{:<8}{} {:<20} {}\n", c, to_string(f.severity), reset, f.id, f.what);
    if (!f.why.empty()) out += fmt::format("  {:<8} {:<20} {}why:{} {}\n", "", "", dim, reset, f.why);
    if (!f.fix.empty()) out += fmt::format("  {:<8} {:<20} {}fix:{} {}\n", "", "", dim, reset, f.fix);
  }
  out += fmt::format("\n  {} blocking, {} warning{}, {} info\n", counts[2], counts[1], counts[1] == 1 ? "" : "s",
                     counts[0]);
  return out;
}

std::string doctor_json(const HostInfo& host, const std::vector<Finding>& findings) {
  nlohmann::json j;
  j["host"] = host;
  j["findings"] = findings;
  j["blocking"] = has_blocking(findings);
  return j.dump(2) + "\n";
}

}  // namespace obscheck
