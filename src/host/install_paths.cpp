#include "host/install_paths.h"

#include <unistd.h>

#include <filesystem>

#include "util/error.h"

namespace obscheck {

std::string self_dir() {
  std::error_code ec;
  const auto p = std::filesystem::read_symlink("/proc/self/exe", ec);
  return ec ? std::string(".") : p.parent_path().string();
}

bool running_from_build_tree() { return access((self_dir() + "/CMakeCache.txt").c_str(), R_OK) == 0; }

std::vector<std::string> probe_library_candidates() {
  const std::string dir = self_dir();
  std::vector<std::string> c{dir + "/probes/libobsprobe.so", dir + "/../lib/obscheck/libobsprobe.so"};
  // OBSCHECK_PROBE_LIB_REL: the configured libdir relative to the configured bindir.
  const std::string configured_rel = dir + "/" OBSCHECK_PROBE_LIB_REL;
  if (configured_rel != c[1]) c.push_back(configured_rel);
  c.push_back(OBSCHECK_PROBE_LIB);
  return c;
}

std::string probe_library_path() {
  std::string looked;
  for (const std::string& p : probe_library_candidates()) {
    if (access(p.c_str(), R_OK) == 0) return p;
    looked += (looked.empty() ? "" : ", ") + p;
  }
  throw Error(ErrorKind::host, "the in-process library libobsprobe.so is missing (looked in " + looked + ")",
              running_from_build_tree()
                  ? "build it: cmake --build <build dir> --target obsprobe; or use --mode external"
                  : "reinstall obscheck (the library belongs in lib/obscheck/ of its prefix), or use --mode external");
}

std::string bundled_workload(const std::string& name) {
  const std::string dir = self_dir();
  const std::string built = dir + "/experiments/workloads/" + name;
  const std::string installed = dir + "/../libexec/obscheck/" + name;
  for (const std::string& candidate : {built, installed})
    if (access(candidate.c_str(), X_OK) == 0) return candidate;
  throw Error(ErrorKind::host,
              "the bundled workload '" + name + "' is missing (looked in " + built + " and " + installed + ")",
              running_from_build_tree() ? "build it: cmake --build <build dir> --target obscheck_workloads"
                                        : "reinstall obscheck (its workloads belong in libexec/obscheck/)");
}

std::string exec_shim_path() {
  const std::string dir = self_dir();
  const std::string built = dir + "/probes/obscheck-exec";
  const std::string installed = dir + "/../libexec/obscheck/obscheck-exec";
  for (const std::string& candidate : {built, installed})
    if (access(candidate.c_str(), X_OK) == 0) return candidate;
  throw Error(ErrorKind::host, "obscheck-exec, which starts the target under a profiler command, is missing (looked in " +
                                   built + " and " + installed + ")",
              running_from_build_tree() ? "build it: cmake --build <build dir> --target obscheck_exec"
                                        : "reinstall obscheck (it belongs in libexec/obscheck/)");
}

}  // namespace obscheck
