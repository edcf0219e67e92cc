// Calibration support: a recorded journal as the replays use it. Test and benchmark
// code, not part of the driver (it is built as its own library, linked by the
// calibration test and tools/bench/calibration only).
#pragma once

#include <cstddef>
#include <optional>
#include <string>
#include <vector>

#include "plan/plan.h"
#include "record/journal.h"
#include "record/journal_notes.h"
#include "record/run_record.h"

namespace obscheck::calibration {

// The bytes of a file, gunzipped when it is gzip-compressed (zlib reads a plain file
// through unchanged). Throws Error(io), naming the file, when it cannot be opened or
// is a damaged or truncated gzip stream.
std::string read_maybe_gzip(const std::string& path);

struct Fixture {
  std::string name;   // the file name without directory and extensions: "compute-a"
  std::string path;
  Plan plan;          // rebuilt from the manifest, as obscheck report does (plan_from_journal)
  nlohmann::json manifest;
  // The recording's own pace: its last end note's "sweep" (seconds per block, the
  // warm-up's included), absent in journals written before the note recorded it.
  std::optional<SweepStretch> sweep;
  // The measured blocks in journal order; each holds the block's runs indexed by their
  // recorded configuration (by_config[c] is the run of configuration c). Only complete
  // blocks are kept, renumbered from 0; warm-ups are dropped.
  struct Block {
    std::size_t recorded_block = 0;   // RunRecord::block in the journal
    std::vector<RunRecord> by_config;
  };
  std::vector<Block> blocks;
};

// Loads a journal (gzip-compressed or not) through record/'s own validation
// (parse_journal), rebuilds its plan, and groups its measured runs into complete
// blocks. Throws Error(io) as parse_journal and plan_from_journal do, and when the
// journal holds no complete measured block.
Fixture load_fixture(const std::string& path);

}  // namespace obscheck::calibration
