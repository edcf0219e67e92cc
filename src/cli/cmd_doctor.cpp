#include "cli/commands.h"
#include "host/doctor.h"
#include "host/host_info.h"
#include "report/doctor_report.h"
#include "util/error.h"

namespace obscheck {

int cmd_doctor(const Options& o) {
  const HostInfo host = read_host();
  const auto findings = doctor_checks(host);
  emit(o, o.json ? doctor_json(host, findings) : doctor_text(host, findings, o.color));
  return has_blocking(findings) ? static_cast<int>(ExitCode::findings) : 0;
}

}  // namespace obscheck
