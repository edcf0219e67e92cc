#include "events/libpfm_events.h"

#include <fmt/format.h>

#include <cstdlib>
#include <cstring>
#include <mutex>

#include "events/shared_libs.h"
#include "util/error.h"

namespace obscheck {
namespace {

void ensure_initialized() {
  static std::once_flag once;
  static int rc = PFM_SUCCESS;
  std::call_once(once, [] { rc = libpfm().initialize(); });
  if (rc != PFM_SUCCESS)
    throw Error(ErrorKind::host, fmt::format("libpfm4 cannot initialise: {}", libpfm().strerror(rc)));
}

std::optional<pfm_pmu_info_t> pmu_info(pfm_pmu_t pmu) {
  pfm_pmu_info_t info;
  std::memset(&info, 0, sizeof info);
  info.size = sizeof info;
  if (libpfm().get_pmu_info(pmu, &info) != PFM_SUCCESS) return std::nullopt;
  return info;
}

}  // namespace

std::optional<PfmEncoding> pfm_encode(std::string_view spec, int* pfm_err) {
  ensure_initialized();
  PfmEncoding out;
  out.attr.size = sizeof(out.attr);
  char* fstr = nullptr;
  pfm_perf_encode_arg_t arg;
  std::memset(&arg, 0, sizeof arg);
  arg.attr = &out.attr;
  arg.fstr = &fstr;
  arg.size = sizeof arg;
  const std::string s(spec);
  const int rc = libpfm().get_os_event_encoding(s.c_str(), PFM_PLM3, PFM_OS_PERF_EVENT_EXT, &arg);
  if (pfm_err) *pfm_err = rc;
  if (rc != PFM_SUCCESS) {
    std::free(fstr);
    return std::nullopt;
  }
  out.attr.size = sizeof(out.attr);
  if (fstr) {
    out.fqname = fstr;
    std::free(fstr);
  }
  pfm_event_info_t ev;
  std::memset(&ev, 0, sizeof ev);
  ev.size = sizeof ev;
  if (libpfm().get_event_info(arg.idx, PFM_OS_NONE, &ev) == PFM_SUCCESS) {
    if (auto info = pmu_info(ev.pmu)) {
      out.pmu = info->name;
      out.hardware = info->type == PFM_PMU_TYPE_CORE;
    }
  }
  return out;
}

std::string pfm_error_text(int pfm_err) { return libpfm().strerror(pfm_err); }

std::vector<std::string> pfm_active_pmus() {
  ensure_initialized();
  std::vector<std::string> out;
  for (int p = PFM_PMU_NONE; p < PFM_PMU_MAX; ++p) {
    auto info = pmu_info(static_cast<pfm_pmu_t>(p));
    if (info && info->is_present) out.emplace_back(info->name);
  }
  return out;
}

std::vector<PfmEvent> pfm_active_events() {
  ensure_initialized();
  std::vector<PfmEvent> out;
  for (int p = PFM_PMU_NONE; p < PFM_PMU_MAX; ++p) {
    auto info = pmu_info(static_cast<pfm_pmu_t>(p));
    if (!info || !info->is_present) continue;
    for (int i = info->first_event; i != -1; i = libpfm().get_event_next(i)) {
      pfm_event_info_t ev;
      std::memset(&ev, 0, sizeof ev);
      ev.size = sizeof ev;
      if (libpfm().get_event_info(i, PFM_OS_PERF_EVENT_EXT, &ev) != PFM_SUCCESS) continue;
      out.push_back({fmt::format("{}::{}", info->name, ev.name), ev.desc ? ev.desc : "", info->name,
                     info->type == PFM_PMU_TYPE_CORE});
    }
  }
  return out;
}

}  // namespace obscheck
