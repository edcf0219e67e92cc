// observe/: the profiles profile fidelity compares (analysis/fidelity.h): a sampling
// profiler's samples per function, one run of the program each.
//
//   the target: started corked (launch/launcher.h) as every measuring command starts
//               it: its own process group, killed when obscheck dies (so also under
//               kill -9), --run-as's user taken on at exec, its output discarded;
//   record:     perf record -e EVENT -F HZ -p PID -o DIR/perf.data -q -D -1
//                           --control fd:3,4 -B -N --no-bpf-event
//               attached to the corked target with its events disabled; obscheck
//               sends "enable" and waits for perf's "ack" before it lets the target
//               exec, so every sample is the target's, from its first instruction;
//               perf ends when the target does. perf joins the target's process group,
//               so the group's kill (Ctrl-C, obscheck's death) ends it too;
//   read back:  perf script -i DIR/perf.data -F ip,sym   (one line per sample)
//
// perf runs with obscheck's privileges (the observer keeps them, as under the check);
// only the target takes on --run-as. Its files are in DIR, the caller's private
// directory (util/temp_dir.h), and removed as each profile is read. A tool that cannot
// run, or fails, is an Error(host) with the first lines of what it said.
#pragma once

#include <sys/types.h>

#include <cstdint>
#include <functional>
#include <map>
#include <string>
#include <string_view>
#include <vector>

#include "launch/launcher.h"

namespace obscheck {

// A count (samples) per function name.
using ProfileCounts = std::map<std::string, double>;

// Samples per symbol from `perf script -F ip,sym` output: each line an address and a
// symbol ("  55d0b2f4a139 work_major"); a kernel address (the upper half of the address
// space) gets the prefix "[k] ", a line without a symbol counts as "[unknown]". Blank
// lines and lines that do not start with a hexadecimal address are skipped.
ProfileCounts parse_perf_script(std::string_view text);

struct SampledProfile {
  std::uint64_t hz = 0;
  std::string event;
  ProfileCounts samples;  // per symbol
};

// One run of `target` sampled at `hz` on `event`, its files in `dir` (a private
// directory). `started` hears the process group of the target and perf as soon as it
// exists (for a Ctrl-C handler to kill). Throws Error(host) when perf cannot run or
// record, Error(target) when the target cannot be executed, Error(target_failed) when
// it exits non-zero or is killed.
SampledProfile perf_record_profile(const LaunchSpec& target, std::uint64_t hz, const std::string& event,
                                   const std::string& dir, const std::function<void(pid_t)>& started);

}  // namespace obscheck
