// report/: `obscheck doctor` and the host manifest that heads every report.
#pragma once

#include <string>
#include <vector>

#include "host/doctor.h"
#include "host/host_info.h"

namespace obscheck {

std::string doctor_text(const HostInfo& host, const std::vector<Finding>& findings, bool color);
std::string doctor_json(const HostInfo& host, const std::vector<Finding>& findings);
// Two or three lines: kernel, CPU, VM, PMU, counters, ASLR/governor — for report headers.
std::string host_summary_text(const HostInfo& host);

}  // namespace obscheck
