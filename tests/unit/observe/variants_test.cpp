// Compile-time probes: variants built with the system cc from experiments/workloads/
// probed.c, whose site i runs on every (i+1)-th of N iterations, i.e. exactly
// floor((N-1)/(i+1)) + 1 times; the counts each variant dumps must be exactly that.
#include <catch2/catch.hpp>

#include "error_of.h"
#include <fmt/format.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>

#include "launch/launcher.h"
#include "observe/variants.h"
#include "util/digest.h"
#include "util/error.h"

using namespace obscheck;
using Catch::Matchers::Contains;
namespace fs = std::filesystem;

using obscheck::test::error_of;

namespace {

const std::string kSource = std::string(OBSCHECK_SOURCE_DIR);
const std::string kProbed = kSource + "/experiments/workloads/probed.c";
constexpr long kIterations = 100000;

std::uint64_t expected_count(int site) { return (kIterations - 1) / (site + 1) + 1; }

struct VariantsDir {
  fs::path path = fs::temp_directory_path() / fmt::format("obscheck-variants-{}", ::getpid());
  VariantsDir() { fs::create_directories(path); }
  ~VariantsDir() { fs::remove_all(path); }
};

std::string build_template() {
  return fmt::format("cc -O2 -I{}/probes -DOBS_PROBES={{mask}} {} -o {{out}}", kSource, kProbed);
}

// Runs a variant with the dump on fd 2 (captured with stdout).
ExitInfo run_with_dump(const std::string& path) {
  LaunchSpec s;
  s.path = path;
  s.argv = {path, std::to_string(kIterations)};
  s.env = EnvBlock({"LC_ALL=C", fmt::format("{}=2", kProbeDumpFdEnv)});
  s.out = Stdio::capture;
  CorkedChild c = CorkedChild::spawn(s);
  c.release();
  return c.wait();
}

}  // namespace

TEST_CASE("probe masks set the first k bits") {
  CHECK(probe_mask_for_dose(0) == 0);
  CHECK(probe_mask_for_dose(1) == 1);
  CHECK(probe_mask_for_dose(8) == 255);
  CHECK(probe_mask_for_dose(64) == ~std::uint64_t{0});
  CHECK(error_of([] { probe_mask_for_dose(65); }).kind() == ErrorKind::usage);
  CHECK(error_of([] { probe_mask_for_dose(-1); }).kind() == ErrorKind::usage);
}

TEST_CASE("variants 0..8 of probed.c count every compiled-in site exactly, the others not at all") {
  VariantsDir dir;
  const auto variants = build_variants(build_template(), 8, dir.path.string());
  REQUIRE(variants.size() == 9);
  for (const auto& v : variants) {
    INFO("dose " << v.dose);
    CHECK(v.mask == probe_mask_for_dose(v.dose));
    CHECK(v.path == (dir.path / fmt::format("variant-{}", v.dose)).string());
    CHECK(v.digest == sha256_file(v.path));
    CHECK_FALSE(v.cached);
    CHECK(v.command[3] == fmt::format("-DOBS_PROBES={}", v.mask));
    const ExitInfo e = run_with_dump(v.path);
    REQUIRE(e.ok());
    const ProbeCounts pc = parse_probe_dump(e.output);
    CHECK(pc.mask == v.mask);
    REQUIRE(pc.counts.size() == static_cast<std::size_t>(v.dose));
    std::uint64_t total = 0;
    for (int site = 0; site < v.dose; ++site) {
      CHECK(pc.counts.at(site) == expected_count(site));
      total += expected_count(site);
    }
    CHECK(pc.total() == total);
  }
  // Hand-checked totals: 100000, then + 50000, + 33334, ... ; all eight sites:
  // 100000+50000+33334+25000+20000+16667+14286+12500 = 271787.
  CHECK(parse_probe_dump(run_with_dump(variants[8].path).output).total() == 271787);
  // Different masks give different binaries; dose 0 differs from dose 1.
  CHECK(variants[0].digest != variants[1].digest);

  // The same command again is served from the manifest, and the binaries are unchanged.
  const auto again = build_variants(build_template(), 8, dir.path.string());
  for (std::size_t i = 0; i < again.size(); ++i) {
    CHECK(again[i].cached);
    CHECK(again[i].digest == variants[i].digest);
  }
  // A changed command (another optimisation level) rebuilds.
  const std::string o1 = fmt::format("cc -O1 -I{}/probes -DOBS_PROBES={{mask}} {} -o {{out}}", kSource, kProbed);
  const auto other = build_variants(o1, 1, dir.path.string());
  CHECK_FALSE(other[0].cached);
  CHECK_FALSE(other[1].cached);
}

