// Reporters of the main job, against golden files in tests/golden/report/.
//
// The Findings here are written by hand (fixed numbers, one verdict of each kind, a
// missing cell, a level without pairs, an A/A control, an incomparable run, trends),
// so a change in layout shows up as a diff of the golden file rather than a change in
// the statistics. To regenerate the goldens after an intended change of format:
//
//   OBSCHECK_UPDATE_GOLDEN=1 ./test_report
//
// then read the diff (git diff tests/golden/report) before committing it.
#include <catch2/catch.hpp>

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <functional>
#include <set>
#include <sstream>

#include <nlohmann/json.hpp>

#include "host/doctor.h"
#include "host/host_info.h"
#include "report/check_report.h"
#include "report/html_report.h"
#include "report/textplot.h"
#include "text_lines.h"

using namespace obscheck;
using obscheck::test::columns;
using obscheck::test::lines_of;
namespace fs = std::filesystem;

namespace {

const fs::path kGoldenReport = fs::path(OBSCHECK_GOLDEN_DIR) / "report";

// Compares `actual` with the golden file, or rewrites it when OBSCHECK_UPDATE_GOLDEN=1.
void check_golden(const std::string& name, const std::string& actual) {
  const fs::path path = kGoldenReport / name;
  const char* update = std::getenv("OBSCHECK_UPDATE_GOLDEN");
  if (update && std::string(update) == "1") {
    fs::create_directories(kGoldenReport);
    std::ofstream(path, std::ios::binary) << actual;
    return;
  }
  std::ifstream in(path, std::ios::binary);
  INFO("golden file " << path << " (regenerate with OBSCHECK_UPDATE_GOLDEN=1)");
  REQUIRE(in.good());
  std::stringstream expected;
  expected << in.rdbuf();
  CHECK(actual == expected.str());
}

Plan fixture_plan(CountingMode mode = CountingMode::inprocess) {
  PlanSpec s;
  s.counters = {"task-clock", "page-faults"};
  s.levels = counter_levels(s.counters);
  s.layouts = layouts_for(mode);
  s.seed = 42;
  return make_plan(s);
}

std::size_t config_index(const Plan& plan, const std::string& id) {
  for (const auto& c : plan.configs)
    if (c.id == id) return c.index;
  FAIL("no configuration " << id);
  return 0;
}

const std::string kCi = "t interval with max(iid, HAC Bartlett) SE, cross-checked by circular block bootstrap";
const std::string kP = "sign-flip randomization test (10000 random flips)";

struct Builder {
  const Plan& plan;
  Findings f;

  static constexpr std::size_t kSkipped = static_cast<std::size_t>(-1);

  // Adds the comparison of `level_label` under `layout` against `base_label` for
  // `metric`; kSkipped when the plan has no such layout (external mode: held only).
  std::size_t add(std::size_t metric, const std::string& level_label, const std::string& layout,
                  const std::string& base_label, double effect, double lo, double hi, double p, double p_holm,
                  bool aa = false) {
    const Layout l = layout_from_string(layout);
    if (std::find(plan.spec.layouts.begin(), plan.spec.layouts.end(), l) == plan.spec.layouts.end()) return kSkipped;
    Comparison c;
    c.metric = metric;
    c.config = config_index(plan, "counters=" + level_label + "/" + layout + (aa ? "#aa" : ""));
    c.baseline = config_index(plan, "counters=" + base_label + "/" + layout);
    c.level_index = plan.configs[c.config].level_index;
    c.dose = plan.configs[c.config].level.dose;
    c.level_label = level_label;
    c.layout = layout_from_string(layout);
    c.aa = aa;
    c.n = 20;
    c.effect = effect;
    c.ci_lo = lo;
    c.ci_hi = hi;
    c.ci_method = kCi;
    c.p_value = p;
    c.p_holm = p_holm;
    c.p_method = kP;
    c.significant = p_holm < 0.05 && (lo > 0 || hi < 0);
    c.equivalent = lo > -0.01 && hi < 0.01;
    c.outside_margin = lo > 0.01 || hi < -0.01;
    c.margin = 0.01;
    c.bound = std::max(std::fabs(lo), std::fabs(hi));
    c.median_baseline = f.metrics[metric].unit == "ns" ? 20'310'000 : 132;
    c.median_config = c.median_baseline * (1 + effect);
    f.comparisons.push_back(c);
    return f.comparisons.size() - 1;
  }

