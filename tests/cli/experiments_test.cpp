// The lab, as a student runs it: every experiments/fig*/run.sh as an unprivileged user
// (nobody, through setpriv), each asserting from its JSON the point its figure teaches,
// and each run twice, from two environments of different sizes, to the same conclusion.
// Skipped, with a warning, where the test cannot drop to nobody (not root, no setpriv)
// or the simulated PMU (valgrind) is missing.
#include <sys/stat.h>
#include <unistd.h>

#include <catch2/catch.hpp>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <map>
#include <sstream>
#include <string>

#include <nlohmann/json.hpp>

#include "run_cli.h"

using obscheck::test::slurp;

namespace {

constexpr uid_t kNobody = 65534;

std::string why_not_here() {
  if (geteuid() != 0 || access("/usr/bin/setpriv", X_OK) != 0) return "needs root and setpriv to run as nobody";
  if (std::system("valgrind --version > /dev/null 2>&1") != 0) return "needs valgrind for the simulated PMU";
  return {};
}

struct Figure {
  int status = -1;
  std::string out;  // the figure's output directory
  std::string log;  // what run.sh printed
  nlohmann::json json() const { return nlohmann::json::parse(slurp(out + "/report.json")); }
  // The log's last three lines, where a failed run.sh says why: shown first, because a
  // CI summary may keep only the first lines of a failure's messages.
  std::string ending() const {
    std::size_t at = log.size();
    for (int lines = 0; lines < 4 && at > 0; ++lines) {
      const std::size_t nl = log.rfind('\n', at - 1);
      at = nl == std::string::npos ? 0 : nl;
    }
    return log.substr(at);
  }
};

// Runs experiments/<name>/run.sh as nobody with OUT in a fresh directory nobody owns;
// `extra_env` bytes are added to the environment in one more variable.
Figure run_figure(const std::string& name, std::size_t extra_env) {
  char tmpl[] = "/tmp/obscheck-lab-XXXXXX";
  REQUIRE(mkdtemp(tmpl) != nullptr);
  const std::string dir = tmpl;
  REQUIRE(chown(dir.c_str(), kNobody, kNobody) == 0);
  Figure f;
  f.out = dir + "/out";
  const std::string cmd = "cd '" + dir + "' && /usr/bin/setpriv --reuid=65534 --regid=65534 --clear-groups env " +
                          (extra_env ? "LAB_EXTRA=" + std::string(extra_env, 'x') + " " : "") + "OBSCHECK='" +
                          OBSCHECK_BIN + "' OUT='" + f.out + "' bash '" + OBSCHECK_SOURCE_DIR + "/experiments/" +
                          name + "/run.sh' > '" + dir + "/log' 2>&1";
  f.status = std::system(cmd.c_str());
  f.log = slurp(dir + "/log");
  return f;
}

// The figure's one-sentence point, as run.sh printed it.
std::string point_of(const Figure& f) {
  const auto at = f.log.find("point: ");
  return at == std::string::npos ? "" : f.log.substr(at, f.log.find('\n', at) - at);
}

std::map<std::string, std::string> verdicts(const nlohmann::json& check) {
  std::map<std::string, std::string> out;
  for (const auto& m : check.at("metrics")) out[m.at("name")] = m.at("verdict");
  return out;
}

// Two environments: the test's own, and the same with 3,000 bytes more.
constexpr std::size_t kEnvironments[] = {0, 3000};

}  // namespace

TEST_CASE("experiments: fig02-03 and fig12: the counters move l1d only through the layout, unprivileged") {
  if (const std::string why = why_not_here(); !why.empty()) {
    WARN("SKIPPED: " << why);
    return;
  }
  for (const char* name : {"fig02-03-counters", "fig12-padding"})
    for (std::size_t extra : kEnvironments) {
      const Figure f = run_figure(name, extra);
      INFO("run.sh ended with:" << f.ending());
      INFO(name << " with " << extra << " bytes more environment:\n" << f.log);
      REQUIRE(f.status == 0);
      const nlohmann::json j = f.json();
      CHECK(j.at("plan").at("layouts") == nlohmann::json::array({"natural", "held", "sham"}));
      const auto v = verdicts(j);
      CHECK(v.at("l1d") == "layout");            // natural moves it, held does not
      CHECK(v.at("instructions") == "not-perturbed");  // the program's work is the same
      CHECK(point_of(f).find("explained by layout") != std::string::npos);
      CHECK(std::filesystem::is_regular_file(f.out + "/report.html"));
    }
}

