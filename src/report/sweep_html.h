// report/: `obscheck bias` and `obscheck compare` as pictures — one self-contained
// HTML page (`--html FILE`) and its figures as standalone SVG files (`--svg DIR`).
//
// The figures are the paper's (Mytkowicz et al., "Observer Effect and Measurement Bias in Performance Analysis"):
//   bias     one chart per analysed metric: x = the measurement context (environment
//            size in bytes, link order, argv[0] padding, or the context's label when
//            several dimensions are crossed), y = the metric; per context the mean with
//            its t interval, every run behind it as a hollow point, and the median of
//            the context means as a line — Figures 6 and 8 for one program.
//   compare  the distribution over contexts of the per-context ratio contender /
//            baseline (violin + every context as a point), the overall ratio with its
//            t interval beside it, and the line at 1 — Figure 13; with --aa the A/A
//            ratios as a second group. Then the same ratios against the context, with
//            the overall ratio, its interval shaded, and the line at 1 (Figures 6 and 8
//            for two variants).
//
// Page and style are the check page's (html_report.h): the same stylesheet, no script,
// no network, printable. Like every reporter it returns bytes and computes nothing:
// every number drawn is in the SweepReport (the analyses and the raw runs).
//
// What the page holds, in order (section ids in brackets):
//   header      the command, the variants' argv, contexts × runs, seed, events, warnings;
//   [summary]   bias: one row per metric (median of the context means, ratio range,
//               swing, the spread test, verdict); compare: the A/A control and the
//               comparison (verdict, ratio and CI, speedup in the paper's form, the
//               bootstrap CI, TOST), their reasons and notes;
//   [figures]   the charts above, each with a caption and (bias) the per-context table;
//   [contexts]  what each context was (environment bytes, pad, argv[0], link order and
//               objects, binary sha256, why it could not be prepared);
//   [notes]     the report's notes;
//   [host]      host summary, doctor warnings, the full host record (collapsed);
//   [methods]   every interval and test behind the numbers.
//
// Stable hooks: <svg class="plot bias-contexts" data-metric="NAME"> with one
// <g class="point"> per analysed context, <circle class="raw-point"> per run and
// <line class="ref-line" data-ref="median">; <svg class="plot compare-ratios"> with
// <g class="group" data-comparison="main|aa"> (one <circle class="run-point"> per
// context), <g class="estimate"> and <line class="ref-line" data-ref="one">;
// <svg class="plot compare-contexts"> with <g class="series" data-comparison=...>,
// <rect class="band">, <line class="ref-line" data-ref="one|ratio">;
// <table class="sweep-summary"> with <tr data-metric> (bias) or
// <tr data-comparison="main|aa"> (compare); <section id="host">, <section id="methods">.
//
// Edge cases: an analysis with no contexts is skipped; contexts that failed keep their
// slot on the x axis without a point; a comparison without a t test (fewer than two
// clean contexts) has no estimate, no band and no ratio line; no per-context ratios:
// no compare figures; an empty host: "not recorded".
#pragma once

#include <string>
#include <utility>
#include <vector>

#include <nlohmann/json.hpp>

#include "report/bias_report.h"

namespace obscheck {

// One analysed metric's chart (r.bias[analysis]); "" when out of range or without contexts.
std::string bias_contexts_svg(const SweepReport& r, std::size_t analysis);

// Figure 13: the per-context ratios' distribution; "" without per-context ratios.
std::string compare_ratios_svg(const SweepReport& r);

// The per-context ratios against the context; "" without per-context ratios.
std::string compare_contexts_svg(const SweepReport& r);

// What the page shows beyond the SweepReport: the host it ran on and the doctor's view.
struct SweepPageContext {
  nlohmann::json host = nlohmann::json::object();  // HostInfo as JSON (host/host_info.h)
  std::vector<nlohmann::json> doctor;              // host Finding JSON: id, severity, what, why, fix
  std::vector<std::string> warnings;               // shown under the header
};

// The whole page; starts with "<!DOCTYPE html>", ends with "</html>\n".
std::string sweep_html(const SweepReport& r, const SweepPageContext& ctx);

// The page's figures as files for --svg DIR, in page order: bias ("bias-<slug>.svg" per
// metric, <slug> as in check_svgs), compare ("compare-ratios.svg",
// "compare-contexts.svg").
std::vector<std::pair<std::string, std::string>> sweep_svgs(const SweepReport& r);

}  // namespace obscheck