  void verdict(std::size_t metric, const std::string& level_label, Verdict v, const std::string& reason,
               std::vector<std::size_t> comparisons) {
    comparisons.erase(std::remove(comparisons.begin(), comparisons.end(), kSkipped), comparisons.end());
    LevelVerdict lv;
    lv.metric = metric;
    lv.level_index = f.comparisons[comparisons.front()].level_index;
    lv.dose = f.comparisons[comparisons.front()].dose;
    lv.level_label = level_label;
    lv.verdict = v;
    lv.reason = reason;
    lv.comparisons = std::move(comparisons);
    f.verdicts.push_back(lv);
  }
};

const std::string L1 = "1[task-clock]";
const std::string L2 = "2[task-clock,page-faults]";
const std::string LPF = "1[page-faults]";

Findings fixture_findings(const Plan& plan) {
  Builder b{plan, {}};
  Findings& f = b.f;
  f.metrics = {{"task-clock", "ns", false, 0, true}, {"page-faults", "count", false, 1, true},
               {"wall-time", "ns", true, std::nullopt, true}, {"user-time", "ns", true, std::nullopt, false}};
  f.runs = 200;
  f.measured_blocks = 20;
  f.warmup_runs_dropped = 10;
  f.margin = 0.01;
  f.alpha = 0.05;
  f.looks_planned = 4;

  // task-clock at dose 2: moves under held as under natural: the counting itself.
  b.verdict(0, L2, Verdict::perturbed, "held: +4.0% [+3.1%, +4.9%], Holm p = 0.0002",
            {b.add(0, L2, "natural", L1, 0.041, 0.032, 0.050, 0.0001, 0.0004),
             b.add(0, L2, "held", L1, 0.040, 0.031, 0.049, 0.0001, 0.0002),
             b.add(0, L2, "sham", L1, 0.002, -0.003, 0.007, 0.41, 1.0)});
  // page-faults at dose 2 against page-faults alone; sham programs task-clock only, so
  // it has no page-faults comparison (an empty cell).
  b.verdict(1, L2, Verdict::explained_by_layout,
            "natural: +2.6% [+1.9%, +3.3%]; held equivalent within ±1% (TOST p = 0.003)",
            {b.add(1, L2, "natural", LPF, 0.026, 0.019, 0.033, 0.0001, 0.0009),
             b.add(1, L2, "held", LPF, 0.001, -0.004, 0.006, 0.62, 1.0)});
  b.verdict(2, L2, Verdict::not_perturbed, "equivalent within ±1% under natural, held, sham (TOST p ≤ 0.004)",
            {b.add(2, L2, "natural", L1, 0.003, -0.002, 0.008, 0.22, 1.0),
             b.add(2, L2, "held", L1, 0.001, -0.003, 0.005, 0.58, 1.0),
             b.add(2, L2, "sham", L1, -0.002, -0.006, 0.003, 0.37, 1.0)});
  b.verdict(2, LPF, Verdict::incomparable,
            "run 37 (counters=1[page-faults]/held) exited with code 1 (baseline exits 0)",
            {b.add(2, LPF, "natural", L1, 0.012, -0.030, 0.056, 0.57, 1.0),
             b.add(2, LPF, "held", L1, 0.154, 0.020, 0.288, 0.03, 0.41),
             b.add(2, LPF, "sham", L1, -0.008, -0.041, 0.025, 0.63, 1.0)});
  b.verdict(3, L2, Verdict::inconclusive, "held: a changepoint at block 12 changes the conclusion",
            {b.add(3, L2, "natural", L1, 0.009, -0.015, 0.034, 0.44, 1.0),
             b.add(3, L2, "held", L1, 0.011, -0.006, 0.028, 0.19, 1.0),
             b.add(3, L2, "sham", L1, 0.004, -0.012, 0.020, 0.61, 1.0)});
  const std::size_t no_pairs = b.add(3, LPF, "sham", L1, NAN, NAN, NAN, NAN, NAN);
  if (no_pairs != Builder::kSkipped) f.comparisons[no_pairs].n = 0;
  b.verdict(3, LPF, Verdict::not_perturbed, "equivalent within ±1% under natural, held (TOST p ≤ 0.01)",
            {b.add(3, LPF, "natural", L1, -0.0005, -0.004, 0.003, 0.81, 1.0),
             b.add(3, LPF, "held", L1, 0.0021, -0.0019, 0.0061, 0.30, 1.0), no_pairs});
  for (Comparison& c : f.comparisons)
    if (c.metric == 3 && c.layout == Layout::held && c.dose == 2) c.drift = "a changepoint at block 12";

  // A/A: the baseline's duplicate against the baseline (driver metrics and the first
  // counter), under the plan's first layout.
  const std::string first(to_string(plan.spec.layouts.front()));
  f.aa.comparisons = {b.add(0, L1, first, L1, 0.0012, -0.0031, 0.0055, 0.58, 0.58, true),
                      b.add(2, L1, first, L1, 0.0005, -0.0020, 0.0030, 0.70, 0.70, true),
                      b.add(3, L1, first, L1, -0.0010, -0.0060, 0.0040, 0.69, 0.69, true)};
  f.aa.ok = true;

  f.trends = {{0, Layout::held, 2, 20, 100, 4.5e-6, 1.0, "Page's L test (normal approximation)"},
              {2, Layout::held, 2, 20, 58, 0.41, 0.59, "Page's L test (normal approximation)"}};
  f.incomparable = {{37, config_index(plan, "counters=1[page-faults]/held"), "exited with code 1 (baseline exits 0)"}};
  f.notes = {"warm-up: the first block (10 runs) was dropped",
             "user-time: a changepoint at block 12 in the held differences"};
  f.metric_verdicts = {Verdict::perturbed, Verdict::explained_by_layout, Verdict::incomparable,
                       Verdict::inconclusive};
  f.decisive = false;
  return f;
}

CheckContext fixture_context() {
  CheckContext ctx;
  ctx.argv = {"./compute", "1000000", "two words"};
  ctx.mode = "inprocess";
  ctx.seed = 42;
  ctx.journal_path = "/tmp/obscheck-check.jsonl";
  HostInfo h;
  h.hostname = "bench1";
  h.kernel_release = "6.1.0-18-amd64";
  h.arch = "x86_64";
  h.cpu_model = "Intel Xeon Processor (Icelake)";
  h.online_cpus = {0, 1};
  h.virtualized = true;
  h.hypervisor = "KVM";
  ctx.host = h;
  Finding vm{"virtual-machine", Severity::warning, "running under KVM",
             "a hypervisor adds scheduling noise", ""};
  Finding gov{"no-cpufreq", Severity::info, "no cpufreq", "frequency is the hypervisor's", ""};
  Finding aslr{"aslr", Severity::warning, "ASLR is on (randomize_va_space = 2)",
               "layout changes from run to run", "sudo sysctl kernel.randomize_va_space=0"};
  ctx.doctor = {vm, gov, aslr};
  ctx.env_bytes = 2048;
  ctx.complete = true;
  ctx.runs_planned = 810;
  ctx.runs_done = 210;
  ctx.warnings = {"dropped (--allow-missing): cycles (not supported on this host)"};
  return ctx;
}

}  // namespace

