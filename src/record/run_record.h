// record/: one run as the journal stores it, and the JSON form of launch/'s ExitInfo
// and observe/'s Reading (kept here so launch/ and observe/ know nothing of JSON files).
#pragma once

#include <sys/resource.h>

#include <cstddef>
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

#include "launch/launcher.h"
#include "observe/reading.h"
#include "plan/plan.h"
#include "record/run_fields.h"

namespace obscheck {

// A profiler command's costs of one run (a --observer-cmd dose; run/measurer.cpp
// CommandMeasurer), journalled among the run line's "extra" under the keys named here.
// A run whose target's own wall time was taken keeps the whole command's beside it; a
// run where no profiler ran (level 0) has no profiler_* cost.
struct ProfilerCost {
  bool wall_of_command = false;                  // "wall_of":"command": the target's exit not seen,
                                                 // its wall time is the command's
  std::optional<std::string> target_wall_from;   // "target_wall_from": "kernel" or "pidfd"
  std::optional<std::uint64_t> command_wall_ns;  // "command_wall_ns": the whole command's wall time
  std::optional<std::uint64_t> profiler_ns;      // "profiler_ns": the command's wall time less the target's
  std::optional<double> profiler_cpu_ns;         // "profiler_cpu_ns": its CPU time less the target's task-clock
  std::optional<std::uint64_t> profiler_samples; // "profiler_samples": the samples it says it took
  std::optional<double> profiler_rate_hz;        // "profiler_rate_hz": those over the target's task-clock
  std::optional<std::uint64_t> max_sample_rate;  // "max_sample_rate": the kernel's limit after the run
  bool operator==(const ProfilerCost&) const = default;
};

// A sampling observer's account of one run (observe/sampling.h SamplingStats), the run
// line's extra "sampling": {"freq","samples","lost","throttles","unthrottles","run_ns",
// "achieved_hz"}. Journals written before the rate was recorded have neither
// "achieved_hz" nor "throttles"; a count absent from an older line reads as 0.
struct SamplingRecord {
  std::uint64_t freq = 0;                   // requested, Hz
  std::uint64_t samples = 0;                // drained
  std::uint64_t lost = 0;                   // dropped by the kernel, its ring full
  std::optional<std::uint64_t> throttles;   // the kernel lowered the rate
  std::optional<std::uint64_t> unthrottles;
  std::optional<std::uint64_t> run_ns;      // the target's time on the CPUs sampled
  std::optional<double> achieved_hz;        // samples per second of run_ns
  bool operator==(const SamplingRecord&) const = default;
};

// One line of the journal: {"type":"run", ...}. The trial fields repeat the plan's
// values so a line can be read (and checked against the plan) on its own.
struct RunRecord {
  std::size_t index = 0;     // Trial::index, unique in a journal
  std::size_t block = 0;
  std::size_t position = 0;
  std::size_t config = 0;
  std::string config_id;
  bool warmup = false;
  std::uint64_t env_bytes = 0;  // the target's environment block as launched (EnvBlock::size_bytes)
  ExitInfo exit;                // `output` (the captured text) is not journalled: its digest and size are
  std::vector<Reading> readings;
  // A profiler command's costs, written among "extra" and read back from it (typed).
  std::optional<ProfilerCost> profiler;
  // A sampling observer's account ("sampling"), and each probe's hits by its event's
  // name ("probe_hits": {NAME: hits}), written among "extra" and read back from it.
  std::optional<SamplingRecord> sampling;
  std::map<std::string, std::uint64_t> probe_hits;
  // The first line of the target's output, kept only when asked (--keep-output-head):
  // "output_head"; the processes the run left running, killed after it: "left_behind",
  // written when above 0.
  std::optional<std::string> output_head;
  std::uint64_t left_behind = 0;
  // How busy the host was around the run ("host"; record/run_fields.h), when the
  // runner could read it.
  std::optional<HostLoadRecord> host;
  // A sweep's run (bias, compare): where its stack began ("stack_address", when read),
  // and why it failed ("failure", written when not empty; a run that ran is "").
  std::optional<std::uint64_t> stack_address;
  std::string failure;
  nlohmann::json extra = nlohmann::json::object();  // the other observers' parts, opaque to record/
};

// The encoder and the decoder of a run's profiler costs, within the run line's "extra"
// object. The decoder takes its keys out of `extra`: nullopt when it has none of them;
// Error(io) "field extra.KEY ..." when one has the wrong type or lies out of range
// (a count or a time that is not a whole number >= 0, a rate or CPU time that is not a
// finite number >= 0). A word of "wall_of" other than "command", or of
// "target_wall_from" other than "kernel" and "pidfd", is a later version's: kept
// as written, not an error.
void put_profiler_cost(nlohmann::json& extra, const ProfilerCost& c);
std::optional<ProfilerCost> take_profiler_cost(nlohmann::json& extra);
// The same for a run's sampling account and probe hits: "sampling" an object of the
// counts above (Error(io) "field extra.sampling.KEY ..."), "probe_hits" an object of
// whole numbers >= 0 (Error(io) "field extra.probe_hits ...").
void put_sampling(nlohmann::json& extra, const SamplingRecord& s);
std::optional<SamplingRecord> take_sampling(nlohmann::json& extra);
void put_probe_hits(nlohmann::json& extra, const std::map<std::string, std::uint64_t>& hits);
std::map<std::string, std::uint64_t> take_probe_hits(nlohmann::json& extra);
// The encoder of a run's host load: extra["host"], the members present (its decoder is
// the run line's own, parse_run_line, which fills RunFields::host as it reads the line).
void put_host_load(nlohmann::json& extra, const HostLoadRecord& h);
// A run line's "extra" (its JSON text, RunFields::extra) into r: r.extra the object, its
// typed parts (r.profiler, r.sampling, r.probe_hits, r.output_head, r.left_behind,
// r.stack_address, r.failure: Error(io) "field extra.output_head is not a string",
// "field extra.left_behind is not a whole number >= 0", "field extra.failure is not a
// string") decoded out of it. Error(io) "field extra ..." when it is
// not an object or a typed part does not decode. Its "host" is left out of r.extra:
// parse_run_line decoded it into RunFields::host, which run_record_of gives r.host.
void read_run_extra(RunRecord& r, std::string_view text);

// A record with the trial's fields filled in from the plan; the runner adds the rest.
RunRecord run_record_for(const Plan& plan, const Trial& trial);

// The JSON a run line holds, written; a run line is read back by one decoder only,
// parse_run_line (record/journal_reader.h), through run_record_from_line below.
// ExitInfo -> {"code","signal","timed_out","wall_ns","output_sha256","output_bytes"};
// output_sha256 is null when output was not captured. The rusage is its sibling in a
// run line ("rusage"): struct rusage -> {"utime_ns","stime_ns","maxrss_kb","minflt",
// "majflt","nvcsw","nivcsw"}, times in whole nanoseconds of the kernel's microseconds,
// and in a run's line "pre_exec_maxrss_kb" (ExitInfo::pre_exec_maxrss_kb) when known:
// a whole number of KiB up to 2^53, absent in journals written before it was kept.
void to_json(nlohmann::json& j, const ExitInfo& e);
nlohmann::json rusage_to_json(const struct rusage& r);

// Reading -> {"name","raw","enabled","running","value","multiplexed","scale"}, and
// "fault" when the reading has one (a count that is not a value: observe/reading.h).
// JSON has no NaN or infinity: a value or scale that is not finite is written as null
// and read back as NaN (a counter that never ran has value NaN; see observe/reading.h).
void to_json(nlohmann::json& j, const Reading& r);

// The run line's JSON (with "type":"run").
void to_json(nlohmann::json& j, const RunRecord& r);

// The run line as the journal writes it: the JSON of to_json, compact, keys in the
// same order, without building the JSON tree first (a tenth of the time, which the
// driver spends between two runs). No trailing newline. Invalid UTF-8 in a string is
// replaced by U+FFFD, as the journal's dump does.
std::string run_line(const RunRecord& r);

// A run line's checked fields as a RunRecord (`extra` left empty: it is JSON text in
// RunFields, parsed by the caller when it wants it).
RunRecord run_record_of(const RunFields& f);

// One run line (the integrity check optional) read back as a journal reader reads it:
// decoded by parse_run_line, every field's type and range checked (run_fields.h; no
// value cast out of its type's range), `extra` included. Throws Error(io) naming the
// field ("field exit.wall_ns is not a whole number").
RunRecord run_record_from_line(std::string_view line);

}  // namespace obscheck
