#include "events/papi_presets.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <cstring>
#include <mutex>

#include "events/shared_libs.h"

namespace obscheck {
namespace {

PapiStatus init_papi() {
  PapiStatus s;
  const int rc = libpapi().library_init(PAPI_VER_CURRENT);
  if (rc != PAPI_VER_CURRENT) {
    s.init_error = rc > 0 ? "PAPI header and library versions differ" : libpapi().strerror(rc);
    return s;
  }
  s.initialized = true;
  const int n = libpapi().num_components();
  for (int i = 0; i < n; ++i) {
    const PAPI_component_info_t* c = libpapi().get_component_info(i);
    if (!c || std::strcmp(c->name, "perf_event") != 0) continue;
    s.counter_component = c->disabled == 0;
    s.disabled_reason = c->disabled ? c->disabled_reason : "";
    s.presets = c->num_preset_events;
    for (int p = 0; p < PAPI_PMU_MAX && c->pmu_names[p]; ++p) s.pmus.emplace_back(c->pmu_names[p]);
  }
  return s;
}

}  // namespace

const PapiStatus& papi_status() {
  static std::once_flag once;
  static PapiStatus status;
  std::call_once(once, [] { status = init_papi(); });
  return status;
}

std::optional<PapiPreset> papi_preset(std::string_view name) {
  if (!papi_status().initialized) return std::nullopt;
  std::string n(name);
  int code = 0;
  if (libpapi().event_name_to_code(n.c_str(), &code) != PAPI_OK || !(code & PAPI_PRESET_MASK))
    return std::nullopt;
  PAPI_event_info_t info;
  std::memset(&info, 0, sizeof info);
  if (libpapi().get_event_info(code, &info) != PAPI_OK) return std::nullopt;
  PapiPreset p;
  p.name = info.symbol;
  p.description = info.long_descr;
  p.derived = info.derived;
  for (unsigned i = 0; i < info.count && i < PAPI_MAX_INFO_TERMS; ++i) p.natives.emplace_back(info.name[i]);
  return p;
}

std::vector<std::string> papi_preset_names() {
  std::vector<std::string> out;
  if (!papi_status().initialized) return out;
  int code = PAPI_PRESET_MASK;
  if (libpapi().enum_event(&code, PAPI_ENUM_FIRST) != PAPI_OK) return out;
  do {
    char name[PAPI_MAX_STR_LEN];
    if (libpapi().event_code_to_name(code, name) == PAPI_OK) out.emplace_back(name);
  } while (libpapi().enum_event(&code, PAPI_ENUM_EVENTS) == PAPI_OK);
  return out;
}

std::string papi_unavailable_reason() { return papi_unavailable_reason(papi_status()); }

std::string papi_unavailable_reason(const PapiStatus& s) {
  if (!s.initialized) return fmt::format("PAPI did not initialise: {}", s.init_error);
  if (!s.counter_component)
    return s.disabled_reason.empty()
               ? "PAPI reports no counter component (no perf_event component)"
               : fmt::format("PAPI reports no counter component: perf_event is disabled ({})",
                             s.disabled_reason);
  return fmt::format("PAPI's perf_event component maps {} presets for PMUs [{}] "
                     "(its papi_events.csv has no preset table for this CPU)",
                     s.presets, fmt::join(s.pmus, ", "));
}

}  // namespace obscheck
