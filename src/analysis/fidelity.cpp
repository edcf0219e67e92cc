#include "analysis/fidelity.h"

#include <fmt/core.h>

#include <algorithm>
#include <cmath>
#include <numbers>

#include "stats/distributions.h"
#include "util/error.h"

namespace obscheck {

const char* to_string(Agreement a) {
  switch (a) {
    case Agreement::agrees: return "agrees";
    case Agreement::differs: return "differs";
    case Agreement::undecided: return "undecided";
  }
  return "undecided";
}

const char* to_string(HotListMatch m) {
  switch (m) {
    case HotListMatch::same_order: return "same order";
    case HotListMatch::same_set: return "same set, other order";
    case HotListMatch::differs: return "differs";
  }
  return "differs";
}

std::vector<std::string> hot_list(const FunctionCounts& counts, double total, std::size_t top, double min_share) {
  std::vector<std::pair<std::string, double>> all(counts.begin(), counts.end());
  std::sort(all.begin(), all.end(), [](const auto& a, const auto& b) {
    return a.second != b.second ? a.second > b.second : a.first < b.first;
  });
  std::vector<std::string> out;
  for (const auto& [name, count] : all) {
    if (out.size() >= top || total <= 0 || count / total < min_share || count <= 0) break;
    out.push_back(name);
  }
  return out;
}

std::pair<double, double> wilson_interval(double k, double n, double z) {
  if (n <= 0) return {0.0, 1.0};
  const double p = k / n, z2 = z * z;
  const double centre = (p + z2 / (2 * n)) / (1 + z2 / n);
  const double half = z / (1 + z2 / n) * std::sqrt(p * (1 - p) / n + z2 / (4 * n * n));
  return {std::max(0.0, centre - half), std::min(1.0, centre + half)};
}

std::pair<double, double> newcombe_difference(double p1, std::pair<double, double> ci1, double p2,
                                              std::pair<double, double> ci2) {
  const double d = p1 - p2;
  return {d - std::sqrt((p1 - ci1.first) * (p1 - ci1.first) + (ci2.second - p2) * (ci2.second - p2)),
          d + std::sqrt((ci1.second - p1) * (ci1.second - p1) + (p2 - ci2.first) * (p2 - ci2.first))};
}

double unnamed_share(const FunctionCounts& samples) {
  double own = 0, unnamed = 0;
  for (const auto& [name, c] : samples) {
    if (c <= 0 || name.rfind(kKernelPrefix, 0) == 0) continue;
    own += c;
    if (name == kUnknownFunction) unnamed += c;
  }
  return own > 0 ? unnamed / own : 0;
}

namespace {

void check_options(const FidelityOptions& o) {
  if (!(o.tolerance > 0 && o.tolerance < 1))
    throw Error(ErrorKind::usage, fmt::format("the fidelity tolerance is a share in (0, 1), not {}", o.tolerance),
                "e.g. 0.05: five share points");
  if (o.top == 0) throw Error(ErrorKind::usage, "the hot list needs at least one function");
  if (!(o.min_share >= 0 && o.min_share < 1))
    throw Error(ErrorKind::usage, fmt::format("the hot list's smallest share is in [0, 1), not {}", o.min_share));
  if (!(o.confidence > 0 && o.confidence < 1))
    throw Error(ErrorKind::usage, fmt::format("the confidence is in (0, 1), not {}", o.confidence));
}

double total_of(const FunctionCounts& counts) {
  double t = 0;
  for (const auto& [name, c] : counts) t += std::max(0.0, c);
  return t;
}

double count_of(const FunctionCounts& counts, const std::string& name) {
  const auto it = counts.find(name);
  return it == counts.end() ? 0.0 : std::max(0.0, it->second);
}

// The profile's samples in functions the reference never sampled.
double outside_of(const FunctionCounts& profile, const FunctionCounts& reference) {
  double out = 0;
  for (const auto& [name, c] : profile)
    if (c > 0 && count_of(reference, name) <= 0) out += c;
  return out;
}

HotListMatch match(const std::vector<std::string>& reference, const std::vector<std::string>& profile) {
  if (reference == profile) return HotListMatch::same_order;
  std::vector<std::string> a = reference, b = profile;
  std::sort(a.begin(), a.end());
  std::sort(b.begin(), b.end());
  return a == b ? HotListMatch::same_set : HotListMatch::differs;
}

// The compared functions of one dose: the reference's hot list, then the profile's own
// hot functions it lacks, by reference share.
std::vector<std::string> compared(const std::vector<std::string>& reference_hot, const std::vector<std::string>& hot,
                                  const FunctionCounts& reference) {
  std::vector<std::string> names = reference_hot;
  for (const std::string& h : hot)
    if (std::find(names.begin(), names.end(), h) == names.end()) names.push_back(h);
  std::stable_sort(names.begin(), names.end(), [&](const std::string& a, const std::string& b) {
    return count_of(reference, a) > count_of(reference, b);
  });
  return names;
}

Agreement difference_agreement(double lo, double hi, double tolerance) {
  if (lo >= -tolerance && hi <= tolerance) return Agreement::agrees;
  if (hi < -tolerance || lo > tolerance) return Agreement::differs;
  return Agreement::undecided;
}

// Differs if any part differs, agrees if every part agrees, else undecided.
Agreement combine(const std::vector<Agreement>& parts) {
  if (std::find(parts.begin(), parts.end(), Agreement::differs) != parts.end()) return Agreement::differs;
  if (!parts.empty() && std::all_of(parts.begin(), parts.end(), [](Agreement a) { return a == Agreement::agrees; }))
    return Agreement::agrees;
  return Agreement::undecided;
}

ShareCheck share_check(const std::string& name, const FunctionCounts& dose, double n, const FunctionCounts& reference,
                       double ref_n, double z, double tolerance) {
  ShareCheck s;
  s.function = name;
  s.reference = count_of(reference, name) / ref_n;
  std::tie(s.ref_lo, s.ref_hi) = wilson_interval(count_of(reference, name), ref_n, z);
  s.samples = count_of(dose, name);
  s.share = n > 0 ? s.samples / n : 0;
  std::tie(s.lo, s.hi) = wilson_interval(s.samples, n, z);
  std::tie(s.diff_lo, s.diff_hi) = newcombe_difference(s.share, {s.lo, s.hi}, s.reference, {s.ref_lo, s.ref_hi});
  s.agreement = n > 0 ? difference_agreement(s.diff_lo, s.diff_hi, tolerance) : Agreement::undecided;
  return s;
}

void fill_dose(DoseFidelity& d, const FunctionCounts& dose, const FunctionCounts& reference, double ref_total,
               const std::vector<std::string>& names, double z, double tolerance) {
  std::vector<Agreement> parts;
  for (const std::string& name : names) {
    d.functions.push_back(share_check(name, dose, d.samples, reference, ref_total, z, tolerance));
    parts.push_back(d.functions.back().agreement);
  }
  d.agreement = combine(parts);
}

// The largest spread of a compared function's share across the doses.
void fill_stability(FidelityResult& r) {
  std::map<std::string, std::pair<double, double>> range;
  for (const DoseFidelity& d : r.doses)
    for (const ShareCheck& s : d.functions) {
      auto [it, fresh] = range.try_emplace(s.function, s.share, s.share);
      if (!fresh) it->second = {std::min(it->second.first, s.share), std::max(it->second.second, s.share)};
    }
  for (const auto& [name, lohi] : range)
    if (lohi.second - lohi.first > r.spread) {
      r.spread = lohi.second - lohi.first;
      r.spread_function = name;
    }
  r.stable = r.spread <= r.options.tolerance;
  for (const DoseFidelity& d : r.doses)
    if (match(r.doses.front().hot, d.hot) == HotListMatch::differs) r.stable = false;
}

// Two-sided alpha of one interval at look `look` among `comparisons`: the look's share
// of 1 − confidence (6/(π²k²), summing to one over all looks), split evenly.
double interval_alpha(double confidence, std::size_t look, std::size_t comparisons) {
  const double k = static_cast<double>(look);
  const double spent = (1 - confidence) * 6 / (std::numbers::pi * std::numbers::pi * k * k);
  return spent / static_cast<double>(std::max<std::size_t>(comparisons, 1));
}

}  // namespace

FidelityResult assess_fidelity(const PooledProfile& reference, const std::vector<PooledProfile>& doses,
                               const FidelityOptions& options, std::size_t look) {
  check_options(options);
  if (look == 0) throw Error(ErrorKind::usage, "the looks at the profiles count from 1");
  FidelityResult r;
  r.options = options;
  r.look = look;
  r.reference_runs = reference.runs;
  r.reference_total = total_of(reference.samples);
  if (r.reference_total <= 0)
    throw Error(ErrorKind::usage, "the reference profile is empty: no function has a positive count");
  r.reference_hot = hot_list(reference.samples, r.reference_total, options.top, options.min_share);

  std::vector<std::vector<std::string>> names;
  std::size_t comparisons = 0;
  for (const PooledProfile& p : doses) {
    DoseFidelity d;
    d.dose = p.label;
    d.runs = p.runs;
    d.samples = total_of(p.samples);
    d.outside = outside_of(p.samples, reference.samples);
    d.hot = hot_list(p.samples, d.samples, options.top, options.min_share);
    d.hot_list = match(r.reference_hot, d.hot);
    names.push_back(compared(r.reference_hot, d.hot, reference.samples));
    comparisons += names.back().size();
    r.doses.push_back(std::move(d));
  }
  const double alpha = interval_alpha(options.confidence, look, comparisons);
  r.z = boost::math::quantile(stats::Normal(), 1 - alpha / 2);
  std::vector<Agreement> parts;
  for (std::size_t i = 0; i < r.doses.size(); ++i) {
    fill_dose(r.doses[i], doses[i].samples, reference.samples, r.reference_total, names[i], r.z, options.tolerance);
    parts.push_back(r.doses[i].agreement);
  }
  r.agreement = combine(parts);
  fill_stability(r);
  return r;
}

void keep_settled(FidelityResult& r, const std::vector<std::optional<DoseFidelity>>& settled) {
  if (settled.size() != r.doses.size())
    throw Error(ErrorKind::usage, fmt::format("{} settled entries for {} doses", settled.size(), r.doses.size()));
  std::vector<Agreement> parts;
  for (std::size_t i = 0; i < r.doses.size(); ++i) {
    if (settled[i]) r.doses[i] = *settled[i];
    parts.push_back(r.doses[i].agreement);
  }
  r.agreement = combine(parts);
  r.spread = 0;
  r.spread_function.clear();
  fill_stability(r);
}

}  // namespace obscheck
