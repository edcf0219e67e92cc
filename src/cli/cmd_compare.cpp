// obscheck compare: two variants measured in the same sample of measurement
// contexts, paired per context (Mytkowicz et al., "Observer Effect and Measurement Bias in Performance Analysis" §5.2: variant generation turns the bias of
// any one context into random error), judged with the four outcomes of Rechistov, "Pitfalls of measuring software performance".
#include <fmt/core.h>

#include <cmath>
#include <limits>

#include "analysis/compare.h"
#include "cli/commands.h"
#include "cli/sweep_session.h"
#include "cli/html_out.h"
#include "report/bias_report.h"
#include "util/error.h"

namespace obscheck {
namespace {

// Separates BASELINE ARGS from CONTENDER ARGS, as GNU parallel's ":::" does.
constexpr const char* kVariantSeparator = ":::";

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

SweepJob compare_job(const Options& o) {
  std::vector<std::string> base, cont;
  bool seen = false;
  for (const std::string& w : o.target) {
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
  return sweep_job(o, JobKind::compare, [&](const SweepRequest& r) {
    std::vector<VariantSpec> variants = {make_variant(r, base, "baseline"), make_variant(r, cont, "contender")};
    if (o.aa) {
      VariantSpec copy = variants[0];
      copy.name = "baseline (A/A)";
      variants.push_back(std::move(copy));
    }
    return variants;
  });
}

}  // namespace

int finish_compare(const Options& o, SweepReport report, const SweepBrief& brief, bool interrupted, bool live) {
  CompareOptions co;
  co.alpha = report.alpha;
  co.margin = brief.margin;
  co.seed = report.seed;
  co.allow_output_diff = o.allow_output_diff;
  if (brief.aa) report.aa = compare_variants(pairs_of(report, 0, 2), co);
  report.comparison = compare_variants(pairs_of(report, 0, 1), co);

  emit(o, o.json ? sweep_json(report) : o.csv ? sweep_csv(report) : compare_text(report, o.color));
  write_sweep_files(o, report, brief.host);
  if (live && interrupted) return interrupted_exit_code();
  // The A/A pair should show nothing: better, worse or incomparable there is "aa".
  const auto untrustworthy = [](const VariantComparison& c) {
    return c.outcome == Outcome::better || c.outcome == Outcome::worse || c.outcome == Outcome::incomparable;
  };
  std::vector<std::string> found;
  if (report.aa && untrustworthy(*report.aa)) found.push_back("aa");
  switch (report.comparison->outcome) {
    case Outcome::better: found.push_back("better"); break;
    case Outcome::worse: found.push_back("worse"); break;
    case Outcome::incomparable: found.push_back("incomparable"); break;
    default: break;
  }
  Options judged = o;
  judged.fail_on = brief.fail_on;
  return findings_exit_code(judged, found, {"incomparable", "aa"});
}

int cmd_compare(const Options& o) { return run_sweep_command(o, JobKind::compare, compare_job, finish_compare); }

}  // namespace obscheck