TEST_CASE("check text report matches its golden file") {
  const Plan plan = fixture_plan();
  check_golden("check.txt", check_text(plan, fixture_findings(plan), fixture_context(), false));
}

TEST_CASE("check text report with a failed A/A control matches its golden file") {
  const Plan plan = fixture_plan();
  Findings f = fixture_findings(plan);
  f.aa.ok = false;
  f.aa.reason = "wall-time: +1.8% [+1.2%, +2.4%] between two identical configurations";
  Comparison& wall_aa = f.comparisons[f.aa.comparisons[1]];
  wall_aa.effect = 0.018;
  wall_aa.ci_lo = 0.012;
  wall_aa.ci_hi = 0.024;
  const std::string text = check_text(plan, f, fixture_context(), false);
  CHECK(text.find("A/A control: FAILED — wall-time: +1.8% [+1.2%, +2.4%] between two identical configurations") !=
        std::string::npos);
  CHECK(text.find("within ±1% on every metric") == std::string::npos);
  check_golden("check_aa_failed.txt", text);
}

TEST_CASE("check text report in external mode (held only) matches its golden file") {
  // One layout leaves room for the verdict column beside the effects.
  const Plan plan = fixture_plan(CountingMode::external);
  CheckContext ctx = fixture_context();
  ctx.mode = "external";
  const std::string text = check_text(plan, fixture_findings(plan), ctx, false);
  CHECK(text.find("    level                      held                   verdict") != std::string::npos);
  CHECK(text.find("    2[task-clock,page-faults]  +4.0% [+3.1, +4.9]     perturbed by the measurement\n") !=
        std::string::npos);
  check_golden("check_external.txt", text);
}

