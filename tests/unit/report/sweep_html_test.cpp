// The pages of `obscheck bias` and `obscheck compare` on fixed reports
// (sweep_fixture.h): the figures' elements counted, the reference lines, the tables
// and sections, and the pages rendered in headless Chromium.
#include <catch2/catch.hpp>
#include <unistd.h>

#include <fstream>
#include <string>

#include "chromium.h"
#include "report/measure_report.h"
#include "report/svg.h"
#include "report/sweep_html.h"
#include "sweep_fixture.h"

using namespace obscheck;
using namespace obscheck::test;

namespace {

SweepPageContext no_host() { return {}; }

SweepPageContext some_host() {
  SweepPageContext ctx;
  ctx.host = {{"hostname", "lab"}};  // not a full HostInfo: the page says so and goes on
  ctx.doctor = {{{"id", "cpu-governor"}, {"severity", "warning"}, {"what", "governor is powersave"},
                 {"why", "frequency changes"}, {"fix", "cpupower frequency-set -g performance"}},
                {{"id", "smt"}, {"severity", "info"}, {"what", "x"}, {"why", "y"}, {"fix", "z"}}};
  ctx.warnings = {"a warning"};
  return ctx;
}

}  // namespace

TEST_CASE("bias chart: one point and interval per context, every clean run, the median line, bytes added on x") {
  const SweepReport r = bias_fixture();
  const std::string out = bias_contexts_svg(r, 0);
  CHECK(out.rfind("<svg ", 0) == 0);
  CHECK(count(out, "class=\"plot bias-contexts\"") == 1);
  CHECK(count(out, "data-metric=\"task-clock\"") == 1);
  CHECK(count(out, "class=\"point\"") == 4);
  CHECK(count(out, "class=\"ci-bar\"") == 4);
  CHECK(count(out, "class=\"raw-point\"") == 12);  // 4 contexts × 3 runs; the failed run is not drawn
  CHECK(count(out, "class=\"ref-line\"") == 1);
  CHECK(count(out, "data-ref=\"median\"") == 1);
  CHECK(count(out, "class=\"zero-line\"") == 0);
  // The pad (the bytes added, as the text report's "env+N" labels), not the total.
  for (const char* bytes : {">0</text>", ">400</text>", ">800</text>", ">1200</text>"})
    CHECK(out.find(bytes) != std::string::npos);
  CHECK(out.find(">1000</text>") == std::string::npos);
  CHECK(out.find(">bytes added to the environment</text>") != std::string::npos);
  CHECK(out.find(">task-clock (ms)</text>") != std::string::npos);  // ~1e6 ns drawn in ms
  CHECK(out.find(">median of the context means</text>") != std::string::npos);
  CHECK(out.find(">every run</text>") != std::string::npos);
  CHECK(bias_contexts_svg(r, 1).empty());
}

TEST_CASE("bias chart: link-order contexts put the order on x, crossed dimensions the labels") {
  SweepReport r = bias_fixture();
  for (auto& c : r.contexts) {
    c.env_pad.reset();
    c.link_order = c.id;
  }
  CHECK(bias_contexts_svg(r, 0).find(">link order</text>") != std::string::npos);
  r.contexts[0].env_pad = 0;  // env and link crossed
  const std::string crossed = bias_contexts_svg(r, 0);
  CHECK(crossed.find(">measurement context</text>") != std::string::npos);
  CHECK(crossed.find(">env+400</text>") != std::string::npos);
}

TEST_CASE("compare ratios chart: every context's ratio per group, the estimates with their CI, the line at 1") {
  const SweepReport r = compare_fixture();
  const std::string out = compare_ratios_svg(r);
  CHECK(count(out, "class=\"plot compare-ratios\"") == 1);
  CHECK(count(out, "class=\"group\"") == 2);
  CHECK(count(out, "data-comparison=\"aa\"") == 1);
  CHECK(count(out, "data-comparison=\"main\"") == 1);
  CHECK(count(out, "class=\"run-point\"") == 10);
  CHECK(count(out, "class=\"violin\"") == 2);  // five spread values each
  CHECK(count(out, "class=\"estimate\"") == 2);
  CHECK(count(out, "class=\"ci-bar\"") == 2);
  CHECK(count(out, "data-ref=\"one\"") == 1);
  CHECK(out.find("<title>ratio: 1.0500 [1.0370, 1.0630] over 5 contexts</title>") != std::string::npos);
  CHECK(out.find(">1 = no difference</text>") != std::string::npos);
  CHECK(out.find(">ratio of task-clock means</text>") != std::string::npos);
}

