// observe/: the profiles profile fidelity compares (analysis/fidelity.h) — a sampling
// profiler's samples per function at a rate, and a reference that does not sample:
// cachegrind's instructions per function.
//
//   sampled:   perf record -e EVENT -F HZ -o DIR/perf.data -q -- PROG ARGS
//              perf script -i DIR/perf.data -F ip,sym     (one line per sample)
//   reference: valgrind --tool=cachegrind --cache-sim=no --branch-sim=no
//                       --cachegrind-out-file=DIR/cachegrind.out -q -- PROG ARGS
//              (its fn= records summed per function name, as cg_annotate does)
//
// Each tool runs as a child of its own (posix_spawnp, PATH lookup as a shell would),
// stdin from /dev/null, the target's output to /dev/null, the tool's own messages to a
// file in a fresh private directory (mkdtemp, mode 0700) that is removed afterwards.
// A tool that cannot run, or exits non-zero, is an Error(host) with the first lines of
// what it said. Needs perf (linux-perf) and valgrind; on a host without a hardware PMU
// the event must be a software one (cpu-clock, task-clock).
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <string_view>
#include <vector>

namespace obscheck {

// A count (samples or instructions) per function name.
using ProfileCounts = std::map<std::string, double>;

// Samples per symbol from `perf script -F ip,sym` output: each line an address and a
// symbol ("  55d0b2f4a139 work_major"); a kernel address (the upper half of the address
// space) gets the prefix "[k] ", a line without a symbol counts as "[unknown]". Blank
// lines and lines that do not start with a hexadecimal address are skipped.
ProfileCounts parse_perf_script(std::string_view text);

// Instructions (the first event) per function from a cachegrind output file: "fn="
// starts a function, each following "LINE COUNT..." line adds COUNT; the same name in
// several files is summed; cachegrind's "???" (no symbol) is "[unknown]", as perf
// names it.
ProfileCounts parse_cachegrind_functions(std::string_view text);

struct SampledProfile {
  std::uint64_t hz = 0;
  std::string event;
  ProfileCounts samples;  // per symbol
};

// `target`: PROG and ARGS. Throws Error(host) when perf cannot run or record.
SampledProfile perf_record_profile(const std::vector<std::string>& target, std::uint64_t hz, const std::string& event);

// Throws Error(host) when valgrind cannot run the target.
ProfileCounts cachegrind_profile(const std::vector<std::string>& target);

}  // namespace obscheck
