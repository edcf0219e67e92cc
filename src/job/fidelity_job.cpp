#include "job/fidelity_job.h"

#include <fmt/core.h>

#include <algorithm>
#include <cstdint>

#include "observe/profile.h"
#include "launch/launcher.h"
#include "util/error.h"

namespace obscheck {
namespace {

// Two rates a profile is commonly taken at: perf's suggestion for a low-overhead
// profile (99 Hz, off the timer's multiples) and ten times that.
constexpr const char* kDefaultFrequencies = "99,999";
// Any host has it; a hardware event needs a PMU (this tool's own sampler chooses the
// same way, job/check_setup.cpp sampling_levels).
constexpr const char* kDefaultEvent = "cpu-clock";

std::vector<std::uint64_t> frequencies(const std::string& given) {
  const std::string list = given.empty() ? kDefaultFrequencies : given;
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

}  // namespace

FidelityOutcome run_fidelity(const FidelityRequest& r, const std::function<void(const std::string&)>& progress) {
  FidelityOutcome out;
  FidelityRun& run = out.run;
  // The program as the check would run it: resolved on PATH, refused (exit 3) when it
  // is missing or not executable, before any tool starts.
  run.target = r.target;
  run.target.front() = resolve_target(r.target.front());
  run.event = r.event.empty() ? kDefaultEvent : r.event;
  run.hz = frequencies(r.frequencies);

  progress("the reference: valgrind --tool=cachegrind (20-100 times slower than the program)");
  const ProfileCounts reference = cachegrind_profile(run.target);
  std::vector<std::pair<std::string, FunctionCounts>> profiles;
  for (std::uint64_t hz : run.hz) {
    progress(fmt::format("perf record -e {} -F {}", run.event, hz));
    profiles.emplace_back(fmt::format("{} Hz", hz), perf_record_profile(run.target, hz, run.event).samples);
  }
  FidelityOptions fo;
  fo.tolerance = r.tolerance;
  fo.top = r.top;
  fo.confidence = r.confidence;
  out.result = assess_fidelity(reference, profiles, fo);
  return out;
}

}  // namespace obscheck
