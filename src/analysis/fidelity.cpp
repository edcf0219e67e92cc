#include "analysis/fidelity.h"

#include <fmt/core.h>

#include <algorithm>
#include <cmath>

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

// The profile's samples inside the reference's functions.
FunctionCounts inside(const FunctionCounts& profile, const FunctionCounts& reference) {
  FunctionCounts in;
  for (const auto& [name, c] : profile)
    if (reference.count(name) && c > 0) in[name] = c;
  return in;
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
  std::stable_sort(names.begin(), names.end(),
                   [&](const std::string& a, const std::string& b) { return reference.at(a) > reference.at(b); });
  return names;
}

Agreement share_agreement(double lo, double hi, double ref, double tolerance) {
  if (lo >= ref - tolerance && hi <= ref + tolerance) return Agreement::agrees;
  if (hi < ref - tolerance || lo > ref + tolerance) return Agreement::differs;
  return Agreement::undecided;
}

// Differs if any part differs, agrees if every part agrees, else undecided.
Agreement combine(const std::vector<Agreement>& parts) {
  if (std::find(parts.begin(), parts.end(), Agreement::differs) != parts.end()) return Agreement::differs;
  if (!parts.empty() && std::all_of(parts.begin(), parts.end(), [](Agreement a) { return a == Agreement::agrees; }))
    return Agreement::agrees;
  return Agreement::undecided;
}

void fill_dose(DoseFidelity& d, const FunctionCounts& in, const FunctionCounts& reference, double ref_total,
               const std::vector<std::string>& names, double z, double tolerance) {
  const double n = total_of(in);
  std::vector<Agreement> parts;
  for (const std::string& name : names) {
    ShareCheck s;
    s.function = name;
    s.reference = reference.at(name) / ref_total;
    s.samples = in.count(name) ? in.at(name) : 0;
    s.share = n > 0 ? s.samples / n : 0;
    std::tie(s.lo, s.hi) = wilson_interval(s.samples, n, z);
    s.agreement = share_agreement(s.lo, s.hi, s.reference, tolerance);
    parts.push_back(s.agreement);
    d.functions.push_back(s);
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

}  // namespace

FidelityResult assess_fidelity(const FunctionCounts& reference,
                               const std::vector<std::pair<std::string, FunctionCounts>>& profiles,
                               const FidelityOptions& options) {
  check_options(options);
  FidelityResult r;
  r.options = options;
  r.reference_total = total_of(reference);
  if (r.reference_total <= 0)
    throw Error(ErrorKind::usage, "the reference profile is empty: no function has a positive count");
  r.reference_hot = hot_list(reference, r.reference_total, options.top, options.min_share);

  std::vector<FunctionCounts> in;
  std::vector<std::vector<std::string>> names;
  std::size_t comparisons = 0;
  for (const auto& [label, profile] : profiles) {
    DoseFidelity d;
    d.dose = label;
    d.samples = total_of(profile);
    in.push_back(inside(profile, reference));
    d.outside = d.samples - total_of(in.back());
    d.hot = hot_list(in.back(), total_of(in.back()), options.top, options.min_share);
    d.hot_list = match(r.reference_hot, d.hot);
    names.push_back(compared(r.reference_hot, d.hot, reference));
    comparisons += names.back().size();
    r.doses.push_back(std::move(d));
  }
  // Two-sided, Bonferroni over every interval of the table.
  const double alpha = (1 - options.confidence) / static_cast<double>(std::max<std::size_t>(comparisons, 1));
  r.z = boost::math::quantile(stats::Normal(), 1 - alpha / 2);
  std::vector<Agreement> parts;
  for (std::size_t i = 0; i < r.doses.size(); ++i) {
    fill_dose(r.doses[i], in[i], reference, r.reference_total, names[i], r.z, options.tolerance);
    parts.push_back(r.doses[i].agreement);
  }
  r.agreement = combine(parts);
  fill_stability(r);
  return r;
}

}  // namespace obscheck
