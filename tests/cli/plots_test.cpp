// `obscheck bias --html/--svg` and `obscheck compare --html/--svg` run as a user runs
// them, on small sweeps of the bundled workloads: the page and the figure files are
// written, hold one plotted point per context and one raw point per run, and the
// text report on stdout is unchanged by asking for them.
#include <catch2/catch.hpp>
#include <stdlib.h>

#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>

#include "../unit/occurrences.h"
#include "run_cli.h"

using obscheck::test::count;
using obscheck::test::slurp;
using nlohmann::json;
using obscheck::test::run_cli;
using obscheck::test::workload;

namespace {

struct Dir {
  std::string path;
  Dir() {
    char tmpl[] = "/tmp/obscheck-plots-XXXXXX";
    REQUIRE(mkdtemp(tmpl) != nullptr);
    path = tmpl;
  }
  ~Dir() {
    std::error_code ec;
    std::filesystem::remove_all(path, ec);
  }
};

}  // namespace

TEST_CASE("bias --html --svg: one page and one figure per metric, a point per context and every run drawn") {
  Dir d;
  const std::string page = d.path + "/bias.html", figures = d.path + "/fig";
  auto r = run_cli({"bias", "--env-sizes", "0,400,800,1200", "-r", "3", "--seed", "5", "--html", page, "--svg",
                    figures, "--", workload("stackaddr")});
  INFO(r.err);
  REQUIRE((r.code == 0 || r.code == 1));
  CHECK(r.out.find("obscheck bias") != std::string::npos);  // the text report still goes to stdout
  CHECK(count(r.err, "obscheck: wrote " + page) == 1);
  CHECK(count(r.err, "wrote 2 figures to " + figures) == 1);
  const std::string html = slurp(page);
  REQUIRE(html.rfind("<!DOCTYPE html>", 0) == 0);
  CHECK(count(html, "<script") == 0);
  // task-clock (the metric) and wall-time, each with 4 contexts and 12 runs.
  CHECK(count(html, "class=\"plot bias-contexts\"") == 2);
  CHECK(count(html, "class=\"point\"") == 2 * 4);
  CHECK(count(html, "class=\"raw-point\"") == 2 * 12);
  CHECK(count(html, "data-ref=\"median\"") == 2);
  CHECK(count(html, "<tr class=\"verdict-row") == 2);
  CHECK(count(html, "<section id=\"host\">") == 1);
  CHECK(count(html, "<section id=\"methods\">") == 1);
  const std::string fig = slurp(figures + "/bias-task-clock.svg");
  CHECK(fig.rfind("<svg ", 0) == 0);
  CHECK(count(fig, "class=\"point\"") == 4);
  CHECK(std::filesystem::exists(figures + "/bias-wall-time.svg"));
  // Asking for pictures changes nothing on stdout.
  auto plain = run_cli({"bias", "--json", "--env-sizes", "0,400", "-r", "2", "--seed", "5", "--html",
                        d.path + "/b2.html", "--", workload("stackaddr")});
  REQUIRE((plain.code == 0 || plain.code == 1));
  CHECK(json::parse(plain.out).at("runs").size() == 4);
}

TEST_CASE("compare --aa --html --svg: the ratio distribution of both comparisons and the ratio per context") {
  Dir d;
  const std::string page = d.path + "/compare.html", figures = d.path + "/fig";
  auto r = run_cli({"compare", "--aa", "--env-sizes", "0:1200:400", "-r", "2", "--seed", "9", "--html", page,
                    "--svg", figures, "--", workload("extrawork"), "2000", ":::", workload("extrawork"), "2000", "10"});
  INFO(r.err);
  REQUIRE((r.code == 0 || r.code == 1));
  CHECK(r.out.find("baseline against contender") != std::string::npos);
  const std::string html = slurp(page);
  REQUIRE(html.rfind("<!DOCTYPE html>", 0) == 0);
  CHECK(count(html, "<script") == 0);
  CHECK(count(html, "class=\"plot compare-ratios\"") == 1);
  CHECK(count(html, "class=\"plot compare-contexts\"") == 1);
  // 4 contexts: one ratio per context in each of the two groups (A/A and the comparison).
  const std::string ratios = html.substr(html.find("class=\"plot compare-ratios\""));
  CHECK(count(ratios.substr(0, ratios.find("</svg>")), "class=\"run-point\"") == 2 * 4);
  CHECK(count(html, "data-ref=\"one\"") == 2);
  CHECK(count(html, "data-comparison=\"aa\"><td>") == 1);  // the summary rows
  CHECK(count(html, "data-comparison=\"main\"><td>") == 1);
  CHECK(std::filesystem::exists(figures + "/compare-ratios.svg"));
  CHECK(std::filesystem::exists(figures + "/compare-contexts.svg"));
}

TEST_CASE("bias --svg into a path that cannot be a directory is a file error naming it") {
  Dir d;
  std::ofstream(d.path + "/file") << "x";
  auto r = run_cli({"bias", "--env-sizes", "0,400", "-r", "2", "--seed", "5", "--svg", d.path + "/file/sub", "--",
                    workload("stackaddr")});
  CHECK(r.code == 6);
  CHECK(r.err.find(d.path + "/file/sub") != std::string::npos);
}