TEST_CASE("check text report: table first, every verdict named, plots per compared metric") {
  const Plan plan = fixture_plan();
  const Findings f = fixture_findings(plan);
  CheckContext verbose = fixture_context();
  verbose.verbose = true;
  const std::string text = check_text(plan, f, verbose, false);
  const auto table = text.find("verdicts:");
  const auto first_plot = text.find("task-clock (ns): effect vs dose");
  REQUIRE(table != std::string::npos);
  REQUIRE(first_plot != std::string::npos);
  CHECK(table < first_plot);
  CHECK(table < text.find("A/A control:"));
  CHECK(first_plot < text.find("\nhost\n"));
  CHECK(text.find("\nhost\n") < text.find("\nmethods:\n"));
  for (Verdict v : {Verdict::perturbed, Verdict::explained_by_layout, Verdict::not_perturbed, Verdict::incomparable,
                    Verdict::inconclusive})
    CHECK(text.find(std::string(verdict_text(v))) != std::string::npos);
  // One plot per metric with comparisons: all four here.
  for (const char* m : {"task-clock (ns)", "page-faults (count)", "wall-time (ns)", "user-time (ns)"})
    CHECK(text.find(std::string(m) + ": effect vs dose") != std::string::npos);
  CHECK(text.find("run 37 (counters=1[page-faults]/held): exited with code 1 (baseline exits 0)") != std::string::npos);
  CHECK(text.find("A/A control: no significant difference on 3 metrics; resolution ±0.6%, within ±1% on all") !=
        std::string::npos);
  CHECK(text.find("    counters=1[task-clock]/natural#aa against counters=1[task-clock]/natural, 20 paired blocks\n"
                  "    task-clock  +0.12% [-0.31, +0.55]\n") != std::string::npos);
  CHECK(text.find("obscheck: ./compute 1000000 'two words'") == 0);
  CHECK(text.find("mode inprocess; 20 measured blocks × 10 configurations = 200 runs; seed 42") != std::string::npos);
  // Doctor: warnings with their fix, info left out.
  CHECK(text.find("aslr: ASLR is on (randomize_va_space = 2); fix: sudo sysctl kernel.randomize_va_space=0") !=
        std::string::npos);
  CHECK(text.find("no-cpufreq") == std::string::npos);
  // 17 comparisons besides the A/A; the sham one without pairs carries no p-value.
  CHECK(text.find("multiplicity: Holm over the 11 comparisons of the named counters and wall time") != std::string::npos);
  CHECK(text.find("sequential: the data were looked at 4 times; every look is valid on its own") != std::string::npos);
  CHECK(text.find(kCi) != std::string::npos);
  CHECK(text.find(kP) != std::string::npos);
  // The table and the plots fit 120 columns.
  for (const auto& line : lines_of(text.substr(0, text.find("\nhost\n")))) {
    INFO(line);
    CHECK(columns(line) <= 120);
  }
}

TEST_CASE("check text report: the summary comes first, driver metrics with nothing to act on only with --verbose") {
  const Plan plan = fixture_plan();
  const Findings f = fixture_findings(plan);
  CheckContext ctx = fixture_context();
  ctx.exit_code = 1;
  const std::string text = check_text(plan, f, ctx, false);
  const auto overall = text.find("  overall: ");
  REQUIRE(overall != std::string::npos);
  CHECK(overall < text.find("verdicts:"));
  CHECK(text.find("; exit 1\n") != std::string::npos);
  // user-time is a driver metric the fixture leaves undecided: named in one line, no rows.
  CHECK(text.find("user-time: nothing to act on") != std::string::npos);
  CHECK(text.find("user-time (ns):") == std::string::npos);
  ctx.verbose = true;
  CHECK(check_text(plan, f, ctx, false).find("user-time (ns):") != std::string::npos);
  for (const auto& line : lines_of(text.substr(0, text.find("verdicts:")))) {
    INFO(line);
    CHECK(columns(line) <= 120);
  }
}

