// events/: libpfm4 and PAPI, loaded on first use (dlopen) rather than linked. Linked,
// the dynamic loader relocates them at every start of the driver (libpfm4's event
// tables alone are 41,000 relocations, about 1 ms), even for a check that counts only
// software events and never calls into either. Module-internal: libpfm_events.cpp and
// papi_presets.cpp call through these tables; nothing outside events/ should.
//
// The real headers stay included for the function types and the constants
// (PFM_SUCCESS, PAPI_VER_CURRENT, ...); only the calls go through the pointers.
#pragma once

// linux/perf_event.h first: perfmon/perf_event.h then uses the kernel's definitions.
#include <linux/perf_event.h>
#include <papi.h>
#include <perfmon/pfmlib_perf_event.h>

#include <string_view>

namespace obscheck {

// The libpfm4 functions obscheck calls, named as in libpfm4 without the pfm_ prefix.
struct Libpfm {
  decltype(&::pfm_initialize) initialize = nullptr;
  decltype(&::pfm_strerror) strerror = nullptr;
  decltype(&::pfm_get_pmu_info) get_pmu_info = nullptr;
  decltype(&::pfm_get_event_next) get_event_next = nullptr;
  decltype(&::pfm_get_event_info) get_event_info = nullptr;
  decltype(&::pfm_get_os_event_encoding) get_os_event_encoding = nullptr;
};

// The PAPI functions obscheck calls, named as in PAPI without the PAPI_ prefix.
struct Libpapi {
  decltype(&::PAPI_library_init) library_init = nullptr;
  decltype(&::PAPI_strerror) strerror = nullptr;
  decltype(&::PAPI_num_components) num_components = nullptr;
  decltype(&::PAPI_get_component_info) get_component_info = nullptr;
  decltype(&::PAPI_enum_event) enum_event = nullptr;
  decltype(&::PAPI_get_event_info) get_event_info = nullptr;
  decltype(&::PAPI_event_name_to_code) event_name_to_code = nullptr;
  decltype(&::PAPI_event_code_to_name) event_code_to_name = nullptr;
};

// Which shared object to load, and what to tell the user when it is missing.
struct SharedLibName {
  std::string_view what;  // how messages name it: "libpfm4", "PAPI"
  const char* soname;     // what dlopen is given: "libpfm.so.4"
  const char* package;    // the Debian package that installs it: "libpfm4"
};

// The sonames of the libraries the build found (taken from their ELF SONAME at
// configure time), and the Debian packages that ship them.
extern const SharedLibName kLibpfmName;
extern const SharedLibName kLibpapiName;

// The process's libpfm4 / PAPI: loaded by the first call (thread-safe, once), then
// the same table for the life of the process (the library is never unloaded).
// Throws Error(host, "cannot load <what>: <dlerror>", "apt-get install <package>")
// when the library or one of the functions is missing; a later call tries again.
// Loading does not initialise: pfm_initialize / PAPI_library_init stay the callers'.
const Libpfm& libpfm();
const Libpapi& libpapi();

// The loaders behind libpfm() / libpapi(), for any soname: each call dlopens
// (RTLD_NOW | RTLD_LOCAL) and resolves every function, with the errors above. A
// successful load is never closed. libpfm()/libpapi() are what the module calls.
Libpfm load_libpfm(const SharedLibName& name);
Libpapi load_libpapi(const SharedLibName& name);

}  // namespace obscheck
