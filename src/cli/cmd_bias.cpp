// obscheck bias: one program measured in many measurement contexts (Mytkowicz et al., "Observer Effect and Measurement Bias in Performance Analysis" §4.2):
// how far does its metric swing when only the context changes, and is the swing
// larger than run-to-run noise?
#include <fmt/core.h>

#include <cmath>
#include <stdexcept>

#include "analysis/bias.h"
#include "cli/commands.h"
#include "cli/sweep_common.h"
#include "cli/html_out.h"
#include "report/bias_report.h"
#include "util/error.h"

namespace obscheck {
namespace {

std::vector<ContextSeries> series_of(const SweepSpec& spec, const ContextSweepResult& result, const std::string& metric) {
  std::vector<ContextSeries> out;
  for (const ContextSpec& c : spec.contexts) out.push_back({c.id, c.label, {}, c.failure});
  std::vector<std::string> run_failure(spec.contexts.size());
  for (const SweepRun& run : result.runs) {
    ContextSeries& s = out[run.context];
    if (!run.failure.empty()) {
      // A context that makes the program fail is a finding about that context.
      if (s.failure.empty()) s.failure = fmt::format("run {} {}", run.seq, run.failure.substr(0, run.failure.find('\n')));
      continue;
    }
    const double v = metric_value(run, metric);
    if (!std::isfinite(v) || v <= 0) continue;
    s.values.push_back(v);
    s.rounds.push_back(run.round);
  }
  return out;
}

}  // namespace

int cmd_bias(const Options& o) {
  SweepSetup setup = prepare_sweep(o);
  SweepSpec spec;
  spec.variants.push_back(make_variant(o, o.target, "program"));
  spec.contexts = setup.contexts;
  spec.events = setup.events;
  spec.runs = setup.runs;
  spec.warmup = setup.warmup;
  spec.measurer = setup.measurer;  // empty: perf_event; --backend sim: the simulator
  spec.seed = setup.seed;
  const ContextSweepResult result = run_sweep_with_progress(o, spec);

  SweepReport report = make_report("bias", setup, spec, result);
  report.alpha = 1 - o.confidence;
  std::vector<std::string> metrics = {setup.metric};
  for (const auto& e : setup.events.events)
    if (e.name != setup.metric) metrics.push_back(e.name);
  // Under --backend sim every simulated counter asked for is reported too; wall time
  // is then the simulator's, not the program's, and is left out.
  for (const auto& e : setup.sim_events)
    if (e.name != setup.metric) metrics.push_back(e.name);
  if (setup.metric != "wall-time" && !setup.sim) metrics.push_back("wall-time");
  bool any_failed = false, biased = false;
  for (const std::string& m : metrics) {
    try {
      report.bias.push_back(analyse_bias(m, series_of(spec, result, m), report.alpha, o.margin));
      any_failed = any_failed || !report.bias.back().failed.empty();
      if (m == setup.metric) biased = report.bias.back().exceeds_noise;
    } catch (const std::invalid_argument&) {
      if (m == setup.metric && !result.interrupted) {
        std::string why = "the program failed in every context";
        for (const SweepRun& run : result.runs)
          if (!run.failure.empty()) {
            why += fmt::format(" (first: context {} {})", spec.contexts[run.context].label, run.failure);
            break;
          }
        for (const ContextSpec& c : spec.contexts)
          if (!c.failure.empty()) {
            why += fmt::format("; context {} could not be prepared: {}", c.label, c.failure);
            break;
          }
        throw Error(ErrorKind::target_failed, why, "use --show-output to see what it printed");
      }
      report.notes.push_back(fmt::format("{}: no positive value in any context, not analysed", m));
    }
  }
  emit(o, o.json ? sweep_json(report) : o.csv ? sweep_csv(report) : bias_text(report, o.color));
  write_sweep_files(o, report);
  if (result.interrupted) return interrupted_exit_code();
  std::vector<std::string> found;
  if (biased) found.push_back("bias");
  if (any_failed) found.push_back("failed");
  return findings_exit_code(o, found, {"bias", "failed"});
}

}  // namespace obscheck