TEST_CASE("check text report colours only when asked") {
  const Plan plan = fixture_plan();
  const Findings f = fixture_findings(plan);
  const std::string plain = check_text(plan, f, fixture_context(), false);
  CheckContext verbose = fixture_context();
  verbose.verbose = true;
  const std::string colour = check_text(plan, f, verbose, true);
  CHECK(plain.find('\x1b') == std::string::npos);
  CHECK(colour.find("\x1b[31mperturbed by the measurement\x1b[0m") != std::string::npos);
  CHECK(colour.find("\x1b[33mexplained by layout\x1b[0m") != std::string::npos);
  CHECK(colour.find("\x1b[32mnot perturbed") != std::string::npos);
  CHECK(colour.find("\x1b[35mincomparable\x1b[0m") != std::string::npos);
  CHECK(colour.find("\x1b[2minconclusive\x1b[0m") != std::string::npos);
}

TEST_CASE("check JSON report matches its golden file and has the documented keys") {
  const Plan plan = fixture_plan();
  const Findings f = fixture_findings(plan);
  const std::string text = check_json(plan, f, fixture_context());
  check_golden("check.json", text);
  const auto j = nlohmann::json::parse(text);
  CHECK(j.at("schema") == "obscheck-check-report");
  CHECK(j.at("version") == 1);
  for (const char* key : {"context", "plan", "summary", "metrics", "comparisons", "verdicts", "trends", "aa",
                          "incomparable", "notes", "methods"})
    CHECK(j.contains(key));
  CHECK(j.at("comparisons").size() == f.comparisons.size());
  CHECK(j.at("verdicts").size() == 6);
  CHECK(j.at("plan").at("configs").size() == 10);
  CHECK(j.at("plan").at("configs").at(4).at("id") == "counters=2[task-clock,page-faults]/held");
  CHECK(j.at("plan").at("configs").at(5).at("programmed") == nlohmann::json({"task-clock"}));  // sham
  CHECK(j.at("metrics").at(1).at("verdict") == "layout");
  const auto& c0 = j.at("comparisons").at(0);
  for (const char* key : {"metric", "metric_name", "config", "config_id", "baseline", "baseline_id", "level_index",
                          "level", "dose", "layout", "aa", "n", "effect", "ci", "p", "p_holm", "p_method",
                          "significant", "equivalent", "outside_margin", "median_config", "median_baseline", "scale",
                          "margin", "coverage", "bound", "blocks_needed", "drift"})
    CHECK(c0.contains(key));
  CHECK(c0.at("effect") == 0.041);
  // NaN becomes null.
  bool saw_null = false;
  for (const auto& c : j.at("comparisons"))
    if (c.at("n") == 0) saw_null = c.at("effect").is_null() && c.at("ci").at("lo").is_null() && c.at("p").is_null();
  CHECK(saw_null);
  CHECK(j.at("context").at("host").at("hostname") == "bench1");
  CHECK(j.at("incomparable").at(0).at("run") == 37);
}

TEST_CASE("every key of the JSON report is described in docs/report-schema.md") {
  const Plan plan = fixture_plan();
  const auto j = nlohmann::json::parse(check_json(plan, fixture_findings(plan), fixture_context()));
  std::ifstream in(fs::path(OBSCHECK_SOURCE_DIR) / "docs" / "report-schema.md");
  REQUIRE(in.good());
  std::stringstream doc;
  doc << in.rdbuf();
  std::set<std::string> keys;
  // context.host is HostInfo's own JSON (host/host_info.h), documented there.
  std::function<void(const nlohmann::json&)> walk = [&](const nlohmann::json& v) {
    if (v.is_object()) {
      for (const auto& [k, x] : v.items()) {
        keys.insert(k);
        if (k != "host") walk(x);
      }
    } else if (v.is_array()) {
      for (const auto& x : v) walk(x);
    }
  };
  walk(j);
  CHECK(keys.size() > 60);
  for (const auto& k : keys) {
    INFO(k);
    CHECK(doc.str().find("`" + k + "`") != std::string::npos);
  }
}

