// The build holds the layering of the design (docs/design.md "Modules" and "The
// pipeline"): every #include "module/..." in src/ is checked against the table of what each
// module may see. A new include of a module above its includer fails here with the
// file, the line and the forbidden edge.
#include <catch2/catch.hpp>

#include <filesystem>
#include <fstream>
#include <map>
#include <regex>
#include <set>
#include <string>

namespace fs = std::filesystem;

namespace {

// What each module may include besides itself, from the bottom up. util/ and stats/
// are the floor; the value types flow cli → plan → run (launch + observe) → record →
// analysis → report; job/ runs a command's lifecycle over them, and cli/ sits above
// everything: it parses, calls the job, prints.
const std::map<std::string, std::set<std::string>> kMayInclude = {
    {"util", {}},
    {"stats", {"util"}},                       // pure numerics: no I/O, no types of the tool
    {"events", {"util"}},                      // event grammar and resolution
    {"host", {"util"}},                        // facts of the machine
    {"launch", {"util"}},                      // starting a process; knows no event
    {"plan", {"util"}},                        // which configurations, in which order (pure)
    {"observe", {"util", "events", "launch"}}, // attach and read; decides nothing
    {"record", {"util", "plan", "launch", "observe"}},  // the journal of runs
    {"run", {"util", "stats", "plan", "launch", "observe", "record", "events"}},  // the runner
    {"analysis", {"util", "stats", "plan", "record"}},            // passes over loaded runs
    {"report", {"util", "analysis", "plan", "record", "host", "events"}},  // bytes from findings
    // a command's lifecycle: request resolved, manifest, journal, resume, end note
    {"job", {"util", "stats", "events", "host", "launch", "plan", "observe", "record", "run", "analysis", "report"}},
    {"cli", {"util", "stats", "events", "host", "launch", "plan", "observe", "record", "run", "analysis",
             "report", "job"}},
};

// Edges the table forbids that the code still has, each with why it is not fixed yet
// (none today: the figures' density and jitter moved to stats/ and analysis/figures).
// An entry that no longer occurs fails the test too, so the list only shrinks.
const std::map<std::pair<std::string, std::string>, std::string> kKnownViolations = {};

}  // namespace

TEST_CASE("layering: no module includes a module above it") {
  const fs::path src = fs::path(OBSCHECK_SOURCE_DIR) / "src";
  const std::regex include_re("^\\s*#\\s*include\\s+\"([a-z_]+)/[^\"]+\"");
  std::set<std::pair<std::string, std::string>> seen_known;
  std::size_t checked = 0;
  for (const auto& entry : fs::recursive_directory_iterator(src)) {
    if (!entry.is_regular_file()) continue;
    const fs::path rel = fs::relative(entry.path(), src);
    if (rel.begin() == rel.end() || std::next(rel.begin()) == rel.end()) continue;  // main.cpp
    const std::string module = rel.begin()->string();
    REQUIRE(kMayInclude.count(module) == 1);
    std::ifstream in(entry.path());
    std::size_t line_no = 0;
    for (std::string line; std::getline(in, line);) {
      ++line_no;
      std::smatch m;
      if (!std::regex_search(line, m, include_re)) continue;
      const std::string target = m[1];
      if (target == module || kMayInclude.count(target) == 0) continue;
      ++checked;
      const auto known = kKnownViolations.find({rel.string(), target});
      if (known != kKnownViolations.end()) {
        seen_known.insert(known->first);
        continue;
      }
      INFO("src/" << rel.string() << ":" << line_no << ": " << module << "/ includes " << target
                  << "/, which docs/design.md puts above it (or beside it, unseen)");
      CHECK(kMayInclude.at(module).count(target) == 1);
    }
  }
  CHECK(checked > 100);
  for (const auto& [edge, why] : kKnownViolations) {
    (void)why;
    INFO(edge.first << " -> " << edge.second << " is listed as a known violation but no longer occurs: remove it");
    CHECK(seen_known.count(edge) == 1);
  }
}

TEST_CASE("layering: the table names every module folder of src/") {
  std::set<std::string> folders;
  for (const auto& e : fs::directory_iterator(fs::path(OBSCHECK_SOURCE_DIR) / "src"))
    if (e.is_directory()) folders.insert(e.path().filename().string());
  std::set<std::string> table;
  for (const auto& [m, _] : kMayInclude) table.insert(m);
  CHECK(folders == table);
}

// The backend (perf_event or the simulated PMU) is decided where it is chosen alone
// (run/backend.cpp choose_backend). Anywhere else, code asks the chosen Backend, never
// which one it is. The other files named here only spell the option.
TEST_CASE("layering: the backend is decided in run/backend.cpp alone") {
  const fs::path src = fs::path(OBSCHECK_SOURCE_DIR) / "src";
  const std::set<std::string> allowed = {
      "run/backend.cpp",      // the choice
      "record/request.h",     // the request's default, native
      "record/request.cpp",   // the name in the journal, and back
      "cli/sim_backend.cpp",  // `events --backend sim` lists the simulated catalog, and
                              // `demo` leaves its counters to it: they measure nothing
  };
  // A comparison with a backend's name, or a branch on its enum.
  const std::regex decides(R"re(BackendKind::(native|sim)|backend\s*==\s*"(sim|native)")re");
  std::size_t decisions = 0;
  for (const auto& entry : fs::recursive_directory_iterator(src)) {
    if (!entry.is_regular_file()) continue;
    const std::string rel = fs::relative(entry.path(), src).string();
    std::ifstream in(entry.path());
    std::size_t line_no = 0;
    for (std::string line; std::getline(in, line);) {
      ++line_no;
      if (!std::regex_search(line, decides)) continue;
      if (allowed.count(rel) == 1) {
        ++decisions;
        continue;
      }
      INFO("src/" << rel << ":" << line_no << " decides the backend: ask the chosen Backend (run/backend.h) instead");
      CHECK(line.empty());
    }
  }
  CHECK(decisions > 0);
}
