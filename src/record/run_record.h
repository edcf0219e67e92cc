// record/: one run as the journal stores it, and the JSON form of launch/'s ExitInfo
// and observe/'s Reading (kept here so launch/ and observe/ know nothing of JSON files).
#pragma once

#include <sys/resource.h>

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

#include "launch/launcher.h"
#include "observe/reading.h"
#include "plan/plan.h"
#include "record/run_fields.h"

namespace obscheck {

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
  nlohmann::json extra = nlohmann::json::object();  // observer-specific, opaque to record/
};

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