TEST_CASE("compare contexts chart: the ratio per context, the overall ratio, its CI shaded, the line at 1") {
  const SweepReport r = compare_fixture();
  const std::string out = compare_contexts_svg(r);
  CHECK(count(out, "class=\"plot compare-contexts\"") == 1);
  CHECK(count(out, "class=\"series\"") == 2);
  CHECK(count(out, "class=\"point\"") == 10);
  CHECK(count(out, "class=\"ci-bar\"") == 0);  // per-context ratios have no interval
  CHECK(count(out, "class=\"band\"") == 1);
  CHECK(count(out, "data-ref=\"ratio\"") == 1);
  CHECK(count(out, "data-ref=\"one\"") == 1);
  for (const char* bytes : {">0</text>", ">400</text>"}) CHECK(out.find(bytes) != std::string::npos);  // bytes added

  SweepReport no_t = r;
  no_t.comparison->t.reset();
  no_t.aa.reset();
  const std::string bare = compare_contexts_svg(no_t);
  CHECK(count(bare, "class=\"band\"") == 0);
  CHECK(count(bare, "data-ref=\"ratio\"") == 0);
  CHECK(count(bare, "class=\"point\"") == 5);
  CHECK(count(compare_ratios_svg(no_t), "class=\"estimate\"") == 0);
  no_t.comparison->per_context.clear();
  CHECK(compare_contexts_svg(no_t).empty());
  CHECK(compare_ratios_svg(no_t).empty());
}

TEST_CASE("bias page: summary row, the figure, contexts, host, doctor warnings, methods, no script, no network") {
  const SweepReport r = bias_fixture();
  const std::string html = sweep_html(r, some_host());
  CHECK(html.rfind("<!DOCTYPE html>", 0) == 0);
  CHECK(html.size() > 7);
  CHECK(html.substr(html.size() - 8) == "</html>\n");
  CHECK(count(html, "<script") == 0);
  CHECK(count(html, "https://") == 0);
  CHECK(count(html, " src=") == 0);
  CHECK(count(html, "@media print") == 1);
  CHECK(count(html, "<table class=\"sweep-summary\">") == 1);
  CHECK(count(html, "<tr class=\"verdict-row verdict-perturbed\" data-metric=\"task-clock\">") == 1);
  CHECK(count(html, "measurement bias</span>") == 2);  // the summary and the figure's heading
  CHECK(count(html, "class=\"plot bias-contexts\"") == 1);
  CHECK(count(html, "<section id=\"contexts\">") == 1);
  CHECK(count(html, "<section id=\"host\">") == 1);
  CHECK(count(html, "<tr class=\"doctor-warning\">") == 1);  // the info finding is only counted
  CHECK(count(html, "1 informational doctor findings") == 1);
  CHECK(count(html, "<li class=\"warn\">a warning</li>") == 1);
  CHECK(count(html, "Target environment") == 0);
  CHECK(count(html, "<section id=\"methods\">") == 1);
  CHECK(html.find(svg::escape(r.bias[0].method)) != std::string::npos);
  CHECK(html.find(format_value(r.bias[0].median_of_means, "ns")) != std::string::npos);
  CHECK(sweep_svgs(r).size() == 1);
  CHECK(sweep_svgs(r)[0].first == "bias-task-clock.svg");
  CHECK(sweep_svgs(r)[0].second == bias_contexts_svg(r, 0));
}

TEST_CASE("compare page: the A/A row first, the verdict, both figures, the per-context ratios, methods") {
  const SweepReport r = compare_fixture();
  const std::string html = sweep_html(r, no_host());
  CHECK(count(html, "<script") == 0);
  CHECK(count(html, "<tr class=\"verdict-row verdict-not-perturbed\" data-comparison=\"aa\">") == 1);
  CHECK(count(html, "<tr class=\"verdict-row verdict-perturbed\" data-comparison=\"main\">") == 1);
  CHECK(html.find("data-comparison=\"aa\">") < html.find("data-comparison=\"main\">"));
  CHECK(count(html, "worse: the contender takes 5.0% longer") == 1);
  // In the verdict table, once (the figure's tooltip names it too).
  CHECK(count(html, "<td class=\"num\">1.0500 [1.0370, 1.0630]</td>") == 1);
  CHECK(count(html, paper_form(r.comparison->speedup, r.comparison->speedup_half_width)) == 1);
  CHECK(count(html, "class=\"plot compare-ratios\"") == 1);
  CHECK(count(html, "class=\"plot compare-contexts\"") == 1);
  CHECK(count(html, "Host: not recorded.") == 1);
  CHECK(count(html, "2000 resamples") == 1);
  CHECK(count(html, "The baseline differs from itself") == 0);
  const auto files = sweep_svgs(r);
  REQUIRE(files.size() == 2);
  CHECK(files[0].first == "compare-ratios.svg");
  CHECK(files[1].first == "compare-contexts.svg");

  SweepReport failed_aa = r;
  failed_aa.aa->outcome = Outcome::worse;
  CHECK(count(sweep_html(failed_aa, no_host()), "The baseline differs from itself") == 1);
}

