// What the session tests (real processes, the test PMU or the fake backend) share: the
// counter observer's plan over the held layout, and a session's journal in a fresh
// temporary directory, with a manifest naming the plan's counters and the target.
#pragma once

#include <chrono>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "plan/plan.h"
#include "record/journal.h"

#include "../temp_dir.h"

namespace obscheck::test {

// --counters `counters` planned as a check plans them (level 0 too when `reference`),
// the held layout only; a fixed number of blocks when `fixed`.
inline Plan held_counter_plan(const std::vector<std::string>& counters, std::uint64_t seed, std::size_t max_blocks,
                              std::optional<std::size_t> fixed = std::nullopt, bool reference = false) {
  PlanSpec ps;
  ps.counters = counters;
  ps.levels = counter_levels(ps.counters, reference);
  ps.layouts = {Layout::held};
  ps.seed = seed;
  ps.max_blocks = max_blocks;
  ps.fixed_blocks = fixed;
  return make_plan(ps);
}

struct SessionJournal {
  TempDir dir;
  std::string path = (dir.path / "j.jsonl").string();
  JournalWriter writer;
  SessionJournal(const Plan& plan, const std::string& target)
      : writer(JournalWriter::create(path, manifest(plan, target))) {}
  static nlohmann::json manifest(const Plan& plan, const std::string& target) {
    ManifestInput in;
    in.obscheck_version = "0.1.0";
    in.created = std::chrono::system_clock::now();
    in.options = {{"counters", plan.spec.counters}};
    in.target = {target, {std::filesystem::path(target).filename().string()}, std::string(64, 'a')};
    return make_manifest(in, plan);
  }
};

}  // namespace obscheck::test