TEST_CASE("check CSV report: a header and one row per comparison, RFC 4180 quoting") {
  const Plan plan = fixture_plan();
  const Findings f = fixture_findings(plan);
  const std::string csv = check_csv(plan, f);
  check_golden("check.csv", csv);
  const auto lines = lines_of(csv);
  CHECK(lines.size() == f.comparisons.size() + 1);
  CHECK(lines.front() ==
        "metric,unit,config_id,level,dose,layout,aa,n,effect,ci_lo,ci_hi,p,p_holm,significant,equivalent,verdict,"
        "reason,running_min,running_median,scaled_runs,never_ran,faults,baseline_running_min,baseline_running_median,"
        "baseline_scaled_runs,baseline_never_ran,baseline_faults,determinism");
  CHECK(lines.at(1) ==
        "task-clock,ns,\"counters=2[task-clock,page-faults]/natural\",\"2[task-clock,page-faults]\",2,natural,false,"
        "20,0.041,0.032,0.05,0.0001,0.0004,true,false,perturbed,\"held: +4.0% [+3.1%, +4.9%], Holm p = 0.0002\""
        ",,,,,,,,,,,");
  // The A/A rows carry no verdict.
  CHECK(lines.back() ==
        "user-time,ns,counters=1[task-clock]/natural#aa,1[task-clock],1,natural,true,20,-0.001,-0.006,0.004,0.69,"
        "0.69,false,true,,,,,,,,,,,,,");
}

TEST_CASE("check Markdown report matches its golden file") {
  const Plan plan = fixture_plan();
  const std::string md = check_markdown(plan, fixture_findings(plan), fixture_context());
  check_golden("check.md", md);
  CHECK(md.find("| metric | level | natural | held | sham | verdict | reason |") != std::string::npos);
  CHECK(md.find("|---|---|---|---|---|---|---|") != std::string::npos);
}

TEST_CASE("check reporters accept findings without any comparison") {
  const Plan plan = fixture_plan();
  Findings f;
  f.metrics = {{"wall-time", "ns", true, std::nullopt, true}};
  CheckContext ctx;
  ctx.argv = {"./prog"};
  ctx.complete = false;
  const std::string text = check_text(plan, f, ctx, false);
  CHECK(text.find("verdicts: none yet") != std::string::npos);
  CHECK(text.find("A/A control: no paired blocks yet") != std::string::npos);
  CHECK(text.find("effect vs dose") == std::string::npos);
  CHECK(text.find("host: not recorded") != std::string::npos);
  CHECK(text.find("(incomplete)") != std::string::npos);
  CHECK(nlohmann::json::parse(check_json(plan, f, ctx)).at("comparisons").empty());
  CHECK(lines_of(check_csv(plan, f)).size() == 1);
  CHECK(check_markdown(plan, f, ctx).find("| (no verdicts yet) | | | | | | |") != std::string::npos);
}

TEST_CASE("format_effect_ci picks decimals from the largest magnitude") {
  CHECK(format_effect_ci(0.041, 0.032, 0.050) == "+4.1% [+3.2, +5.0]");
  CHECK(format_effect_ci(0.0012, -0.0031, 0.0055) == "+0.12% [-0.31, +0.55]");
  CHECK(format_effect_ci(1.5, 1.2, 1.8) == "+150% [+120, +180]");
  CHECK(format_effect_ci(-0.0, -0.001, 0.001) == "+0.00% [-0.10, +0.10]");
  CHECK(format_effect_ci(0.02, NAN, NAN) == "+2.0%");
  CHECK(format_effect_ci(NAN, 0, 1) == "n/a");
}

TEST_CASE("render_plot draws bars, markers, zero and guides at hand-computed rows") {
  // Range [-1, +3] over 5 rows: row r holds the value 3 - r (zero on row 3, the -1
  // guide on row 4). Slots are 2 * 2 + 2 = 6 columns wide; natural sits at column
  // 6 + 1 = 7 of slot 1, held at 9; the tick labels at each slot's centre (2, 8).
  TextPlot p;
  p.slots = {"1", "2"};
  p.series = {{'n', "natural"}, {'h', "held"}};
  p.rows = 5;
  p.guides = {-1};
  p.points = {{1, 0, 2, 1, 3}, {1, 1, 0, -1, 1}};
  const auto lines = lines_of(render_plot(p, ""));
  REQUIRE(lines.size() == 7);
  CHECK(lines[0] == "+3.0% |       |");
  CHECK(lines[1] == "      |       n");
  CHECK(lines[2] == "      |       | |");
  CHECK(lines[3] == " 0.0% |---------h--");
  CHECK(lines[4] == "-1.0% |.........|..");
  CHECK(lines[5] == "      +------------");
  CHECK(lines[6] == "         1     2");
  CHECK(render_plot(TextPlot{}, "  ").empty());
}

