// analysis/check: one comparison's statistics: its scale, the pairs' differences d, the
// sequential (or fixed-design) interval and p-value for the effect, drift in d, and
// whether more blocks could still decide it.
#include "analysis/check.h"
#include "analysis/check_internal.h"

#include <fmt/core.h>

#include <algorithm>
#include <cmath>
#include <span>
#include <tuple>

#include "stats/changepoint.h"
#include "stats/descriptive.h"
#include "stats/hypothesis.h"
#include "stats/magnitude.h"
#include "stats/sequential.h"

namespace obscheck {
namespace check_detail {
namespace {

// rusage times are timevals: a microsecond is the finest step they can show.
constexpr double kRusageStepNs = 1000;

// The finest step the values show: the smallest positive gap between two distinct
// values (a clock's tick, a count's one event), at least `floor`.
double resolution_of(const Series& s, double floor) {
  std::vector<double> v(s.x);
  v.insert(v.end(), s.y.begin(), s.y.end());
  std::sort(v.begin(), v.end());
  double step = kInf;
  for (std::size_t i = 1; i < v.size(); ++i)
    if (v[i] > v[i - 1]) step = std::min(step, v[i] - v[i - 1]);
  return std::isfinite(step) ? std::max(step, floor) : floor;
}

// The blocks from which the running range is a confidence sequence, and the interval's
// 2 alpha left to the other methods after it (check.h kRangeShare).
std::size_t range_blocks(double alpha) { return stats::range_first_blocks(kRangeShare * 2 * alpha); }
double interval_rest(double alpha) { return 2 * alpha - std::ldexp(1.0, 1 - static_cast<int>(range_blocks(alpha))); }

// One method's interval for d's location and p-value for "the effect is within the
// margin", combined below.
struct Inference {
  double lo = -kInf, hi = kInf;
  double p = 1;
};

Inference intersect(Inference a, const Inference& b) {
  a.lo = std::max(a.lo, b.lo);
  a.hi = std::min(a.hi, b.hi);
  return a;
}

// What the methods are asked, on d's scale: the null region [lo, hi] ("the effect is
// within ±margin"; the A/A control: {0}), the blocks from which the t-test takes part,
// and its scale floor.
struct Question {
  double lo = 0, hi = 0;
  std::size_t magnitude_from = 0;
  double floor = 0;
  double floor_df = 0;  // the floor's degrees of freedom (stats/magnitude.h mean_sequence)
  double median = 0;  // d's (the methods' estimate: found once for all of them)
  // The point of the null region nearest an estimate: each test's p-value for the
  // composite null is its p-value there, the largest over the region (the sign test's
  // and the t-test's evidence only fall as the null moves towards the estimate).
  double nearest(double estimate) const { return std::clamp(estimate, lo, hi); }
};

std::string magnitude_note(std::size_t n, const Question& q) {
  return n >= q.magnitude_from ? std::string{}
                               : fmt::format(" (the t-test takes part from {} blocks)", q.magnitude_from);
}

// The t-test's inference at `alpha`, or none before it takes part.
Inference magnitude_inference(const std::vector<double>& d, double alpha, const Question& q, double share) {
  if (d.size() < q.magnitude_from) return {};
  const stats::MeanSequence mag =
      stats::mean_sequence(d, alpha, q.floor, q.nearest(stats::mean(d)), stats::kMagnitudePriorG, q.floor_df);
  return {mag.lo, mag.hi, std::min(1.0, mag.p_value / share)};
}

// The sequential methods at one look (check.h): sign sequence, t-test sequence, range.
std::pair<Inference, Inference> sequential_inference(Comparison& c, const std::vector<double>& d, double alpha,
                                                     const Question& q) {
  const std::size_t n0 = range_blocks(alpha);
  const stats::MedianSequence sign = stats::median_sequence(d, sequence_alpha(alpha), q.nearest(q.median));
  c.sequence_half_width = (sign.hi - sign.lo) / 2;
  Inference free{sign.lo, sign.hi, std::min(1.0, sign.p_value / kSignShare)};
  if (d.size() >= n0) free = intersect(free, {c.range_lo, c.range_hi, 1});
  c.p_method = fmt::format("always-valid sign test (Beta({0:g},{0:g}) mixture) and sequential t-test (g = {1:g}){2}",
                           stats::kMixturePrior, stats::kMagnitudePriorG, magnitude_note(d.size(), q));
  c.ci_method = fmt::format(
      "{:.0f}% confidence sequence: sign (Beta({:g},{:g}) mixture){}{}", 100 * c.level, stats::kMixturePrior,
      stats::kMixturePrior,
      d.size() >= q.magnitude_from ? fmt::format(" ∩ sequential t (g = {:g})", stats::kMagnitudePriorG) : "",
      d.size() >= n0 ? " ∩ range of all blocks" : "");
  return {free, magnitude_inference(d, interval_rest(alpha) * kMagnitudeShare, q, kMagnitudeShare)};
}

// The fixed design's methods at its one look: exact sign test and interval, t-test.
// The method strings name what can decide: the exact interval is unbounded up to
// 4 blocks (its coverage needs 1 - 2^(1-n) >= 1 - 0.8 * 2 alpha), and the t-test
// takes part from magnitude_from blocks only.
std::pair<Inference, Inference> fixed_inference(Comparison& c, const std::vector<double>& d, double alpha,
                                                const Question& q, const MedianRanks* ranks) {
  const double a2 = 2 * alpha;
  const double null = q.nearest(q.median);
  std::size_t above = 0, below = 0;
  for (double v : d) above += v > null, below += v < null;
  const auto shared = ranks ? ranks->find(d.size()) : MedianRanks::const_iterator{};
  const stats::MedianRank rank = ranks && shared != ranks->end() ? shared->second
                                                                : fixed_median_rank(d.size(), alpha);
  const stats::OrderInterval exact = stats::exact_median_interval(d, rank);
  const stats::MedianSequence sign = stats::median_sequence(d, sequence_alpha(alpha));
  c.sequence_half_width = (sign.hi - sign.lo) / 2;  // for "about N blocks would decide" only
  const bool t_part = d.size() >= q.magnitude_from;
  const std::string t_name = fmt::format("sequential t (g = {:g})", stats::kMagnitudePriorG);
  c.p_method = fmt::format("exact sign test{}, one look{}",
                           t_part ? fmt::format(" and sequential t-test (g = {:g})", stats::kMagnitudePriorG) : "",
                           magnitude_note(d.size(), q));
  if (exact.k == 0)
    c.ci_method = fmt::format("{:.0f}% interval, one look: {} (exact order statistics unbounded at {} blocks)",
                              100 * c.level, t_part ? t_name : "none bounded", d.size());
  else
    c.ci_method = fmt::format("{:.0f}% interval, one look: exact order statistics for the median{}", 100 * c.level,
                              t_part ? " ∩ " + t_name : "");
  return {{exact.lo, exact.hi, std::min(1.0, stats::sign_test_p(above, below) / kSignShare)},
          magnitude_inference(d, kMagnitudeShare * a2, q, kMagnitudeShare)};
}

// The whole distribution beside the median (findings.h Comparison::median_only): the
// mean of d and the t-test's interval for it, and whether the blocks beyond the
// margin lean to the mean's side.
void judge_whole_distribution(Comparison& c, const std::vector<double>& d, double alpha, const Question& q,
                              const Series& s) {
  const stats::MeanSequence mean = stats::mean_sequence(d, interval_rest(alpha) * kMagnitudeShare, q.floor);
  c.mean_beyond = mean.lo > q.hi || mean.hi < q.lo;
  const bool up = mean.mean > q.hi, down = mean.mean < q.lo;
  c.tail_blocks = up ? s.tail_up : down ? s.tail_down : 0;
  c.tail_size = up ? s.tail_up_size : down ? s.tail_down_size : kNaN;
  // Lopsided: every block beyond the margin on one side, or the always-valid sign
  // test over those blocks alone rejects symmetry (under no effect d is symmetric
  // about 0, what the randomised order gives).
  const std::size_t t = s.tail_up + s.tail_down;
  const bool one_side = t > 0 && (s.tail_up == 0 || s.tail_down == 0);
  const bool uneven = t > 0 && stats::sign_mixture_log(t, s.tail_up) >= std::log(1 / alpha);
  c.median_only = c.equivalent && (c.mean_beyond || ((up || down) && (one_side || uneven)));
  if (c.median_only) c.equivalent = false;
  c.mean_effect = c.scale == Scale::ratio ? std::expm1(mean.mean) : mean.mean;
  c.mean_lo = c.scale == Scale::ratio && std::isfinite(mean.lo) ? std::expm1(mean.lo) : mean.lo;
  c.mean_hi = c.scale == Scale::ratio && std::isfinite(mean.hi) ? std::expm1(mean.hi) : mean.hi;
}


}  // namespace

// The blocks beyond the margin on either side and their raw differences' medians.
void fill_tails(const Comparison& c, Series& s) {
  const auto [lo, hi] = margin_on_d(c);
  std::vector<double> up, down;
  for (std::size_t i = 0; i < s.d.size(); ++i) {
    if (s.d[i] > hi) up.push_back(s.x[i] - s.y[i]);
    if (s.d[i] < lo) down.push_back(s.x[i] - s.y[i]);
  }
  s.tail_up = up.size();
  s.tail_down = down.size();
  s.tail_up_size = up.empty() ? kNaN : stats::median(up);
  s.tail_down_size = down.empty() ? kNaN : stats::median(down);
}

// One scale per metric, for all its comparisons (a table that mixed "+3%" and "+2 µs per
// run" for one metric could not be read down a column): the difference scale when any
// measured run has a value <= 0, or the median of all measured runs is below the
// metric's floor (analysis/check.h).
Scale scale_of(const MetricInfo& m, const NumberColumn* column, const BlockRows& b) {
  if (!column) return Scale::ratio;
  std::vector<double> v;
  for (std::uint32_t r : b.cells)
    if (r != BlockRows::kNoRow && std::isfinite((*column)[r])) v.push_back((*column)[r]);
  if (v.empty()) return Scale::ratio;
  if (std::any_of(v.begin(), v.end(), [](double x) { return x <= 0; })) return Scale::difference;
  const double floor = m.unit == "ns" ? kRareTimeFloorNs : m.unit == "count" ? kRareCountFloor : 0;
  return stats::median(v) >= floor ? Scale::ratio : Scale::difference;
}

// The pairs' d on the comparison's scale, the raw medians and the margin (before any inference).
void fill_differences(Comparison& c, Series& s, const MetricInfo& m, Scale scale, double margin) {
  c.n = s.x.size();
  c.effect = kNaN;
  c.ci_lo = c.range_lo = -kInf;
  c.ci_hi = c.range_hi = kInf;
  c.bound = kInf;
  c.sequence_half_width = kInf;
  c.median_config = c.n ? stats::median(s.x) : kNaN;
  c.median_baseline = c.n ? stats::median(s.y) : kNaN;
  c.margin = margin;
  c.primary = m.primary;
  if (c.n == 0) return;
  c.scale = scale;
  differences(s, scale);
  if (c.scale == Scale::difference) {
    const bool rusage_clock = m.driver && m.unit == "ns" && m.name != "wall-time";
    const double step = resolution_of(s, rusage_clock ? kRusageStepNs : 1);
    c.margin = std::max(margin * std::fabs(c.median_baseline), step / 2);
  }
  fill_tails(c, s);
}

std::pair<double, double> margin_on_d(const Comparison& c) {
  if (c.scale == Scale::ratio) return {std::log1p(-std::min(c.margin, 0.999999)), std::log1p(c.margin)};
  return {-c.margin, c.margin};
}

void differences(Series& s, Scale scale) {
  const std::size_t n = s.x.size();
  s.d.resize(n);
  if (scale == Scale::ratio) {
    for (std::size_t i = 0; i < n; ++i) s.d[i] = std::log(s.x[i]) - std::log(s.y[i]);
  } else {
    for (std::size_t i = 0; i < n; ++i) s.d[i] = s.x[i] - s.y[i];
  }
}

// The sample standard deviation of d (0 below two pairs).
double spread_of(const std::vector<double>& d) {
  if (d.size() < 2 || std::all_of(d.begin(), d.end(), [&](double v) { return v == d.front(); })) return 0.0;
  return std::sqrt(stats::variance(d));
}

stats::MedianRank fixed_median_rank(std::size_t pairs, double alpha) {
  return stats::exact_median_rank(pairs, kSignShare * 2 * alpha);
}

// The comparison's statistics from its d (fill_differences).
void infer(Comparison& c, const Series& s, const InferInputs& in) {
  const double alpha = in.alpha;
  c.level = 1 - 2 * alpha;
  if (c.n == 0) return;
  const auto [lo_d, hi_d] = std::minmax_element(s.d.begin(), s.d.end());
  const auto to_scale = [&](double v) {
    if (!std::isfinite(v)) return v;
    return c.scale == Scale::ratio ? std::exp(v) - 1 : v;
  };
  c.range_lo = *lo_d;  // on d's scale until the end
  c.range_hi = *hi_d;
  c.equal_blocks = *lo_d == 0 && *hi_d == 0 ? c.n : 0;
  Question q;
  q.magnitude_from = std::max<std::size_t>(in.magnitude_from, 2);
  q.floor = in.floor;
  q.floor_df = in.floor_df;
  q.median = std::isnan(in.median) ? stats::median(s.d) : in.median;
  // The question asked: "perturbed" is beyond ±margin, so its null is the margin's
  // whole region; the A/A control asks whether identical configurations differ at all.
  if (!c.aa) std::tie(q.lo, q.hi) = margin_on_d(c);
  auto [free, mag] = in.fixed ? fixed_inference(c, s.d, alpha, q, in.ranks) : sequential_inference(c, s.d, alpha, q);
  Inference both = intersect(free, mag);
  both.p = std::min(free.p, mag.p);
  // The methods' intervals hold together with probability 1 - 2 alpha when the noise is
  // as the t-test assumes; disjoint intervals show it is not, and the assumption-free
  // methods alone are kept (still valid: they only lose the t-test's share).
  if (both.lo > both.hi) {
    both = free;
    c.p_method += " (t-test set aside: its interval misses the median's)";
  }
  const double median = q.median;
  c.effect = to_scale(std::clamp(median, both.lo, both.hi));  // never outside its own interval
  c.p_value = c.p_holm = both.p;
  c.ci_lo = to_scale(both.lo);
  c.ci_hi = to_scale(both.hi);
  c.range_lo = to_scale(c.range_lo);
  c.range_hi = to_scale(c.range_hi);
  c.bound = std::max(std::fabs(c.ci_lo), std::fabs(c.ci_hi));
  c.equivalent = within_margin(c.ci_lo, c.ci_hi, c.margin);
  c.outside_margin = beyond_margin(c.ci_lo, c.ci_hi, c.margin);
  std::tie(q.lo, q.hi) = margin_on_d(c);
  judge_whole_distribution(c, s.d, alpha, q, s);
  // Within on every count, but on too few runs for an intermittent effect to have shown
  // at any of the metric's doses (check.h intermittent_cover_blocks). The A/A control
  // asks no such question.
  if (!c.aa) c.cover_doses = std::max<std::size_t>(in.doses, 1);
  if (c.equivalent && !c.aa && c.n < intermittent_cover_blocks(alpha, c.cover_doses)) {
    c.equivalent = false;
    c.unseen_runs = true;
    c.blocks_needed = intermittent_cover_blocks(alpha, c.cover_doses);
  }
  // How many blocks would decide at this noise: the sign sequence must come to fit
  // between the estimate and the nearer side of the margin (both on d's scale).
  if (!c.equivalent && !c.outside_margin && !c.median_only && !c.unseen_runs && std::isfinite(c.sequence_half_width)) {
    const double m_d = c.scale == Scale::ratio ? std::log1p(c.margin) : c.margin;
    const double room = std::fabs(std::fabs(median) - m_d);
    c.blocks_needed =
        stats::blocks_for_half_width(c.sequence_half_width, c.n, room, sequence_alpha(alpha), in.max_blocks);
  }
}

// A change in d's level (Pettitt's rank test, at kDriftAlpha over `family` tests)
// matters when the effect on either side would read differently: opposite signs, or
// one side within ±margin and the other beyond it, and the two more than the margin
// apart. Returns the drift text, or a note when a change is found but ignored.
std::pair<std::string, std::string> drift_of(const Comparison& c, const Series& s, std::size_t family,
                                             const std::string& unit) {
  if (s.d.size() < kMinDriftBlocks) return {};
  const stats::ChangeTest t = stats::pettitt_test(s.d);
  if (!(t.p_value < kDriftAlpha / static_cast<double>(std::max<std::size_t>(family, 1)))) return {};
  const auto seg = [&](std::size_t from, std::size_t to) {
    const double med = stats::median(std::span<const double>(s.d.data() + from, to - from));
    return c.scale == Scale::ratio ? std::exp(med) - 1 : med;
  };
  const double before = seg(0, t.at), after = seg(t.at, s.d.size());
  Comparison a = c, b = c;
  a.effect = before;
  b.effect = after;
  const auto text = [&](const Comparison& x) {
    if (x.scale == Scale::ratio) return fmt::format("{:+.1f}%", 100 * x.effect);
    const std::string full = effect_text(x, unit);
    return full.substr(0, full.find(" ["));
  };
  const bool sign = before * after < 0;
  const bool side = (std::fabs(before) <= c.margin) != (std::fabs(after) <= c.margin);
  if (std::fabs(before - after) > c.margin && (sign || side))
    return {fmt::format("effect moved from {} to {} at block {} (Pettitt p = {:.2g})", text(a), text(b),
                        s.blocks[t.at], t.p_value),
            {}};
  return {{}, fmt::format("a change in the difference series at block {} ({} then {}) does not change the "
                          "conclusion; ignored",
                          s.blocks[t.at], text(a), text(b))};
}

}  // namespace check_detail

double sequence_alpha(double alpha) { return kSignShare * check_detail::interval_rest(alpha); }

// The smallest n with (1 - 1/q)^n <= alpha, counted up (no rounding of a logarithm's ratio
// can put it one off).
std::size_t intermittent_cover_blocks(double alpha, std::size_t doses) {
  alpha /= static_cast<double>(std::max<std::size_t>(doses, 1));
  const double untouched = 1.0 - 1.0 / static_cast<double>(kIntermittentOneIn);
  std::size_t n = 1;
  while (std::pow(untouched, static_cast<double>(n)) > alpha && n < 100000) ++n;
  return n;
}

std::size_t intermittent_covered(std::size_t n, double alpha, std::size_t doses) {
  if (n == 0) return 0;
  alpha /= static_cast<double>(std::max<std::size_t>(doses, 1));
  // (1 - 1/q)^n <= alpha  <=>  q <= 1 / (1 - alpha^(1/n)); checked on the integer found.
  auto q = static_cast<std::size_t>(std::floor(1.0 / (1.0 - std::pow(alpha, 1.0 / static_cast<double>(n)))));
  const auto covers = [&](std::size_t k) {
    return k >= 2 && std::pow(1.0 - 1.0 / static_cast<double>(k), static_cast<double>(n)) <= alpha;
  };
  while (q >= 2 && !covers(q)) --q;
  while (covers(q + 1)) ++q;
  return q >= 2 ? q : 0;
}

}  // namespace obscheck
