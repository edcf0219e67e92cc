#include "analysis/compare.h"

#include <fmt/core.h>

#include <cmath>
#include <set>

#include "analysis/rules.h"
#include "stats/descriptive.h"

namespace obscheck {
namespace {

std::set<std::string> statuses(const std::vector<VariantRun>& runs) {
  std::set<std::string> s;
  for (const VariantRun& r : runs) s.insert(r.status);
  return s;
}

bool all_ok(const std::vector<VariantRun>& runs) {
  for (const VariantRun& r : runs)
    if (!r.ok) return false;
  return !runs.empty();
}

// The digest a variant's runs share in this context; empty when they do not agree
// (the output then is not a property of the variant: a timestamp, an address).
std::string shared_digest(const std::vector<VariantRun>& runs) {
  if (runs.empty() || runs.front().digest.empty()) return {};
  for (const VariantRun& r : runs)
    if (r.digest != runs.front().digest) return {};
  return runs.front().digest;
}

std::string join(const std::set<std::string>& s) {
  std::string out;
  for (const std::string& x : s) out += (out.empty() ? "" : ", ") + x;
  return out;
}

std::vector<double> values(const std::vector<VariantRun>& runs) {
  std::vector<double> v;
  for (const VariantRun& r : runs) v.push_back(r.value);
  return v;
}

// The data of the contexts in which both variants ran cleanly with the same output.
struct Pairs {
  std::vector<std::vector<double>> base_runs, cont_runs;  // per context: each variant's run values
  std::vector<double> d;                                  // per context: log contender mean - log baseline mean
  std::size_t unchecked_digests = 0;                      // contexts whose output could not be compared
  std::size_t differing = 0;                              // contexts whose outputs differ
  std::vector<double> running;                            // every pooled run's running fraction
};

// Whether context p can be compared; when not, a note or a reason in c says why.
bool comparable(const ContextPair& p, const CompareOptions& o, VariantComparison& c, Pairs& pairs) {
  if (!p.failure.empty()) {
    c.notes.push_back(fmt::format("context {} skipped: {}", p.label, p.failure));
    return false;
  }
  const bool base_ok = all_ok(p.baseline), cont_ok = all_ok(p.contender);
  if (!base_ok || !cont_ok) {
    const auto sb = statuses(p.baseline), sc = statuses(p.contender);
    if (sb != sc)
      c.reasons.push_back(fmt::format("context {}: the baseline {} but the contender {}", p.label, join(sb),
                                      join(sc)));
    else
      c.notes.push_back(fmt::format("context {} left out: both variants {}", p.label, join(sb)));
    return false;
  }
  const std::string db = shared_digest(p.baseline), dc = shared_digest(p.contender);
  if (db.empty() || dc.empty()) {
    ++pairs.unchecked_digests;
  } else if (db != dc) {
    ++pairs.differing;
    if (o.allow_output_diff) return true;
    c.reasons.push_back(fmt::format("context {}: the output differs (baseline sha256 {}…, contender {}…)",
                                    p.label, db.substr(0, 12), dc.substr(0, 12)));
    return false;
  }
  return true;
}

// Each comparable context's means and ratio, entered in c, and the runs and log ratios pooled over them.
Pairs collect_contexts(std::span<const ContextPair> contexts, const CompareOptions& o, VariantComparison& c) {
  Pairs pairs;
  for (const ContextPair& p : contexts) {
    if (!comparable(p, o, c, pairs)) continue;
    ContextRatio r;
    r.id = p.id;
    r.label = p.label;
    r.baseline_mean = stats::mean(values(p.baseline));
    r.contender_mean = stats::mean(values(p.contender));
    r.ratio = r.contender_mean / r.baseline_mean;
    pairs.d.push_back(std::log(r.contender_mean) - std::log(r.baseline_mean));
    pairs.base_runs.push_back(values(p.baseline));
    pairs.cont_runs.push_back(values(p.contender));
    for (const auto* runs : {&p.baseline, &p.contender})
      for (const VariantRun& v : *runs) pairs.running.push_back(v.running);
    c.per_context.push_back(r);
  }
  return pairs;
}

// The ratio of the contender's time to the baseline's over the contexts: t interval, bootstrap and TOST.
void estimate_ratio(const Pairs& pairs, const CompareOptions& options, VariantComparison& c) {
  const double level = 1 - options.alpha;
  c.t = stats::one_sample_t(pairs.d, 0.0, level);
  c.ratio = std::exp(c.t->estimate);
  c.ratio_ci = {std::exp(c.t->ci.lo), std::exp(c.t->ci.hi)};
  c.speedup = 1 / c.ratio;
  c.speedup_ci = {1 / c.ratio_ci.hi, 1 / c.ratio_ci.lo};
  c.speedup_half_width = c.speedup_ci.width() / 2;
  stats::BootstrapOptions bo;
  bo.resamples = options.resamples;
  bo.level = level;
  bo.seed = options.seed;
  c.bootstrap = stats::hierarchical_bootstrap_ratio_of_means(pairs.cont_runs, pairs.base_runs, bo);
  c.tost = stats::tost(c.t->estimate, c.t->se, c.t->df, std::log(1 - options.margin),
                       std::log(1 + options.margin), options.alpha);
}

}  // namespace

const char* outcome_name(Outcome o) {
  switch (o) {
    case Outcome::better: return "better";
    case Outcome::worse: return "worse";
    case Outcome::equivalent:
    case Outcome::no_difference: return "no significant difference";
    case Outcome::incomparable: return "incomparable";
  }
  return "incomparable";
}

std::string paper_form(double estimate, double half_width) {
  int decimals = 3;
  while (decimals < 9 && half_width > 0 && half_width < 0.5 * std::pow(10.0, -decimals)) ++decimals;
  return fmt::format("{:.{}f} ± {:.{}f}", estimate, decimals, half_width, decimals);
}

VariantComparison compare_variants(std::span<const ContextPair> contexts, const CompareOptions& options) {
  VariantComparison c;
  const Pairs pairs = collect_contexts(contexts, options, c);
  c.contexts = c.per_context.size();
  if (pairs.differing > 0 && options.allow_output_diff)
    c.notes.push_back(fmt::format("the variants' outputs differ in {} of {} context(s): compared anyway "
                                  "(--allow-output-diff)",
                                  pairs.differing, contexts.size()));
  if (pairs.unchecked_digests > 0)
    c.notes.push_back(fmt::format("output not compared in {} context(s): a variant's own runs printed "
                                  "different output (or output was not captured)",
                                  pairs.unchecked_digests));
  c.scaled = scaled_counter(options.metric, pairs.running, options.allow_multiplex);
  if (c.scaled.incomparable()) c.reasons.push_back(scaled_counter_why(c.scaled));
  if (c.reasons.empty() && c.contexts < 2)
    c.reasons.push_back(fmt::format("only {} context(s) in which both variants ran cleanly: at least 2 are needed",
                                    c.contexts));
  if (!c.reasons.empty()) {
    c.outcome = Outcome::incomparable;
    c.verdict = "incomparable: " + c.reasons.front();
    if (pairs.differing > 0)
      c.verdict = fmt::format("incomparable: the variants' outputs differ in {} of {} context(s) ({}); if they "
                              "legitimately differ (other options, other data), compare them with "
                              "--allow-output-diff",
                              pairs.differing, contexts.size(), c.reasons.front());
    return c;
  }
  estimate_ratio(pairs, options, c);
  judge_compare_outcome(options.margin, c);
  if (c.scaled.scaled()) c.verdict += "; " + scaled_counter_verdict(c.scaled);
  return c;
}

}  // namespace obscheck