namespace {

// A check where nothing moved: both counters and wall time within ±1% (external mode).
Findings null_findings(const Plan& plan) {
  Builder b{plan, {}};
  Findings& f = b.f;
  f.metrics = {{"task-clock", "ns", false, 0, true}, {"page-faults", "count", false, 1, true},
               {"wall-time", "ns", true, std::nullopt, true}, {"user-time", "ns", true, std::nullopt, false}};
  f.runs = 200;
  f.measured_blocks = 20;
  f.margin = 0.01;
  b.verdict(0, L2, Verdict::not_perturbed, "within ±1% under held +0.20% [-0.40, +0.80]",
            {b.add(0, L2, "held", L1, 0.002, -0.004, 0.008, 0.5, 1)});
  b.verdict(1, L2, Verdict::not_perturbed, "within ±1% under held +0.00% [+0.00, +0.00]",
            {b.add(1, L2, "held", LPF, 0, 0, 0, 1, 1)});
  b.verdict(2, L2, Verdict::not_perturbed, "within ±1% under held +0.10% [-0.50, +0.70]",
            {b.add(2, L2, "held", L1, 0.001, -0.005, 0.007, 0.7, 1)});
  b.verdict(3, L2, Verdict::inconclusive, "no effect beyond ±3%",
            {b.add(3, L2, "held", L1, 0.01, -0.03, 0.02, 0.6, 1)});
  b.add(0, L1, "held", L1, 0.001, -0.006, 0.007, 0.8, 1, true);
  b.add(2, L1, "held", L1, -0.002, -0.007, 0.004, 0.6, 1, true);
  f.metric_verdicts = {Verdict::not_perturbed, Verdict::not_perturbed, Verdict::not_perturbed, Verdict::inconclusive};
  f.decisive = false;
  return f;
}

}  // namespace

TEST_CASE("check summary of a null check: text and Markdown golden files") {
  const Plan plan = fixture_plan(CountingMode::external);
  const Findings f = null_findings(plan);
  CheckContext ctx = fixture_context();
  ctx.mode = "external";
  ctx.exit_code = 0;
  std::string summary;
  for (const std::string& line : summary_lines(plan, f, ctx)) summary += line + "\n";
  check_golden("summary-null.txt", summary);
  const std::string md = check_markdown(plan, f, ctx);
  check_golden("summary-null.md", md.substr(0, md.find("| metric | level |")));
  CHECK(summary.find("task-clock   not perturbed: within ±1% at the dose") == 0);
  CHECK(summary.find("overall: not perturbed (within ±ε); exit 0") != std::string::npos);
}

TEST_CASE("check summary of a one-counter check against level 0: text golden file") {
  PlanSpec s;
  s.counters = {"task-clock"};
  s.levels = counter_levels(s.counters, true);
  s.layouts = layouts_for(CountingMode::external);
  s.seed = 42;
  const Plan plan = make_plan(s);
  Builder b{plan, {}};
  Findings& f = b.f;
  f.metrics = {{"task-clock", "ns", false, 0, true}, {"wall-time", "ns", true, std::nullopt, true}};
  f.runs = 60;
  f.measured_blocks = 20;
  f.margin = 0.01;
  b.verdict(1, L1, Verdict::not_perturbed, "within ±1% under held +0.31% [-0.22, +0.85]",
            {b.add(1, L1, "held", "0[none]", 0.0031, -0.0022, 0.0085, 0.4, 1)});
  b.add(1, "0[none]", "held", "0[none]", 0.001, -0.006, 0.007, 0.8, 1, true);
  f.metric_verdicts = {Verdict::inconclusive, Verdict::not_perturbed};
  CheckContext ctx = fixture_context();
  ctx.mode = "external";
  ctx.exit_code = 0;
  std::string summary;
  for (const std::string& line : summary_lines(plan, f, ctx)) summary += line + "\n";
  check_golden("summary-one-counter.txt", summary);
  CHECK(summary.find("level 0 (no counter) cannot measure it") != std::string::npos);
  CHECK(summary.find("wall-time   not perturbed: within ±1% at the dose (1 counter: +0.31% [-0.22, +0.85]") !=
        std::string::npos);
}