TEST_CASE("without the dump variable a variant prints only its own output") {
  VariantsDir dir;
  const auto v = build_variants(build_template(), 8, dir.path.string()).back();
  LaunchSpec s;
  s.path = v.path;
  s.argv = {v.path, "10"};
  s.env = EnvBlock({"LC_ALL=C"});
  s.out = Stdio::capture;
  CorkedChild c = CorkedChild::spawn(s);
  c.release();
  const ExitInfo e = c.wait();
  CHECK(e.ok());
  CHECK(e.output == "45\n");  // sum 0..9: the program's own line and nothing else
  CHECK(error_of([&] { parse_probe_dump(e.output); }).kind() == ErrorKind::target);
}

TEST_CASE("a failing build names the command and shows the compiler's complaint") {
  VariantsDir dir;
  const fs::path bad = dir.path / "bad.c";
  std::ofstream(bad) << "int main(void) { return undeclared_name; }\n";
  const std::string templ = fmt::format("cc -DOBS_PROBES={{mask}} {} -o {{out}}", bad.string());
  const Error e = error_of([&] { build_variants(templ, 2, (dir.path / "out").string()); });
  CHECK(e.kind() == ErrorKind::target);
  CHECK_THAT(std::string(e.what()), Contains("(dose 0) exited with status 1"));
  CHECK_THAT(std::string(e.what()), Contains(fmt::format("cc -DOBS_PROBES=0 {} -o ", bad.string())));
  CHECK_THAT(e.hint(), Contains("undeclared_name"));

  const Error missing = error_of([&] { build_variants("no-such-cc-xyz {mask} {out}", 1, dir.path.string()); });
  CHECK(missing.kind() == ErrorKind::target);
  CHECK_THAT(std::string(missing.what()), Contains("no-such-cc-xyz"));

  CHECK(error_of([&] { build_variants("cc prog.c -o {out}", 1, dir.path.string()); }).kind() == ErrorKind::usage);
  CHECK(error_of([&] { build_variants("cc -DOBS_PROBES={mask} prog.c", 1, dir.path.string()); }).kind() ==
        ErrorKind::usage);
  CHECK(error_of([&] { build_variants("cc '{mask} {out}", 1, dir.path.string()); }).kind() == ErrorKind::usage);
  CHECK(error_of([&] { build_variants("cc {mask} {out}", 65, dir.path.string()); }).kind() == ErrorKind::usage);
}

TEST_CASE("probe dumps parse strictly") {
  const ProbeCounts pc = parse_probe_dump("noise\nobsprobe mask=5\n0 7\n2 9\n");
  CHECK(pc.mask == 5);
  CHECK(pc.counts == std::map<int, std::uint64_t>{{0, 7}, {2, 9}});
  CHECK(pc.total() == 16);
  CHECK(parse_probe_dump("obsprobe mask=0\n").counts.empty());
  CHECK(error_of([] { parse_probe_dump("obsprobe mask=5\n0 7\n1 9\n"); }).kind() == ErrorKind::target);
  CHECK(error_of([] { parse_probe_dump("obsprobe mask=x\n"); }).kind() == ErrorKind::target);
  CHECK(error_of([] { parse_probe_dump("obsprobe mask=1\n"); }).kind() == ErrorKind::target);
}
