// report/: the main job as pictures — one self-contained HTML page (`obscheck report
// JOURNAL --html FILE`) and the same figures as standalone SVG files (`--svg DIR`).
//
// The page needs no network and no script: CSS and SVG are inline (svg.h says why the
// SVG is written here), it reads in any browser and prints (an @media print sheet
// keeps figures whole and colours exact). Like every reporter it returns bytes, never
// writes files and computes no statistics: the effects, intervals and verdicts are the
// Findings'; the raw per-run values come from analysis/'s metric_value.
//
// What the page holds, in order (section ids in brackets):
//   header          command, mode, blocks × configurations, seed, margin, journal,
//                   runs done of planned, warnings;
//   [summary]       each compared metric's worst verdict;
//   [verdicts]      the verdict table, one row per metric × level, one column per layout
//                   (effect and CI), the verdict colour-coded, the reason;
//   [aa] [incomparable] [counters] [notes]  the A/A control, runs that break an
//                   assumption, each counter's validity (its determinism; per
//                   configuration the running fraction, scaled, never ran, faults), notes;
//   [metric-<slug>] per metric with comparisons: the effect against the dose
//                   (x = dose of the prefix levels, y = effect %, one series per layout
//                   with its own colour and marker shape, CI bars, the ±ε band shaded,
//                   zero line; the reference level at 0 by definition) — the paper's
//                   Figures 2, 3 and 12 — with its level legend, the levels measured
//                   alone, the medians and Page's trend test; then the raw values of
//                   every run per configuration (violin + jittered strip);
//   [host]          the host summary, the target's environment size, doctor warnings,
//                   the full host record (collapsed);
//   [methods]       every interval and test method used, with how many comparisons
//                   used it.
//
// Stable hooks for tests and stylesheets: <svg class="plot effect-curve"
// data-metric="NAME">, <g class="series" data-layout="natural|held|sham">,
// <line class="ci-bar">, <rect class="band">, <svg class="plot runs-strip"
// data-metric="NAME">, <g class="group" data-config="CONFIG ID">,
// <circle class="run-point">, <table class="verdicts"> with <tr class="verdict-row
// verdict-KEY" data-metric data-level>, <table class="counters"> with <tr data-metric
// data-config>, <section id="host">, <section id="methods">.
//
// Edge cases, as the other check reporters (check_report.h): no comparisons (no
// figures, the table says none yet), NaN effects ("n/a", no point drawn), metrics
// without comparisons (no figures), an empty host object ("not recorded"), runs whose
// config is not in the plan (ignored by the strip plots).
#pragma once

#include <string>
#include <utility>
#include <vector>

#include "analysis/findings.h"
#include "plan/plan.h"
#include "record/run_record.h"
#include "report/check_report.h"

namespace obscheck {

// The whole page; starts with "<!DOCTYPE html>", ends with "</html>\n".
std::string check_html(const Plan& plan, const Findings& f, const CheckContext& ctx,
                       const std::vector<RunRecord>& runs);

// One metric's effect-against-dose chart; "" when the metric has no comparison.
std::string effect_curve_svg(const Plan& plan, const Findings& f, std::size_t metric);

// One metric's raw values per configuration (measured runs only: warm-ups excluded);
// "" when the metric has no comparison or no run has a value for it.
std::string runs_strip_svg(const Plan& plan, const Findings& f, std::size_t metric,
                           const std::vector<RunRecord>& runs);

// The page's figures as standalone files for --svg DIR: ("effect-<slug>.svg", svg) and
// ("runs-<slug>.svg", svg) per metric with comparisons, in metric order. <slug> is the
// metric name in lower case with every run of other characters than [a-z0-9] turned
// into one '-' ("minor-faults(ru)" -> "minor-faults-ru"); a slug taken by an earlier
// metric gets "-2", "-3", ...
std::vector<std::pair<std::string, std::string>> check_svgs(const Plan& plan, const Findings& f,
                                                            const std::vector<RunRecord>& runs);

}  // namespace obscheck
