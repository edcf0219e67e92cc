// obscheck bias: one program measured in many measurement contexts (Mytkowicz et al., "Observer Effect and Measurement Bias in Performance Analysis" §4.2):
// how far does its metric swing when only the context changes, and is the swing
// larger than run-to-run noise?
#include <fmt/core.h>

#include <cmath>
#include <limits>
#include <stdexcept>

#include "analysis/bias.h"
#include "cli/commands.h"
#include "cli/sweep_session.h"
#include "cli/html_out.h"
#include "report/bias_report.h"
#include "util/error.h"

namespace obscheck {
namespace {

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
    double v = std::numeric_limits<double>::quiet_NaN();
    for (const auto& [name, value] : run.metrics)
      if (name == metric) v = value;
    if (!std::isfinite(v) || v <= 0) continue;
    s.values.push_back(v);
    s.rounds.push_back(run.round);
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

SweepJob bias_job(const Options& o) {
  return sweep_job(o, JobKind::bias,
                   [&o](const SweepRequest& r) { return std::vector<VariantSpec>{make_variant(r, o.target, "program")}; });
}

}  // namespace

int finish_bias(const Options& o, SweepReport report, const SweepBrief& brief, bool interrupted, bool live) {
  bool any_failed = false, biased = false;
  for (const std::string& m : brief.metrics) {
    try {
      report.bias.push_back(analyse_bias(m, series_of(report, m), report.alpha, brief.margin));
      any_failed = any_failed || !report.bias.back().failed.empty();
      if (m == report.metric) biased = report.bias.back().exceeds_noise;
    } catch (const std::invalid_argument&) {
      if (m == report.metric && !interrupted)
        throw Error(ErrorKind::target_failed, nothing_ran(report), "use --show-output to see what it printed");
      report.notes.push_back(fmt::format("{}: no positive value in any context, not analysed", m));
    }
  }
  emit(o, o.json ? sweep_json(report) : o.csv ? sweep_csv(report) : bias_text(report, o.color));
  write_sweep_files(o, report, brief.host);
  if (live && interrupted) return interrupted_exit_code();
  std::vector<std::string> found;
  if (biased) found.push_back("bias");
  if (any_failed) found.push_back("failed");
  Options judged = o;
  judged.fail_on = brief.fail_on;
  return findings_exit_code(judged, found, {"bias", "failed"});
}

int cmd_bias(const Options& o) { return run_sweep_command(o, JobKind::bias, bias_job, finish_bias); }

}  // namespace obscheck
