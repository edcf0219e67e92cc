// A session's journal in a fresh temporary directory, with a manifest naming the plan's
// counters and the target: what the session tests (real processes or the fake backend)
// run their sessions into.
#pragma once

#include <chrono>
#include <string>
#include <vector>

#include "plan/plan.h"
#include "record/journal.h"

#include "../temp_dir.h"

namespace obscheck::test {

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
