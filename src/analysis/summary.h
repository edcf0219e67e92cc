// analysis/: the answer a person reads first — one line per metric and one for the
// whole check (GitHub issue "An answer a person can act on in ten seconds"). Pure: it
// reads a finished Findings and its Plan, decides what the summary says, and leaves
// the wording of numbers to report/.
#pragma once

#include <cstddef>
#include <optional>
#include <string>
#include <vector>

#include "analysis/findings.h"
#include "plan/plan.h"

namespace obscheck {

// One metric's answer over the doses of the check.
struct MetricAnswer {
  std::size_t metric = 0;            // into Findings::metrics
  Verdict verdict = Verdict::inconclusive;  // the worst over its levels (Findings::metric_verdicts)
  bool asked = false;                // a counter the user named, or wall time
  // Levels on the dose axis (ordered doses: counter prefixes, probe counts, Hz, ...),
  // in dose order, that have a verdict for this metric.
  std::vector<std::size_t> doses;    // into Findings::verdicts
  std::size_t decided = 0;           // of them, how many are not inconclusive
  // The comparison shown for the largest dose: its held layout when it has one, else
  // its first; unset when the metric has no verdict on the dose axis.
  std::optional<std::size_t> largest;  // into Findings::comparisons
  // Safe doses: the highest dose shown within ±ε with every smaller dose also within
  // it, and the lowest dose shown to move the metric (perturbed, or explained by
  // layout: the program the user measures moves either way). Into Findings::verdicts.
  std::optional<std::size_t> highest_safe;
  std::optional<std::size_t> lowest_unsafe;
  // A layout-explained, perturbed or incomparable verdict: something to act on. A
  // driver metric that carries none is summarised in one line instead of its own.
  bool finding = false;
};

// The check as a whole, for the one-line verdict and the exit code.
struct CheckSummary {
  // The asked-for metrics first (in Findings order), then the others; a metric that is
  // not judged (MetricInfo::judged: the profiler's cost) has none.
  std::vector<MetricAnswer> metrics;
  // The worst verdict (perturbed > layout > incomparable > inconclusive > not
  // perturbed) over the primary family: the asked-for metrics (MetricInfo::primary).
  // The other driver metrics (rusage) are reported with their own Holm family and
  // change neither the overall answer nor the exit code, whatever they show.
  // Inconclusive when there are no verdicts.
  Verdict overall = Verdict::inconclusive;
  // The verdict keys behind `overall`, one per level verdict of those metrics (for the
  // exit code's --fail-on rule).
  std::vector<std::string> outcomes;
  bool any_verdict = false;           // false: no level could be compared yet
  // The check had nothing to compare against: a single level (one counter, no other
  // dose). The answer then says so instead of a verdict.
  bool single_level = false;
};

// Every level of the plan that lies on its dose axis, in dose order (for the counter
// observer the prefixes 1..N; each counter alone is a baseline, not a dose).
std::vector<std::size_t> dose_axis_levels(const Plan& plan);

CheckSummary summarize_check(const Plan& plan, const Findings& f);

}  // namespace obscheck
