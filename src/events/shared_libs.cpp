#include "events/shared_libs.h"

#include <dlfcn.h>
#include <fmt/format.h>

#include <mutex>

#include "util/error.h"

// CMake passes the sonames of the libraries it found (their ELF SONAME) and the Debian
// packages that ship them; see the top-level CMakeLists.txt.
#if !defined(OBSCHECK_LIBPFM_SONAME) || !defined(OBSCHECK_LIBPFM_PACKAGE) || \
    !defined(OBSCHECK_LIBPAPI_SONAME) || !defined(OBSCHECK_LIBPAPI_PACKAGE)
#error "the build defines OBSCHECK_LIBPFM_SONAME/_PACKAGE and OBSCHECK_LIBPAPI_SONAME/_PACKAGE"
#endif

namespace obscheck {

const SharedLibName kLibpfmName{"libpfm4", OBSCHECK_LIBPFM_SONAME, OBSCHECK_LIBPFM_PACKAGE};
const SharedLibName kLibpapiName{"PAPI", OBSCHECK_LIBPAPI_SONAME, OBSCHECK_LIBPAPI_PACKAGE};

namespace {

// One dlopen and the dlsyms that fill a table from it. Closes the library again if
// any step fails; keep() leaves it loaded for good, as the table's pointers need.
class Loader {
 public:
  explicit Loader(const SharedLibName& name)
      : name_(name), handle_(dlopen(name.soname, RTLD_NOW | RTLD_LOCAL)) {
    if (!handle_) fail(fmt::format("{}: cannot be opened", name.soname));
  }
  ~Loader() {
    if (handle_) dlclose(handle_);
  }
  Loader(const Loader&) = delete;
  Loader& operator=(const Loader&) = delete;

  template <class Fn>
  void bind(Fn& fn, const char* symbol) {
    dlerror();  // clear, so a failure below reports this lookup
    void* p = dlsym(handle_, symbol);
    if (!p) fail(fmt::format("{}: undefined symbol: {}", name_.soname, symbol));
    fn = reinterpret_cast<Fn>(p);
  }

  void keep() { handle_ = nullptr; }

 private:
  [[noreturn]] void fail(const std::string& fallback) const {
    const char* why = dlerror();
    throw Error(ErrorKind::host, fmt::format("cannot load {}: {}", name_.what, why ? why : fallback),
                fmt::format("apt-get install {}", name_.package));
  }

  const SharedLibName& name_;
  void* handle_;
};

}  // namespace

Libpfm load_libpfm(const SharedLibName& name) {
  Loader lib(name);
  Libpfm t;
  lib.bind(t.initialize, "pfm_initialize");
  lib.bind(t.strerror, "pfm_strerror");
  lib.bind(t.get_pmu_info, "pfm_get_pmu_info");
  lib.bind(t.get_event_next, "pfm_get_event_next");
  lib.bind(t.get_event_info, "pfm_get_event_info");
  lib.bind(t.get_os_event_encoding, "pfm_get_os_event_encoding");
  lib.keep();
  return t;
}

Libpapi load_libpapi(const SharedLibName& name) {
  Loader lib(name);
  Libpapi t;
  lib.bind(t.library_init, "PAPI_library_init");
  lib.bind(t.strerror, "PAPI_strerror");
  lib.bind(t.num_components, "PAPI_num_components");
  lib.bind(t.get_component_info, "PAPI_get_component_info");
  lib.bind(t.enum_event, "PAPI_enum_event");
  lib.bind(t.get_event_info, "PAPI_get_event_info");
  lib.bind(t.event_name_to_code, "PAPI_event_name_to_code");
  lib.bind(t.event_code_to_name, "PAPI_event_code_to_name");
  lib.keep();
  return t;
}

// std::call_once: a load that throws leaves the flag unset, so the next call retries.
const Libpfm& libpfm() {
  static std::once_flag once;
  static Libpfm table;
  std::call_once(once, [] { table = load_libpfm(kLibpfmName); });
  return table;
}

const Libpapi& libpapi() {
  static std::once_flag once;
  static Libpapi table;
  std::call_once(once, [] { table = load_libpapi(kLibpapiName); });
  return table;
}

}  // namespace obscheck
