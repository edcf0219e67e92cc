// The HTML report of a real journal (tests/golden/report/fixture-check.jsonl, recorded
// with `obscheck --mode inprocess --counters task-clock,page-faults --runs 10 --seed 7
// --journal FILE -- compute 100` on a host without a PMU), and its rendering in
// headless Chromium.
#include <catch2/catch.hpp>
#include <stdlib.h>
#include <unistd.h>

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>

#include "analysis/check.h"
#include "host/doctor.h"
#include "host/host_info.h"
#include "record/journal.h"
#include "report/html_report.h"
#include "chromium.h"

using namespace obscheck;
using namespace obscheck::test;

namespace {

const std::string kFixture = std::string(OBSCHECK_GOLDEN_DIR) + "/report/fixture-check.jsonl";

struct Fixture {
  JournalData data;
  Plan plan;
  Findings findings;
  CheckContext ctx;
};

Fixture load_fixture() {
  Fixture fx;
  fx.data = load_journal(kFixture);
  fx.plan = plan_from_journal(fx.data);
  fx.findings = analyse_check(fx.plan, fx.data.runs, {0.01, 0.05, 1, fx.plan.seed()});
  fx.ctx.argv = fx.data.manifest.at("target").at("argv").get<std::vector<std::string>>();
  fx.ctx.mode = "inprocess";
  fx.ctx.seed = fx.plan.seed();
  fx.ctx.journal_path = "fixture-check.jsonl";
  fx.ctx.host = fx.data.manifest.at("host");
  HostInfo host;
  from_json(fx.ctx.host, host);
  for (const Finding& f : doctor_checks(host)) fx.ctx.doctor.push_back(f);
  fx.ctx.runs_done = fx.ctx.runs_planned = fx.data.runs.size();
  return fx;
}

std::size_t compared_metrics(const Findings& f) {
  std::size_t n = 0;
  for (std::size_t m = 0; m < f.metrics.size(); ++m)
    for (const Comparison& c : f.comparisons)
      if (!c.aa && c.metric == m) {
        ++n;
        break;
      }
  return n;
}

std::size_t metric_index(const Findings& f, const std::string& name) {
  for (std::size_t m = 0; m < f.metrics.size(); ++m)
    if (f.metrics[m].name == name) return m;
  FAIL("no metric " << name);
  return 0;
}

}  // namespace

TEST_CASE("html report of the fixture journal holds the verdict table, both figures per metric and the host") {
  const Fixture fx = load_fixture();
  const std::string html = check_html(fx.plan, fx.findings, fx.ctx, fx.data.runs);
  CHECK(html.rfind("<!DOCTYPE html>\n<html lang=\"en\">", 0) == 0);
  CHECK(html.substr(html.size() - 8) == "</html>\n");
  // Self-contained: no script, nothing fetched.
  CHECK(count(html, "<script") == 0);
  CHECK(count(html, "src=") == 0);
  CHECK(count(html, "href=\"http") == 0);
  CHECK(count(html, "@media print") == 1);

  // task-clock, page-faults and the seven driver metrics are all compared.
  REQUIRE(compared_metrics(fx.findings) == 9);
  CHECK(count(html, "<tr class=\"verdict-row") == fx.findings.verdicts.size());
  CHECK(count(html, "class=\"plot effect-curve\"") == 9);
  CHECK(count(html, "class=\"plot runs-strip\"") == 9);
  for (const std::string name : {"task-clock", "page-faults", "wall-time", "max-rss"}) {
    CHECK(count(html, "class=\"plot effect-curve\" data-metric=\"" + name + "\"") == 1);
    CHECK(count(html, "class=\"plot runs-strip\" data-metric=\"" + name + "\"") == 1);
  }

  const std::string curve = between(html, "data-metric=\"task-clock\"", "</svg>");
  CHECK(count(curve, "<g class=\"series\" data-layout=\"natural\">") == 1);
  CHECK(count(curve, "<g class=\"series\" data-layout=\"held\">") == 1);
  CHECK(count(curve, "<g class=\"series\" data-layout=\"sham\">") == 1);
  // 2[task-clock,page-faults] against 1[task-clock] under each layout; the reference at 0 has no bar.
  CHECK(count(curve, "class=\"ci-bar\"") == 3);
  CHECK(count(curve, "class=\"point\"") == 6);
  CHECK(count(curve, "class=\"band\"") == 1);

  // page-faults is compared at 2[...] against page-faults alone; sham does not count it there.
  const std::string pf = between(html, "class=\"plot effect-curve\" data-metric=\"page-faults\"", "</svg>");
  CHECK(count(pf, "class=\"ci-bar\"") == 2);

  // Every measured run with a task-clock reading is one point: prefix 1 and prefix 2 under
  // the three layouts (sham keeps the first counter) and the A/A copy, 7 configurations × 10 blocks.
  const std::string strip = between(html, "class=\"plot runs-strip\" data-metric=\"task-clock\"", "</svg>");
  CHECK(count(strip, "class=\"run-point\"") == 70);
  CHECK(count(strip, "<g class=\"group\"") == 7);
  CHECK(count(strip, "data-config=\"counters=1[task-clock]/natural#aa\"") == 1);
  const std::string pf_strip = between(html, "class=\"plot runs-strip\" data-metric=\"page-faults\"", "</svg>");
  CHECK(count(pf_strip, "class=\"run-point\"") == 50);

  CHECK(count(html, "<section id=\"host\">") == 1);
  CHECK(count(html, "<code>no-hardware-pmu</code>") == 1);
  CHECK(count(html, "<section id=\"methods\">") == 1);
  CHECK(count(html, "<td>interval</td>") >= 1);
  CHECK(count(html, "<section id=\"aa\">") == 1);
  CHECK(html == check_html(fx.plan, fx.findings, fx.ctx, fx.data.runs));  // a pure function
}