TEST_CASE("bias and compare pages render in headless Chromium without console errors, every plot element there") {
  if (access(kChromium, X_OK) != 0) {
    WARN("skipped: " << kChromium << " is not installed (tools/bootstrap installs it)");
    return;
  }
  TempDir dir;
  const std::string bias = dir.path + "/bias.html", compare = dir.path + "/compare.html";
  std::ofstream(bias) << sweep_html(bias_fixture(), some_host());
  std::ofstream(compare) << sweep_html(compare_fixture(), no_host());

  const ChromiumRun b = chromium(dir, bias, "--dump-dom");
  REQUIRE(b.status == 0);
  CHECK(console_lines(b.log) == 0);
  const std::string chart = between(b.dom, "class=\"plot bias-contexts\"", "</svg>");
  CHECK(count(chart, "class=\"point\"") == 4);
  CHECK(count(chart, "class=\"ci-bar\"") == 4);
  CHECK(count(chart, "class=\"raw-point\"") == 12);
  CHECK(count(chart, "data-ref=\"median\"") == 1);
  CHECK(count(b.dom, "<section id=\"host\">") == 1);

  const ChromiumRun c = chromium(dir, compare, "--dump-dom");
  REQUIRE(c.status == 0);
  CHECK(console_lines(c.log) == 0);
  const std::string ratios = between(c.dom, "class=\"plot compare-ratios\"", "</svg>");
  CHECK(count(ratios, "class=\"run-point\"") == 10);
  CHECK(count(ratios, "class=\"estimate\"") == 2);
  CHECK(count(ratios, "data-ref=\"one\"") == 1);
  const std::string contexts = between(c.dom, "class=\"plot compare-contexts\"", "</svg>");
  CHECK(count(contexts, "class=\"point\"") == 10);
  CHECK(count(contexts, "class=\"band\"") == 1);
  CHECK(count(contexts, "data-ref=\"one\"") == 1);

  for (const std::string& page : {bias, compare}) {
    const std::string png = page + ".png";
    const ChromiumRun shot = chromium(dir, page, "--screenshot=" + png + " --window-size=1280,1800");
    REQUIRE(shot.status == 0);
    CHECK(console_lines(shot.log) == 0);
    CHECK(png_size(read_file(png)) == std::pair<unsigned, unsigned>(1280, 1800));
  }
}

TEST_CASE("bias page: a multiplexed counter's metric is incomparable, named in the summary, scaled when allowed") {
  SweepReport r = bias_fixture();
  // The same values, with the counter running 0.5 of the first run of every context.
  std::vector<ContextSeries> series;
  for (const SweepContextRecord& c : r.contexts) series.push_back({c.id, c.label, {}, ""});
  for (const SweepRunRecord& run : r.runs) {
    if (!run.failure.empty()) continue;
    series[run.context].values.push_back(run.metrics.at(0).second);
    series[run.context].running.push_back(run.round == 0 ? 0.5 : 1.0);
  }
  r.bias = {analyse_bias("task-clock", series, 0.05)};
  const std::string strict = sweep_html(r, no_host());
  CHECK(count(strict, "<tr class=\"verdict-row verdict-incomparable\" data-metric=\"task-clock\">") == 1);
  CHECK(count(strict, "<tr class=\"reason-row\"><td colspan=\"6\" class=\"reason\">incomparable: task-clock "
                      "multiplexed in 4 of 12 runs (running fraction min 0.50, median 1.00); its values are estimates "
                      "scaled up from part of each run, not counts (fewer counters, or --allow-multiplex to compare "
                      "the estimates)</td></tr>") == 1);
  CHECK(count(strict, "measurement bias</span>") == 0);

  r.bias = {analyse_bias("task-clock", series, 0.05, 0.01, true)};
  const std::string allowed = sweep_html(r, no_host());
  CHECK(count(allowed, "<tr class=\"verdict-row verdict-perturbed\" data-metric=\"task-clock\">") == 1);
  CHECK(count(allowed, "measurement bias, scaled</span>") == 2);
  CHECK(count(allowed, "class=\"reason\">scaled: task-clock multiplexed in 4 of 12 runs") == 1);
}
