// Fixed sweep reports for the bias and compare pages: what `obscheck bias` and
// `obscheck compare` would hand the reporters, written out by hand so every count in
// the tests is known. The bias analysis is computed by analyse_bias on these values;
// the comparison is written as compare_variants would fill it (the reporters compute
// nothing, so the page must show exactly these numbers).
#pragma once

#include <cmath>
#include <string>
#include <vector>

#include "analysis/bias.h"
#include "analysis/compare.h"
#include "report/bias_report.h"

namespace obscheck::test {

// Four environment contexts (pad 0, 400, 800, 1200 bytes; blocks of 1000 to 2200
// bytes), three runs each of task-clock (ns): context 2 is 10% slower than the rest.
// One extra failed run in context 1 that the page must not draw.
inline SweepReport bias_fixture() {
  SweepReport r;
  r.command = obscheck::JobKind::bias;
  r.variants = {{"program", {"/bin/prog", "arg"}, "ab12"}};
  r.seed = 5;
  r.runs_per_context = 3;
  r.warmup = 1;
  r.events = "task-clock";
  r.metric = "task-clock";
  r.pad_name = "OBSCHECK_PAD";
  r.alpha = 0.05;
  const std::vector<std::vector<double>> values = {
      {1.00e6, 1.01e6, 0.99e6}, {1.00e6, 1.02e6, 1.01e6}, {1.10e6, 1.11e6, 1.09e6}, {0.99e6, 1.00e6, 1.01e6}};
  std::vector<ContextSeries> series;
  std::size_t seq = 0;
  for (std::size_t c = 0; c < values.size(); ++c) {
    SweepContextRecord cr;
    cr.id = c;
    cr.label = "env+" + std::to_string(400 * c);
    cr.env_pad = 400 * c;
    cr.env_bytes = 1000 + 400 * c;
    r.contexts.push_back(cr);
    series.push_back({c, cr.label, values[c], ""});
    for (std::size_t k = 0; k < values[c].size(); ++k) {
      SweepRunRecord run;
      run.seq = seq++;
      run.round = k;
      run.context = c;
      run.env_bytes = cr.env_bytes;
      run.metrics = {{"task-clock", values[c][k]}, {"wall-time", values[c][k] * 1.5}};
      r.runs.push_back(run);
    }
  }
  SweepRunRecord failed;
  failed.seq = seq++;
  failed.context = 1;
  failed.ok = false;
  failed.status = "exited with code 1";
  failed.failure = "exited with code 1";
  failed.metrics = {{"task-clock", 5e6}, {"wall-time", 5e6}};
  r.runs.push_back(failed);
  r.bias.push_back(analyse_bias("task-clock", series, 0.05));
  return r;
}

// Five environment contexts, a contender about 5% slower in each (ratios 1.04 to
// 1.06), and the A/A control within 0.3% of 1.
inline SweepReport compare_fixture() {
  SweepReport r;
  r.command = obscheck::JobKind::compare;
  r.variants = {{"baseline", {"/bin/base"}, "aa"}, {"contender", {"/bin/cont"}, "bb"}, {"baseline (A/A)", {"/bin/base"}, "aa"}};
  r.seed = 9;
  r.runs_per_context = 3;
  r.warmup = 1;
  r.events = "task-clock";
  r.metric = "task-clock";
  r.pad_name = "OBSCHECK_PAD";
  r.margin = 0.01;
  r.alpha = 0.05;
  const std::vector<double> ratios = {1.04, 1.05, 1.06, 1.05, 1.05}, aa = {1.002, 0.998, 1.0, 1.003, 0.997};
  VariantComparison main, control;
  for (std::size_t c = 0; c < ratios.size(); ++c) {
    SweepContextRecord cr;
    cr.id = c;
    cr.label = "env+" + std::to_string(100 * c);
    cr.env_pad = 100 * c;
    cr.env_bytes = 2000 + 100 * c;
    r.contexts.push_back(cr);
    main.per_context.push_back({c, cr.label, 1e6, 1e6 * ratios[c], ratios[c]});
    control.per_context.push_back({c, cr.label, 1e6, 1e6 * aa[c], aa[c]});
  }
  main.outcome = Outcome::worse;
  main.verdict = "worse: the contender takes 5.0% longer";
  main.contexts = 5;
  main.t = stats::TTestResult{11.2, 4, 0.0004, std::log(1.05), 0.0044, {std::log(1.037), std::log(1.063)}};
  main.ratio = 1.05;
  main.ratio_ci = {1.037, 1.063};
  main.speedup = 1 / 1.05;
  main.speedup_ci = {1 / 1.063, 1 / 1.037};
  main.speedup_half_width = (main.speedup_ci.hi - main.speedup_ci.lo) / 2;
  main.bootstrap = stats::HierarchicalResult{1.05, {1.041, 1.059}, 0.004, 2000};
  main.tost = stats::TostResult{-0.01, 0.01, 1, 0, 1, false};
  control.outcome = Outcome::equivalent;
  control.verdict = "no significant difference";
  control.contexts = 5;
  control.t = stats::TTestResult{0, 4, 1, 0, 0.0012, {-0.0033, 0.0033}};
  control.ratio = 1.0;
  control.ratio_ci = {0.9967, 1.0033};
  control.speedup = 1.0;
  control.speedup_ci = {0.9967, 1.0033};
  control.speedup_half_width = 0.0033;
  control.bootstrap = stats::HierarchicalResult{1.0, {0.997, 1.003}, 0.0015, 2000};
  control.tost = stats::TostResult{-0.01, 0.01, 0.001, 0.001, 0.001, true};
  r.comparison = main;
  r.aa = control;
  return r;
}

}  // namespace obscheck::test
