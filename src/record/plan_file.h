// record/: a check planned once and run on many hosts (obscheck plan, run --plan,
// slurm). The plan file holds what every host must share: the typed request (seed and
// blocks fixed), the plan's configurations and block count, and the target's digest;
// its own digest over these names the plan in every shard's journal, so journals of
// different plans are never merged.
#pragma once

#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "plan/plan.h"
#include "record/journal.h"
#include "record/plan_json.h"  // PlanFile::plan is plan_to_json's, read back with plan_from_json

namespace obscheck {

inline constexpr const char* kPlanFormat = "obscheck-plan";
inline constexpr int kPlanVersion = 1;
// The largest plan file read: a plan is the options, the target and the blocks' plan,
// the size of a journal's manifest (far below 16 MiB); the cap keeps /dev/zero or a
// sparse file of gigabytes from being read whole.
inline constexpr std::uint64_t kMaxPlanBytes = 16 * 1024 * 1024;

struct PlanFile {
  std::string obscheck_version;
  std::string created;                 // UTC, ISO 8601
  nlohmann::json options;              // request_to_json of the planned request
  nlohmann::json plan;                 // plan_to_json of the whole plan (no shard)
  TargetInfo target;
  std::vector<std::string> notes;      // e.g. counters the planning host could not count
  std::string digest;                  // plan_digest(options, plan, target)
};

// SHA-256 over the canonical JSON of what the shards share. The target's path is left
// out (a node may keep its copy elsewhere); its argv and content digest are in.
std::string plan_digest(const nlohmann::json& options, const nlohmann::json& plan, const TargetInfo& target);

nlohmann::json plan_file_json(const PlanFile& p);
// The file as a manifest-shaped object (options, seed, target, plan), so the request
// is read back by request_from_manifest like a journal's.
PlanFile plan_file_from_json(const nlohmann::json& j, const std::string& path);
// Reads and checks a plan file: its format, its fields, and its digest (an edited
// plan is refused: Error(io), naming the file). Error(io) when it cannot be read, is
// a directory, a device or a pipe, or is larger than kMaxPlanBytes (checked before
// reading).
PlanFile read_plan_file(const std::string& path);
// Whether `path` reads as a plan file (read_plan_file would succeed): for naming a
// plan given where a journal was expected.
bool looks_like_plan_file(const std::string& path);

// What every shard of one plan shares in its journal's manifest, as JSON for
// json_difference to name where two differ: {"plan_digest", "plan" without its
// "shard", "options", "target": {"argv", "sha256"}}.
nlohmann::json shard_shared_part(const nlohmann::json& manifest);

// The first place two JSON values differ, as a path ("plan.levels[2].label: ... vs
// ..."); "" when they are equal. For naming why journals or hosts do not share a plan.
std::string json_difference(const nlohmann::json& a, const nlohmann::json& b, const std::string& at = "");

}  // namespace obscheck
