// events/: libpfm4, for event names perf does not know (INST_RETIRED:ANY_P, skl::...)
// and for the native events PAPI presets map to. Loaded (shared_libs.h) and initialised
// once per process, on first use; LIBPFM_FORCE_PMU (read by libpfm4 at that moment)
// picks a PMU model. Every function here throws Error(host) when libpfm4 cannot be
// loaded, with the package to install as the hint.
#pragma once

#include <linux/perf_event.h>

#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace obscheck {

struct PfmEncoding {
  perf_event_attr attr{};  // as pfm_get_os_event_encoding(PFM_PLM3, PFM_OS_PERF_EVENT_EXT) fills it
  std::string fqname;      // fully qualified: "skl::INST_RETIRED:ANY_P:e=0:...:u=1:k=0..."
  std::string pmu;         // libpfm4 PMU name: "skl", "perf", "icl", ...
  bool hardware = false;   // a core PMU event (PFM_PMU_TYPE_CORE), not a perf:: generic one
};

// Encodes a libpfm4 event string, user level only (PFM_PLM3: libpfm4 sets
// exclude_kernel). nullopt when libpfm4 cannot; then *pfm_err holds its error code.
// Throws Error(host) if libpfm4 itself cannot be loaded or initialised.
std::optional<PfmEncoding> pfm_encode(std::string_view spec, int* pfm_err = nullptr);

std::string pfm_error_text(int pfm_err);

struct PfmEvent {
  std::string name;  // "pmu::EVENT", what to type
  std::string description;
  std::string pmu;
  bool hardware = false;
};

// Every event of every PMU libpfm4 considers present on this host (or forced).
std::vector<PfmEvent> pfm_active_events();
std::vector<std::string> pfm_active_pmus();

}  // namespace obscheck