TEST_CASE("experiments: fig04-05: a probe on the hot function perturbs task-clock, unprivileged") {
  if (const std::string why = why_not_here(); !why.empty()) {
    WARN("SKIPPED: " << why);
    return;
  }
  for (std::size_t extra : kEnvironments) {
    const Figure f = run_figure("fig04-05-probes", extra);
    INFO("run.sh ended with:" << f.ending());
    INFO(f.log);
    REQUIRE(f.status == 0);
    const auto v = verdicts(f.json());
    CHECK(v.at("task-clock") == "perturbed");
    CHECK(v.at("page-faults") == "not-perturbed");
    // Without root the probes are hardware breakpoints, and the setup says so.
    CHECK(slurp(f.out + "/setup.txt").find("--breakpoints") != std::string::npos);
    CHECK(point_of(f).find("perturbed") != std::string::npos);
  }
}

TEST_CASE("experiments: fig06-07: l1d and cycles spike with the environment's size, one 4 KiB period apart") {
  if (const std::string why = why_not_here(); !why.empty()) {
    WARN("SKIPPED: " << why);
    return;
  }
  for (std::size_t extra : kEnvironments) {
    const Figure f = run_figure("fig06-07-envsize", extra);
    INFO("run.sh ended with:" << f.ending());
    INFO(f.log);
    REQUIRE(f.status == 0);
    const nlohmann::json j = f.json();
    std::map<std::size_t, std::size_t> pad_of;  // context id -> bytes added
    for (const auto& c : j.at("contexts")) pad_of[c.at("id")] = c.at("env_pad");
    for (const auto& a : j.at("analyses")) {
      INFO(a.at("metric"));
      std::map<std::size_t, double> ratio;  // bytes added -> mean / median
      std::size_t top = 0;
      for (const auto& c : a.at("contexts")) {
        const std::size_t pad = pad_of.at(c.at("id"));
        ratio[pad] = c.at("ratio");
        if (ratio[pad] > ratio[top]) top = pad;
      }
      CHECK(a.at("exceeds_noise") == true);
      // A spike, not a ripple: misses at least double; the cycle model, in which the
      // misses are a part of the cost, moves by a tenth at least.
      CHECK(ratio[top] > (a.at("metric") == "l1d" ? 2.0 : 1.1));
      const std::size_t again = ratio.count(top + 4096) ? top + 4096 : top - 4096;
      REQUIRE(ratio.count(again) == 1);
      CHECK(ratio[again] > 0.99 * ratio[top]);  // the same spike, one period away
    }
    CHECK(point_of(f).find("one 4 KiB period away") != std::string::npos);
  }
}

TEST_CASE("experiments: fig08-09: the link order moves l1i in a small instruction cache, and the report says bias") {
  if (const std::string why = why_not_here(); !why.empty()) {
    WARN("SKIPPED: " << why);
    return;
  }
  for (std::size_t extra : kEnvironments) {
    const Figure f = run_figure("fig08-09-linkorder", extra);
    INFO("run.sh ended with:" << f.ending());
    INFO(f.log);
    REQUIRE(f.status == 0);
    const nlohmann::json j = f.json();
    const nlohmann::json& l1i = j.at("analyses").at(0);
    CHECK(l1i.at("metric") == "l1i");
    CHECK(l1i.at("exceeds_noise") == true);
    CHECK(l1i.at("swing").get<double>() > 0.05);
    CHECK(point_of(f).find("measurement bias") != std::string::npos);
    CHECK(slurp(f.out + "/report.txt").find("I1=256,1,64") != std::string::npos);  // the README's geometry
  }
}

TEST_CASE("experiments: fig13: O2 against O3 over contexts, with the A/A control first, unprivileged") {
  if (const std::string why = why_not_here(); !why.empty()) {
    WARN("SKIPPED: " << why);
    return;
  }
  for (std::size_t extra : kEnvironments) {
    const Figure f = run_figure("fig13-variants", extra);
    INFO("run.sh ended with:" << f.ending());
    INFO(f.log);
    REQUIRE(f.status == 0);
    const nlohmann::json j = f.json();
    // One of the four outcomes, for the comparison and for its A/A control. Which one
    // is a measurement of this host's noise, not something the test can fix.
    for (const char* part : {"aa", "comparison"}) {
      const std::string outcome = j.at(part).at("outcome");
      CHECK((outcome == "better" || outcome == "worse" || outcome == "no significant difference" ||
             outcome == "incomparable"));
      CHECK(j.at(part).at("contexts") == 16);  // 2:4096:256
    }
    CHECK(point_of(f).find("verdict:") != std::string::npos);
  }
}
