#include "analysis/hosts.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <optional>
#include <vector>

#include "stats/meta.h"
#include "stats/sequential.h"
#include "stats/special_values.h"
#include "util/error.h"

namespace obscheck {
namespace {

using stats::kNaN;

// A held, non-A/A comparison of `metric` at level `level` in one host's findings.
const Comparison* held_comparison(const Findings& f, const std::string& metric, std::size_t level) {
  for (const Comparison& c : f.comparisons)
    if (!c.aa && c.layout == Layout::held && c.level_index == level && f.metrics.at(c.metric).name == metric) return &c;
  return nullptr;
}

const LevelVerdict* verdict_of(const Findings& f, const std::string& metric, std::size_t level) {
  for (const LevelVerdict& v : f.verdicts)
    if (v.level_index == level && f.metrics.at(v.metric).name == metric) return &v;
  return nullptr;
}

// The comparison's effect and the standard error of its median on d's scale (log ratio
// or difference): the sign sequence's half-width over its width in standard errors at
// n (stats/sequential.h), whatever interval the check printed (an exact fixed-design
// interval or one the t-test narrowed would understate it). Unset while the sign
// sequence is unbounded.
struct OnD {
  double y = kNaN, se = kNaN;
};
OnD on_d(const Comparison& c) {
  const auto d = [&](double v) { return c.scale == Scale::ratio ? std::log1p(v) : v; };
  if (!std::isfinite(c.ci_lo) || !std::isfinite(c.ci_hi) || !std::isfinite(c.effect)) return {};
  const double width = stats::sequence_width_in_se(c.n, sequence_alpha((1 - c.level) / 2));
  if (!std::isfinite(width) || !std::isfinite(c.sequence_half_width)) return {};
  // Ties (counts that never vary) make a zero-width interval: the estimate is then as
  // good as the data's step, never better than a billionth of the scale.
  const double se = std::max(c.sequence_half_width / width, 1e-9);
  return {d(c.effect), se};
}

Verdict pooled_verdict(const PooledEffect& p) {
  if (p.pooled_hosts == 0) return Verdict::inconclusive;
  if (p.lo > -p.margin && p.hi < p.margin) return Verdict::not_perturbed;
  if (p.lo > p.margin || p.hi < -p.margin) return Verdict::perturbed;
  return Verdict::inconclusive;
}

// The hosts' held effects on d's scale, as collected for pooling.
struct HostEffects {
  std::vector<double> ys, ses;  // each bounded effect on d's scale, and its standard error
  bool any = false;             // some host has a held comparison
  bool one_scale = true;        // and all of them are on the same scale
};

// Each host's verdict and held effect for p's metric and level, entered in p; their effects on d's scale.
HostEffects collect_hosts(const std::vector<HostRuns>& hosts, const std::vector<Findings>& per_host,
                          PooledEffect& p) {
  HostEffects e;
  for (std::size_t h = 0; h < hosts.size(); ++h) {
    const Comparison* c = held_comparison(per_host[h], p.metric, p.level_index);
    const LevelVerdict* v = verdict_of(per_host[h], p.metric, p.level_index);
    HostVerdict hv{hosts[h].name, v ? v->verdict : Verdict::inconclusive, kNaN, -INFINITY, INFINITY, 0};
    if (c) {
      if (!e.any) {
        p.scale = c->scale;
        p.margin = c->margin;
        p.coverage = c->level;
      }
      e.one_scale &= c->scale == p.scale;
      e.any = true;
      hv.effect = c->effect;
      hv.lo = c->ci_lo;
      hv.hi = c->ci_hi;
      hv.n = c->n;
      if (const OnD d = on_d(*c); std::isfinite(d.y)) {
        e.ys.push_back(d.y);
        e.ses.push_back(d.se);
      }
    }
    p.perturbed_hosts += hv.verdict == Verdict::perturbed;
    p.hosts.push_back(std::move(hv));
  }
  return e;
}

// The pooled effect and interval over the hosts' effects, entered in p, or a note why there is none.
void pool_effects(const HostEffects& e, PooledEffect& p) {
  if (!e.one_scale) {
    p.note = "the hosts compare this metric on different scales (ratio on some, difference per run on others)";
  } else if (e.ys.empty()) {
    p.note = "no host has enough blocks to bound its effect";
  } else if (e.ys.size() == 1) {
    // One host: its own interval, valid at every look, is the answer; a normal
    // interval from its standard error would be narrower than what it showed.
    for (const HostVerdict& h : p.hosts)
      if (std::isfinite(h.lo) && std::isfinite(h.hi)) {
        p.pooled_hosts = 1;
        p.effect = h.effect;
        p.lo = h.lo;
        p.hi = h.hi;
      }
  } else {
    const stats::RandomEffects re = stats::random_effects(e.ys, e.ses, p.coverage);
    const auto back = [&](double v) { return p.scale == Scale::ratio ? std::expm1(v) : v; };
    p.pooled_hosts = re.k;
    p.effect = back(re.mean);
    p.lo = back(re.lo);
    p.hi = back(re.hi);
    p.tau = std::sqrt(re.tau2);
    p.q = re.q;
    p.p_heterogeneity = re.p_heterogeneity;
    p.i2 = re.i2;
  }
}

// One metric's effect at one level pooled over the hosts; none when no host compares it there.
std::optional<PooledEffect> pooled_effect(const Plan& plan, const std::vector<HostRuns>& hosts,
                                          const std::vector<Findings>& per_host, const MetricInfo& m,
                                          std::size_t level) {
  PooledEffect p;
  p.metric = m.name;
  p.level = plan.spec.levels[level].label;
  p.level_index = level;
  const HostEffects e = collect_hosts(hosts, per_host, p);
  if (!e.any) return std::nullopt;  // the metric is not compared at this level (its own baseline)
  std::vector<const Comparison*> held;
  for (const Findings& f : per_host) held.push_back(held_comparison(f, m.name, level));
  double lo = 0, hi = 0;
  if (e.one_scale && hosts.size() > 1)
    if (const std::size_t n = pooled_range(held, p.margin, p.coverage, lo, hi); n > 0) {
      p.blocks_within = n;
      for (const Comparison* c : held)
        if (c) p.cover_doses = std::max(p.cover_doses, c->cover_doses);
      p.equal = lo == 0 && hi == 0;
      p.pooled_hosts = hosts.size();
      p.effect = (lo + hi) / 2;
      p.lo = lo;
      p.hi = hi;
      p.verdict = Verdict::not_perturbed;
      return p;
    }
  pool_effects(e, p);
  // One host: its own interval, whichever method bounded it (pool_effects needs the
  // sign sequence bounded to weigh hosts; one host needs no weight).
  if (hosts.size() == 1 && p.pooled_hosts == 0 && std::isfinite(p.hosts.front().lo) &&
      std::isfinite(p.hosts.front().hi)) {
    p.pooled_hosts = 1;
    p.effect = p.hosts.front().effect;
    p.lo = p.hosts.front().lo;
    p.hi = p.hosts.front().hi;
    p.note.clear();
  }
  // A single host's verdict is its check's (with the family's Holm correction).
  p.verdict = p.hosts.size() == 1 ? p.hosts.front().verdict : pooled_verdict(p);
  return p;
}

}  // namespace

std::size_t pooled_range(const std::vector<const Comparison*>& held, double margin, double coverage, double& lo,
                         double& hi) {
  std::size_t n = 0, doses = 1;
  lo = INFINITY;
  hi = -INFINITY;
  for (const Comparison* c : held) {
    if (c) doses = std::max(doses, c->cover_doses);
    if (!c || c->n == 0 || !std::isfinite(c->range_lo) || !std::isfinite(c->range_hi)) return 0;
    const double m = std::min(margin, c->margin);
    if (!(c->range_lo > -m && c->range_hi < m)) return 0;
    lo = std::min(lo, c->range_lo);
    hi = std::max(hi, c->range_hi);
    n += c->n;
  }
  if (n == 0 || std::ldexp(1.0, 1 - static_cast<int>(std::min<std::size_t>(n, 1100))) > 1 - coverage) return 0;
  // Within on every block seen says nothing of an effect on runs not seen: the pooled
  // blocks must be enough for one on 1 run in 4 to have shown, at every dose of the
  // metric together (analysis/check.h).
  if (n < intermittent_cover_blocks((1 - coverage) / 2, doses)) return 0;
  return n;
}

HostsFindings analyse_hosts(const Plan& plan, std::vector<HostRuns> hosts, const AnalysisOptions& o) {
  if (hosts.empty()) throw Error(ErrorKind::usage, "no host's runs to merge");
  HostsFindings out;
  for (const HostRuns& h : hosts) {
    out.per_host.push_back(analyse_check(plan, h.runs, o));
    out.cpu_models[h.cpu_model.empty() ? "(unknown)" : h.cpu_model].push_back(h.name);
  }
  out.metrics = out.per_host.front().metrics;
  for (const MetricInfo& m : out.metrics)
    for (std::size_t level = 0; level < plan.spec.levels.size(); ++level)
      if (std::optional<PooledEffect> p = pooled_effect(plan, hosts, out.per_host, m, level))
        out.pooled.push_back(std::move(*p));
  out.hosts = std::move(hosts);
  return out;
}

}  // namespace obscheck
