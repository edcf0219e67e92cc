// Golden perf_event_attr encodings (tests/golden/events/*.json), field by field.
#include <sys/wait.h>
#include <unistd.h>

#include <catch2/catch.hpp>
#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include <array>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>

#include "events/attr_json.h"
#include "events/event.h"

namespace fs = std::filesystem;
using namespace obscheck;

namespace {

const fs::path kGoldenEvents = fs::path(OBSCHECK_GOLDEN_DIR) / "events";

nlohmann::json load(const fs::path& p) {
  std::ifstream in(p);
  return nlohmann::json::parse(in);
}

// Golden files write config values as "0x..." strings for readability.
nlohmann::json normalise(nlohmann::json attr) {
  for (auto& [key, v] : attr.items())
    if (v.is_string()) v = std::stoull(v.get<std::string>(), nullptr, 0);
  return attr;
}

std::vector<fs::path> golden_files() {
  std::vector<fs::path> out;
  for (const auto& e : fs::directory_iterator(kGoldenEvents))
    if (e.path().extension() == ".json") out.push_back(e.path());
  std::sort(out.begin(), out.end());
  return out;
}

void check_golden(const fs::path& file) {
  const nlohmann::json g = load(file);
  INFO(file.filename().string() << ": " << g.at("spec").get<std::string>());
  ResolveOptions opts;
  if (g.contains("sysfs_root")) opts.sysfs_root = (kGoldenEvents / g.at("sysfs_root").get<std::string>()).string();
  const EventSet set = parse_events(g.at("spec").get<std::string>(), opts);
  CHECK(nlohmann::json(set.groups) == g.at("groups"));
  REQUIRE(set.events.size() == g.at("events").size());
  for (std::size_t i = 0; i < set.events.size(); ++i) {
    const EventDesc& e = set.events[i];
    const nlohmann::json& want = g.at("events")[i];
    INFO("event " << i << " (" << e.name << ")");
    CHECK(e.name == want.at("name").get<std::string>());
    CHECK(e.source == want.at("source").get<std::string>());
    CHECK(e.pmu == want.at("pmu").get<std::string>());
    CHECK(e.hardware == want.at("hardware").get<bool>());
    // What is programmed when counting (the per-open flags included), as `events --encode` shows it.
    const nlohmann::json actual = attr_to_json(counting_attr(set, i));
    const nlohmann::json expected = normalise(want.at("attr"));
    for (const auto& field : attr_json_mismatches(expected, actual)) {
      INFO("field " << field << ": expected " << (expected.contains(field) ? expected[field].dump() : "absent")
                    << ", got " << (actual.contains(field) ? actual[field].dump() : "absent"));
      CHECK(field == "");
    }
  }
}

}  // namespace

TEST_CASE("golden encodings that need no PMU, field by field", "[golden]") {
  int checked = 0;
  for (const auto& file : golden_files()) {
    if (load(file).contains("force_pmu")) continue;
    check_golden(file);
    ++checked;
  }
  CHECK(checked == 11);
}

// Run only by the test below, in a fresh process whose environment forces the PMU.
TEST_CASE("golden encodings under LIBPFM_FORCE_PMU (child half)", "[.][forced-pmu]") {
  const char* forced = std::getenv("LIBPFM_FORCE_PMU");
  REQUIRE(forced != nullptr);
  int checked = 0;
  for (const auto& file : golden_files()) {
    const nlohmann::json g = load(file);
    if (g.value("force_pmu", "") != forced) continue;
    check_golden(file);
    ++checked;
  }
  CHECK(checked == 2);
}

TEST_CASE("golden encodings of libpfm4 and PAPI under a forced Skylake PMU", "[golden]") {
  // libpfm4 reads LIBPFM_FORCE_PMU in pfm_initialize and PAPI initialises libpfm4 once,
  // so the forced encodings are checked by re-running this executable with the
  // variable set; the child's report is shown when it fails.
  std::array<char, 4096> self{};
  const ssize_t n = ::readlink("/proc/self/exe", self.data(), self.size() - 1);
  REQUIRE(n > 0);
  const std::string cmd = fmt::format("LIBPFM_FORCE_PMU=skl '{}' '[forced-pmu]' 2>&1", self.data());
  FILE* p = ::popen(cmd.c_str(), "r");
  REQUIRE(p != nullptr);
  std::string output;
  std::array<char, 4096> buf;
  while (std::size_t got = std::fread(buf.data(), 1, buf.size(), p)) output.append(buf.data(), got);
  const int status = ::pclose(p);
  INFO(output);
  REQUIRE(WIFEXITED(status));
  CHECK(WEXITSTATUS(status) == 0);
  CHECK(output.find("All tests passed") != std::string::npos);
  CHECK(output.find("1 test case") != std::string::npos);
}