TEST_CASE("html check_svgs names one effect and one runs file per compared metric") {
  const Fixture fx = load_fixture();
  const auto files = check_svgs(fx.plan, fx.findings, fx.data.runs);
  REQUIRE(files.size() == 18);
  CHECK(files[0].first == "effect-task-clock.svg");
  CHECK(files[1].first == "runs-task-clock.svg");
  CHECK(files[2].first == "effect-page-faults.svg");
  bool minor = false;
  for (const auto& [name, svg] : files) {
    CHECK(svg.rfind("<svg xmlns=\"http://www.w3.org/2000/svg\"", 0) == 0);
    minor = minor || name == "effect-minor-faults-ru.svg";
  }
  CHECK(minor);
  CHECK(effect_curve_svg(fx.plan, fx.findings, metric_index(fx.findings, "task-clock")) == files[0].second);
}

TEST_CASE("html report before any measured block has no figures and says so") {
  const Fixture fx = load_fixture();
  Findings empty;
  empty.metrics = fx.findings.metrics;
  CheckContext ctx;  // host not recorded
  const std::string html = check_html(fx.plan, empty, ctx, {});
  CHECK(count(html, "No verdicts yet") == 1);
  CHECK(count(html, "class=\"plot") == 0);
  CHECK(count(html, "Host: not recorded.") == 1);
  CHECK(check_svgs(fx.plan, empty, {}).empty());
}

TEST_CASE("html report renders in headless Chromium without console errors and shows every figure") {
  if (access(kChromium, X_OK) != 0) {
    WARN("skipped: " << kChromium << " is not installed (tools/bootstrap installs it)");
    return;
  }
  const Fixture fx = load_fixture();
  TempDir dir;
  const std::string page = dir.path + "/report.html";
  std::ofstream(page) << check_html(fx.plan, fx.findings, fx.ctx, fx.data.runs);

  // The control: a page with a script error must show up in the log, or "no console
  // errors" below would prove nothing.
  const std::string bad = dir.path + "/bad.html";
  std::ofstream(bad) << "<!DOCTYPE html><html><body><script>undefined_function()</script></body></html>";
  const ChromiumRun control = chromium(dir, bad, "--dump-dom");
  REQUIRE(control.status == 0);
  CHECK(count(control.log, "Uncaught ReferenceError") == 1);

  const ChromiumRun r = chromium(dir, page, "--dump-dom");
  REQUIRE(r.status == 0);
  CHECK(console_lines(r.log) == 0);
  // The DOM as the browser parsed it: every figure and its parts are there.
  CHECK(count(r.dom, "class=\"plot effect-curve\"") == 9);
  CHECK(count(r.dom, "class=\"plot runs-strip\"") == 9);
  const std::string curve = between(r.dom, "data-metric=\"task-clock\"", "</svg>");
  CHECK(count(curve, "data-layout=\"natural\"") == 1);
  CHECK(count(curve, "data-layout=\"held\"") == 1);
  CHECK(count(curve, "data-layout=\"sham\"") == 1);
  CHECK(count(curve, "class=\"ci-bar\"") == 3);
  CHECK(count(r.dom, "<tr class=\"verdict-row") == fx.findings.verdicts.size());
  CHECK(count(r.dom, "<section id=\"host\">") == 1);

  const std::string png = dir.path + "/report.png";
  const ChromiumRun shot = chromium(dir, page, "--screenshot=" + png + " --window-size=1280,2400");
  REQUIRE(shot.status == 0);
  CHECK(console_lines(shot.log) == 0);
  const std::string image = read_file(png);
  REQUIRE(image.size() > 24);
  CHECK(png_size(image) == std::pair<unsigned, unsigned>(1280, 2400));
}
