// host/: where the files obscheck needs beside its own binary are, in a build tree and
// in an installed (and possibly moved) prefix. Every lookup starts from the running
// executable (/proc/self/exe), never from the current directory, so the tool works
// from any working directory and after its prefix is moved.
#pragma once

#include <string>
#include <vector>

namespace obscheck {

// The directory of the running executable ("." when /proc/self/exe cannot be read).
std::string self_dir();

// Whether the running binary sits in a build tree (a CMakeCache.txt beside it)
// rather than in an installed prefix: the hints for a missing file differ.
bool running_from_build_tree();

// The candidates, in order, for libobsprobe.so: the build tree's probes/, the
// prefix's library directory relative to bin/ (../lib/obscheck, or the libdir the
// build was configured with, e.g. ../lib/x86_64-linux-gnu/obscheck), and last the
// configured absolute path.
std::vector<std::string> probe_library_candidates();

// The first readable candidate; Error(host) naming every place looked in, with the
// hint that fits a build tree or an installed tool.
std::string probe_library_path();

// A bundled workload by name: experiments/workloads/NAME in a build tree, or
// ../libexec/obscheck/NAME in an installed prefix. Error(host) when neither exists.
std::string bundled_workload(const std::string& name);

// obscheck-exec (probes/exec/): the target's own cork under a profiler command, beside
// the driver in a build tree or in libexec/obscheck when installed. Throws Error(host)
// naming where it looked.
std::string exec_shim_path();

}  // namespace obscheck