namespace {

// The fixture with page-faults' validity: exact and the same in every run alone,
// scaled in 12 of 20 runs beside task-clock (running half of the run at least).
Findings findings_with_counters(const Plan& plan) {
  Findings f = fixture_findings(plan);
  CounterValidity v;
  v.metric = 1;
  v.determinism = Determinism::deterministic;
  v.determinism_text = "the same count (132) in all 20 runs of counters=1[page-faults]/natural";
  CounterRunning alone;
  alone.config = config_index(plan, "counters=1[page-faults]/natural");
  alone.runs = 20;
  alone.running_min = alone.running_median = 1;
  alone.identical = true;
  CounterRunning beside;
  beside.config = config_index(plan, "counters=2[task-clock,page-faults]/natural");
  beside.runs = 20;
  beside.running_min = 0.5;
  beside.running_median = 0.75;
  beside.scaled_runs = 12;
  beside.max_scale = 2;
  beside.faults = 1;
  v.configs = {alone, beside};
  v.scaled_runs = 12;
  v.faults = 1;
  f.counters = {v};
  return f;
}

}  // namespace

TEST_CASE("check reports: counter validity in the CSV, per comparison and its baseline") {
  const Plan plan = fixture_plan();
  const auto lines = lines_of(check_csv(plan, findings_with_counters(plan)));
  CHECK(lines.front().ends_with(",reason,running_min,running_median,scaled_runs,never_ran,faults,baseline_running_min,"
                                "baseline_running_median,baseline_scaled_runs,baseline_never_ran,baseline_faults,"
                                "determinism"));
  std::size_t seen = 0;
  for (const std::string& line : lines) {
    if (line.starts_with("page-faults,count,\"counters=2[task-clock,page-faults]/natural\"")) {
      ++seen;
      CHECK(line.ends_with(",0.5,0.75,12,0,1,1,1,0,0,0,deterministic"));
    }
    // A driver metric, and task-clock, whose validity the findings do not hold: empty cells.
    if (line.starts_with("wall-time,") || line.starts_with("task-clock,")) CHECK(line.ends_with(",,,,,,,,,,,"));
  }
  CHECK(seen == 1);
}

TEST_CASE("check reports: counter validity in the Markdown, the text and the HTML say the same") {
  const Plan plan = fixture_plan();
  const Findings f = findings_with_counters(plan);
  const std::string md = check_markdown(plan, f, fixture_context());
  CHECK(md.find("\n**Counters** (running = time running / time enabled, min / median over the runs; determinism "
                "over the A/A runs, else the counter's reference)\n\n"
                "- `page-faults`: the same count (132) in all 20 runs of counters=1[page-faults]/natural "
                "(deterministic)\n\n"
                "| counter | configuration | runs | running min | running median | readings |\n"
                "|---|---|---|---|---|---|\n"
                "| page-faults | `counters=1[page-faults]/natural` | 20 | 100% | 100% | exact, the same count in every "
                "run |\n"
                "| page-faults | `counters=2[task-clock,page-faults]/natural` | 20 | 50% | 75% | scaled in 12 (up to "
                "x2.00), fault in 1 (no value) |\n") != std::string::npos);
  const std::string text = check_text(plan, f, fixture_context(), false);
  CHECK(text.find("  page-faults: the same count (132) in all 20 runs of counters=1[page-faults]/natural\n") !=
        std::string::npos);
  CHECK(text.find("running  50% /  75%  scaled in 12 (up to x2.00), fault in 1 (no value)\n") != std::string::npos);
  const std::string html = check_html(plan, f, fixture_context(), {});
  CHECK(html.find("<section id=\"counters\">") != std::string::npos);
  CHECK(html.find("<span class=\"determinism\" data-determinism=\"deterministic\">deterministic</span>: the same "
                  "count (132) in all 20 runs of counters=1[page-faults]/natural</li>") != std::string::npos);
  CHECK(html.find("<tr data-metric=\"page-faults\" data-config=\"counters=2[task-clock,page-faults]/natural\">"
                  "<td>page-faults</td><td><code>counters=2[task-clock,page-faults]/natural</code></td>"
                  "<td class=\"num\">20</td><td class=\"num\">50%</td><td class=\"num\">75%</td>"
                  "<td>scaled in 12 (up to x2.00), fault in 1 (no value)</td></tr>") != std::string::npos);
  // No counter read: no section in any form.
  const Findings none = fixture_findings(plan);
  CHECK(check_markdown(plan, none, fixture_context()).find("**Counters**") == std::string::npos);
  CHECK(check_html(plan, none, fixture_context(), {}).find("id=\"counters\"") == std::string::npos);
}
