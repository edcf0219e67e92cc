// analysis/: comparing two variants measured in the same sample of contexts
// (Mytkowicz et al., "Observer Effect and Measurement Bias in Performance Analysis" §5.2, variant generation; Kalibera & Jones 2013, contexts as the upper
// level of a two-level design). The verdict is one of the four outcomes of
// Rechistov, "Pitfalls of measuring software performance": better, worse, no significant difference, incomparable. Pure.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "analysis/scaled_counter.h"
#include "stats/bootstrap.h"
#include "stats/hypothesis.h"

namespace obscheck {

// One run of one variant, as far as comparability goes.
struct VariantRun {
  double value = 0;         // the metric (> 0); ignored when the run failed
  bool ok = true;           // exited 0, no signal, no timeout
  std::string status;       // "exited with code 0", "was killed by signal 11 (...)"
  std::string digest;       // sha256 of its output ("" when not captured)
  // The metric's counter's time_running / time_enabled: 1 exact (and for wall time),
  // below 1 multiplexed, its value scaled up from part of the run.
  double running = 1;
};

struct ContextPair {
  std::size_t id = 0;
  std::string label;
  std::vector<VariantRun> baseline, contender;
  std::string failure;      // set: the context could not be prepared; skipped
};

enum class Outcome { better, worse, equivalent, no_difference, incomparable };

// "better", "worse", "no significant difference", "no significant difference" (the
// same words for equivalent and no_difference: the detail says which) and "incomparable".
const char* outcome_name(Outcome o);

struct CompareOptions {
  double alpha = 0.05;    // CIs at 1 - alpha, TOST at alpha
  double margin = 0.01;   // equivalence within +-margin on the ratio (the default 1%, --margin)
  std::size_t resamples = stats::kDefaultResamples;
  std::uint64_t seed = 0; // the hierarchical bootstrap
  // Compare contexts whose outputs differ (the variants legitimately print different
  // things: other options, other data); they are then counted in a note.
  bool allow_output_diff = false;
  // --allow-multiplex: compare a multiplexed counter's scaled values (the verdict says
  // "scaled") instead of calling the comparison incomparable.
  bool allow_multiplex = false;
  std::string metric = "the metric";  // named in the multiplexing reason
};

struct ContextRatio {
  std::size_t id = 0;
  std::string label;
  double baseline_mean = 0, contender_mean = 0;
  double ratio = 0;       // contender_mean / baseline_mean
};

struct VariantComparison {
  Outcome outcome = Outcome::incomparable;
  std::string verdict;                   // one line, e.g. "worse: the contender takes 10.2% longer"
  std::vector<std::string> reasons;      // why incomparable, one per broken assumption
  std::vector<std::string> notes;        // contexts skipped, digests not checked, ...
  std::size_t contexts = 0;              // analysed (both variants ran cleanly)
  std::vector<ContextRatio> per_context;

  // Paired t over contexts on d_c = ln(contender mean_c) - ln(baseline mean_c): the
  // paper's paired t-test with contexts as the pairs.
  std::optional<stats::TTestResult> t;
  double ratio = 0;                      // exp(mean d): contender / baseline
  stats::Interval ratio_ci{0, 0};        // exp(t CI)
  double speedup = 0;                    // baseline / contender = 1 / ratio (the paper's form)
  stats::Interval speedup_ci{0, 0};
  double speedup_half_width = 0;         // (hi - lo) / 2 of speedup_ci: "1.007 ± 0.003"
  // Kalibera & Jones: hierarchical bootstrap of mean(contender) / mean(baseline),
  // resampling contexts then runs.
  std::optional<stats::HierarchicalResult> bootstrap;
  std::optional<stats::TostResult> tost; // on d, with the t's standard error
  // The metric's counter over the runs of the analysed contexts (scaled_counter.h).
  ScaledCounter scaled;
};

// Verdict rules, in order:
//   incomparable  a context where one variant's runs failed and the other's did not,
//                 or failed with different statuses; a context where each variant's own
//                 output digest is constant but the two differ (unless allow_output_diff:
//                 then a note counts them); fewer than 2 contexts in which both
//                 variants ran cleanly. The verdict names how many contexts' outputs
//                 differ and the option that compares them anyway. A run of an
//                 analysed context whose counter was multiplexed (running < 1),
//                 unless allow_multiplex: the reason names the counter, how many runs
//                 and the least running fraction; with it the verdict of the rules
//                 below ends "; scaled: ...".
//   worse/better  the t CI of the ratio AND the hierarchical bootstrap CI both lie
//                 entirely above (worse: the contender takes more) / below 1.
//                 Significance alone: no minimum effect size is asked for.
//   equivalent    otherwise, when TOST within +-margin holds: "no significant difference".
//   no_difference otherwise: "no significant difference (not shown equivalent within
//                 +-margin: more contexts would tell)".
// A context in which both variants failed alike is left out with a note.
VariantComparison compare_variants(std::span<const ContextPair> contexts, const CompareOptions& options = {});

// The paper's form: "1.007 ± 0.003" (three decimals, more when the half-width would
// round to 0).
std::string paper_form(double estimate, double half_width);

}  // namespace obscheck
