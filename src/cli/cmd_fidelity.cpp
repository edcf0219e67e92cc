// obscheck fidelity: is a sampling profiler's profile right, at each rate? perf record
// at each --sample-freq, cachegrind once for the reference, then analysis/fidelity.h.
#include <fmt/core.h>

#include <cstdint>
#include <string>
#include <vector>

#include "analysis/fidelity.h"
#include "cli/commands.h"
#include "launch/launcher.h"
#include "observe/profile.h"
#include "report/fidelity_report.h"
#include "util/error.h"

namespace obscheck {
namespace {

// Two rates a profile is commonly taken at: perf's suggestion for a low-overhead
// profile (99 Hz, off the timer's multiples) and ten times that.
constexpr const char* kDefaultFrequencies = "99,999";
// Any host has it; a hardware event needs a PMU (this tool's own sampler chooses the
// same way, cli/options.cpp --sample-event).
constexpr const char* kDefaultEvent = "cpu-clock";

std::vector<std::uint64_t> frequencies(const Options& o) {
  const std::string list = o.sample_freq.empty() ? kDefaultFrequencies : o.sample_freq;
  std::vector<std::uint64_t> out;
  std::size_t at = 0;
  while (at <= list.size()) {
    const std::size_t comma = std::min(list.find(',', at), list.size());
    const std::string word = list.substr(at, comma - at);
    if (!word.empty()) out.push_back(std::stoull(word));  // digits only: checked by the parser
    at = comma + 1;
  }
  for (std::uint64_t hz : out)
    if (hz == 0)
      throw Error(ErrorKind::usage, "obscheck fidelity: --sample-freq 0 takes no profile",
                  "give the rates to compare, e.g. --sample-freq 99,999,4000");
  return out;
}

void progress(const Options& o, const std::string& what) {
  if (o.progress) fmt::print(stderr, "obscheck fidelity: {}\n", what);
}

}  // namespace

int cmd_fidelity(const Options& o) {
  FidelityRun run;
  // The program as the check would run it: resolved on PATH, refused (exit 3) when it
  // is missing or not executable, before any tool starts.
  run.target = o.target;
  run.target.front() = resolve_target(o.target.front());
  run.event = o.sample_event.empty() ? kDefaultEvent : o.sample_event;
  run.hz = frequencies(o);

  progress(o, "the reference: valgrind --tool=cachegrind (20-100 times slower than the program)");
  const ProfileCounts reference = cachegrind_profile(run.target);
  std::vector<std::pair<std::string, FunctionCounts>> profiles;
  for (std::uint64_t hz : run.hz) {
    progress(o, fmt::format("perf record -e {} -F {}", run.event, hz));
    profiles.emplace_back(fmt::format("{} Hz", hz), perf_record_profile(run.target, hz, run.event).samples);
  }
  FidelityOptions fo;
  fo.tolerance = o.tolerance;
  fo.top = static_cast<std::size_t>(o.top);
  fo.confidence = o.confidence;
  const FidelityResult r = assess_fidelity(reference, profiles, fo);
  emit(o, o.json ? fidelity_json(run, r) : fidelity_text(run, r));
  return r.agreement == Agreement::differs ? static_cast<int>(ExitCode::findings) : 0;
}

}  // namespace obscheck
