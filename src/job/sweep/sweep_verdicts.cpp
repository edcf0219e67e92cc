#include "job/sweep/sweep_verdicts.h"

#include <fmt/core.h>

#include <cmath>
#include <limits>
#include <stdexcept>

#include "analysis/bias.h"
#include "analysis/compare.h"
#include "analysis/rules.h"
#include "job/common/exit_codes.h"
#include "util/error.h"

namespace obscheck {
namespace {

// Separates BASELINE ARGS from CONTENDER ARGS, as GNU parallel's ":::" does.
constexpr const char* kVariantSeparator = ":::";

std::vector<ContextSeries> series_of(const SweepReport& report, const std::string& metric) {
  std::vector<ContextSeries> out;
  for (const SweepContextRecord& c : report.contexts) out.push_back({c.id, c.label, {}, c.failure});
  for (const SweepRunRecord& run : report.runs) {
    ContextSeries& s = out.at(run.context);
    if (!run.failure.empty()) {
      // A context that makes the program fail is a finding about that context.
      if (s.failure.empty()) s.failure = fmt::format("run {} {}", run.seq, run.failure.substr(0, run.failure.find('\n')));
      continue;
    }
    double v = std::numeric_limits<double>::quiet_NaN(), running = 1;
    for (const auto& [name, value] : run.metrics)
      if (name == metric) v = value;
    for (const auto& [name, fraction] : run.running)
      if (name == metric) running = fraction;
    if (!std::isfinite(v) || v <= 0) continue;
    s.values.push_back(v);
    s.rounds.push_back(run.round);
    s.running.push_back(running);
  }
  return out;
}

// Why there is nothing to analyse: the first failure, of a run or of a context.
std::string nothing_ran(const SweepReport& report) {
  std::string why = "the program failed in every context";
  for (const SweepRunRecord& run : report.runs)
    if (!run.failure.empty()) {
      why += fmt::format(" (first: context {} {})", report.contexts.at(run.context).label, run.failure);
      break;
    }
  for (const SweepContextRecord& c : report.contexts)
    if (!c.failure.empty()) {
      why += fmt::format("; context {} could not be prepared: {}", c.label, c.failure);
      break;
    }
  return why;
}

std::vector<ContextPair> pairs_of(const SweepReport& report, std::size_t baseline, std::size_t contender) {
  std::vector<ContextPair> out;
  for (const SweepContextRecord& c : report.contexts) out.push_back({c.id, c.label, {}, {}, c.failure});
  for (const SweepRunRecord& run : report.runs) {
    if (run.variant != baseline && run.variant != contender) continue;
    VariantRun v;
    v.ok = run.failure.empty();
    v.value = std::numeric_limits<double>::quiet_NaN();
    for (const auto& [name, value] : run.metrics)
      if (name == report.metric) v.value = value;
    for (const auto& [name, fraction] : run.running)
      if (name == report.metric) v.running = fraction;
    if (v.ok && !(std::isfinite(v.value) && v.value > 0)) {
      v.ok = false;
      v.status = fmt::format("gave no positive {}", report.metric);
    } else {
      v.status = run.status;
    }
    v.digest = run.output_digest;
    (run.variant == baseline ? out.at(run.context).baseline : out.at(run.context).contender).push_back(std::move(v));
  }
  return out;
}

}  // namespace

std::vector<std::string> judge_bias(SweepReport& report, const SweepBrief& brief, bool interrupted) {
  bool any_failed = false, biased = false, incomparable = false;
  for (const std::string& m : brief.metrics) {
    try {
      report.bias.push_back(analyse_bias(m, series_of(report, m), report.alpha, brief.margin, report.allow_multiplex));
      any_failed = any_failed || !report.bias.back().failed.empty();
      incomparable = incomparable || report.bias.back().incomparable();
      if (m == report.metric) biased = report.bias.back().exceeds_noise;
    } catch (const std::invalid_argument&) {
      if (m == report.metric && !interrupted)
        throw Error(ErrorKind::target_failed, nothing_ran(report), "use --show-output to see what it printed");
      report.notes.push_back(fmt::format("{}: no positive value in any context, not analysed", m));
    }
  }
  std::vector<std::string> found;
  if (biased) found.push_back("bias");
  if (any_failed) found.push_back("failed");
  if (incomparable) found.push_back("incomparable");
  return found;
}

std::vector<std::string> judge_compare(SweepReport& report, const SweepBrief& brief, bool allow_output_diff) {
  CompareOptions co;
  co.alpha = report.alpha;
  co.margin = brief.margin;
  co.seed = report.seed;
  co.allow_output_diff = allow_output_diff;
  co.allow_multiplex = report.allow_multiplex;
  co.metric = report.metric;
  if (brief.aa) report.aa = compare_variants(pairs_of(report, 0, 2), co);
  report.comparison = compare_variants(pairs_of(report, 0, 1), co);
  // The A/A pair should show nothing (the rule book's compare_aa_failed): else "aa".
  std::vector<std::string> found;
  if (report.aa && compare_aa_failed(*report.aa)) found.push_back("aa");
  switch (report.comparison->outcome) {
    case Outcome::better: found.push_back("better"); break;
    case Outcome::worse: found.push_back("worse"); break;
    case Outcome::incomparable: found.push_back("incomparable"); break;
    default: break;
  }
  return found;
}

std::pair<std::vector<std::string>, std::vector<std::string>> split_variants(const std::vector<std::string>& words) {
  std::vector<std::string> base, cont;
  bool seen = false;
  for (const std::string& w : words) {
    if (w == kVariantSeparator) {
      if (seen) throw Error(ErrorKind::usage, "obscheck compare: more than one ':::'");
      seen = true;
      continue;
    }
    (seen ? cont : base).push_back(w);
  }
  if (!seen || base.empty() || cont.empty())
    throw Error(ErrorKind::usage, "obscheck compare needs two variants separated by :::",
                "usage: obscheck compare [options] -- BASELINE [ARGS...] ::: CONTENDER [ARGS...]");
  return {base, cont};
}

int judge_sweep(SweepReport& report, const SweepBrief& brief, bool interrupted,
                bool allow_output_diff) {
  const bool bias = brief.header.command == JobKind::bias;
  const std::vector<std::string> found = bias ? judge_bias(report, brief, interrupted)
                                              : judge_compare(report, brief, allow_output_diff);
  return findings_exit_code(brief.fail_on, found, bias ? FailOnOf::bias : FailOnOf::compare);
}

}  // namespace obscheck
