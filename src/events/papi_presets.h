// events/: PAPI presets (PAPI_TOT_CYC, ...) through PAPI's own preset table. PAPI maps
// a preset to native events of its perf_event component, named as libpfm4 names
// them; obscheck encodes those natives with libpfm4 and opens them itself.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace obscheck {

struct PapiStatus {
  bool initialized = false;
  std::string init_error;              // PAPI_library_init's complaint, when !initialized
  bool counter_component = false;      // perf_event component present and enabled
  std::string disabled_reason;         // its disabled_reason when it is disabled
  int presets = 0;                     // presets PAPI could map on this host
  std::vector<std::string> pmus;       // PMUs the component supports ("perf", "icl", ...)
};

// Loads PAPI (shared_libs.h) and initialises it once per process (PAPI_library_init),
// and reports its state. Throws Error(host) when the library cannot be loaded, with the
// package to install as the hint; so do the functions below, which call it.
const PapiStatus& papi_status();

struct PapiPreset {
  std::string name;
  std::string description;
  std::string derived;               // "NOT_DERIVED", "DERIVED_ADD", ...
  std::vector<std::string> natives;  // empty when PAPI has no mapping on this host
};

// nullopt if PAPI does not know the name (or PAPI did not initialise).
std::optional<PapiPreset> papi_preset(std::string_view name);

// All preset names PAPI defines, mapped here or not.
std::vector<std::string> papi_preset_names();

// One line: why PAPI has no mapping for presets on this host (from papi_status()).
std::string papi_unavailable_reason();
// The same line for a given state, first cause first: PAPI did not initialise; it has
// no enabled counter component (naming PAPI's own disabled reason); or the component
// maps no preset for this CPU.
std::string papi_unavailable_reason(const PapiStatus& status);

}  // namespace obscheck
