// obscheck compare: two variants measured in the same sample of measurement
// contexts, paired per context (Mytkowicz et al., "Observer Effect and Measurement Bias in Performance Analysis" §5.2: variant generation turns the bias of
// any one context into random error), judged with the four outcomes of Rechistov, "Pitfalls of measuring software performance".
#include <fmt/core.h>

#include <cmath>

#include "analysis/compare.h"
#include "cli/commands.h"
#include "cli/sweep_common.h"
#include "cli/html_out.h"
#include "report/bias_report.h"
#include "util/error.h"

namespace obscheck {
namespace {

// Separates BASELINE ARGS from CONTENDER ARGS, as GNU parallel's ":::" does.
constexpr const char* kVariantSeparator = ":::";

std::vector<ContextPair> pairs_of(const SweepSpec& spec, const ContextSweepResult& result, const std::string& metric,
                                  std::size_t baseline, std::size_t contender) {
  std::vector<ContextPair> out;
  for (const ContextSpec& c : spec.contexts) out.push_back({c.id, c.label, {}, {}, c.failure});
  for (const SweepRun& run : result.runs) {
    if (run.variant != baseline && run.variant != contender) continue;
    VariantRun v;
    v.ok = run.failure.empty();
    v.value = metric_value(run, metric);
    if (v.ok && !(std::isfinite(v.value) && v.value > 0)) {
      v.ok = false;
      v.status = fmt::format("gave no positive {}", metric);
    } else {
      v.status = run_status(run);
    }
    v.digest = run.exit.output_digest;
    (run.variant == baseline ? out[run.context].baseline : out[run.context].contender).push_back(std::move(v));
  }
  return out;
}

}  // namespace

int cmd_compare(const Options& o) {
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

  SweepSetup setup = prepare_sweep(o);
  SweepSpec spec;
  spec.variants.push_back(make_variant(o, base, "baseline"));
  spec.variants.push_back(make_variant(o, cont, "contender"));
  if (o.aa) {
    VariantSpec copy = spec.variants[0];
    copy.name = "baseline (A/A)";
    spec.variants.push_back(std::move(copy));
  }
  spec.contexts = setup.contexts;
  spec.events = setup.events;
  spec.runs = setup.runs;
  spec.warmup = setup.warmup;
  spec.measurer = setup.measurer;  // empty: perf_event; --backend sim: the simulator
  spec.seed = setup.seed;
  const ContextSweepResult result = run_sweep_with_progress(o, spec);

  SweepReport report = make_report("compare", setup, spec, result);
  report.margin = o.margin;
  report.alpha = 1 - o.confidence;
  CompareOptions co;
  co.alpha = report.alpha;
  co.margin = o.margin;
  co.seed = setup.seed;
  if (o.aa) report.aa = compare_variants(pairs_of(spec, result, setup.metric, 0, 2), co);
  report.comparison = compare_variants(pairs_of(spec, result, setup.metric, 0, 1), co);

  emit(o, o.json ? sweep_json(report) : o.csv ? sweep_csv(report) : compare_text(report, o.color));
  write_sweep_files(o, report);
  if (result.interrupted) return interrupted_exit_code();
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
  return findings_exit_code(o, found, {"incomparable", "aa"});
}

}  // namespace obscheck
