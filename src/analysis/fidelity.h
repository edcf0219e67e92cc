// analysis/: profile fidelity — is a sampling profiler's profile right, and does it
// stay right as its rate (the dose) rises? A profiler can cost little and still
// attribute time to the wrong functions (Mytkowicz, Diwan, Hauswirth and Sweeney,
// "Evaluating the accuracy of Java profilers": four profilers disagreed on the hottest
// method), so the cost a check measures is half the answer; this is the other half.
//
// The question is where the program's time goes, so the reference measures time per
// function: the program's CPU time sampled at low rates (about 500 Hz), a different
// prime rate each run, pooled over repeated runs (job/commands/fidelity_job.h). A timer that
// fires on the task's CPU time picks each instant of it alike, so a function's share
// of the samples estimates its share of the time; a low rate disturbs the program
// least; and rates with no common period, repeated with the timer's phase free, leave
// no loop of the program in step with the samples (systematic sampling in step with a
// periodic program is the one way such a sampler is biased). An instruction count
// (cachegrind) is no reference for time: it weighs a cache-missing load like an add.
//
// Pure: pooled counts in, shares, intervals and verdicts out. The comparison, per dose:
//   - shares are of every sample of the pooled profile (the kernel's, "[k] NAME", and
//     code without a symbol, "[unknown]", included: time is time wherever it goes);
//   - the compared functions are the reference's hot list (its `top` largest shares
//     of at least `min_share`) and any function the dose puts on its own hot list;
//   - each share gets a Wilson score interval (Wilson, "Probable inference, the law of
//     succession, and statistical inference", 1927), each sample taken as an
//     independent draw (a model: a timer sampling a deterministic program is closer to
//     systematic sampling, whose error is no larger for a function that runs in many
//     separate stretches); the difference dose − reference gets Newcombe's hybrid
//     score interval from the two (Newcombe, "Interval estimation for the difference
//     between independent proportions", 1998, method 10);
//   - it agrees when that difference lies within ± tolerance (share points), differs
//     when it lies wholly outside, and is undecided otherwise (too few samples yet);
//   - the level: Bonferroni over every function and dose compared, and over the looks
//     (look k spends (1 − confidence)·6/(π²k²), which sums to 1 − confidence over any
//     number of looks), so the table holds at `confidence` whenever the runs stop;
//   - a dose decided at a look is settled (keep_settled): it is not profiled again and
//     that look's verdict stands;
//   - the hot list agrees when the dose's top functions are the reference's in the
//     same order, or the same set in another order.
// Across doses: the largest spread of a compared function's share (max − min of the
// point estimates); the shares are stable when it is within the tolerance.
#pragma once

#include <cstddef>
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

namespace obscheck {

// Samples per function name.
using FunctionCounts = std::map<std::string, double>;

// A profile pooled over `runs` runs of the program.
struct PooledProfile {
  std::string label;  // the dose ("999 Hz"), or the reference's description
  std::size_t runs = 0;
  FunctionCounts samples;
};

struct FidelityOptions {
  double tolerance = 0.05;   // ± share points a profile may differ from the reference
  std::size_t top = 5;       // the hot list's length
  double min_share = 0.01;   // a function below this reference share is not on the hot list
  double confidence = 0.95;  // of the whole table (Bonferroni over functions × doses × looks)
};

enum class Agreement { agrees, differs, undecided };
const char* to_string(Agreement a);

enum class HotListMatch { same_order, same_set, differs };
const char* to_string(HotListMatch m);

struct ShareCheck {
  std::string function;
  double reference = 0;          // its share of the reference's samples
  double ref_lo = 0, ref_hi = 0;  // that share's interval
  double samples = 0;            // the dose's samples in it
  double share = 0;              // its share of the dose's samples
  double lo = 0, hi = 0;         // the share's interval
  double diff_lo = 0, diff_hi = 0;  // the interval of share − reference
  Agreement agreement = Agreement::undecided;
};

struct DoseFidelity {
  std::string dose;               // its label, as given
  std::size_t runs = 0;           // profiles pooled
  double samples = 0;             // every sample of the pooled profile
  double outside = 0;             // of them, in functions the reference never sampled
  std::vector<std::string> hot;   // the profile's hot list, hottest first
  HotListMatch hot_list = HotListMatch::differs;
  std::vector<ShareCheck> functions;  // the compared functions, by reference share
  Agreement agreement = Agreement::undecided;  // differs if one differs, else agrees if all agree
};

struct FidelityResult {
  FidelityOptions options;
  std::size_t look = 1;                    // how many times the pooled profiles were looked at
  std::size_t reference_runs = 0;
  double reference_total = 0;              // the reference's samples
  std::vector<std::string> reference_hot;  // its hot list, hottest first
  std::vector<DoseFidelity> doses;         // in the order given
  double z = 0;                            // the intervals' normal quantile
  double spread = 0;                       // the largest max − min of a share across doses
  std::string spread_function;             // whose
  bool stable = true;                      // spread <= tolerance and every hot list the same set
  Agreement agreement = Agreement::undecided;  // over the doses, as a dose's over its functions
};

// The hot list of `counts`: up to `top` names with the largest counts whose share of
// `total` is at least `min_share`, largest first, ties by name.
std::vector<std::string> hot_list(const FunctionCounts& counts, double total, std::size_t top, double min_share);

// Wilson score interval of k successes in n at normal quantile z; [0, 1] when n == 0.
std::pair<double, double> wilson_interval(double k, double n, double z);

// Newcombe's hybrid score interval of p1 − p2 from each proportion's point estimate and
// Wilson interval (method 10 of "Interval estimation for the difference between
// independent proportions").
std::pair<double, double> newcombe_difference(double p1, std::pair<double, double> ci1, double p2,
                                              std::pair<double, double> ci2);

// The name a profile gives code without a symbol ("[unknown]", observe/profile.h).
inline constexpr const char* kUnknownFunction = "[unknown]";
// The prefix of a kernel function's name in a profile.
inline constexpr const char* kKernelPrefix = "[k] ";

// The share of the program's own samples (every name but the kernel's) that have no
// function name; 0 when it has none. Above one half, a profile cannot say which of the
// program's functions is hot: no comparison can ("cannot compare: no symbols").
double unnamed_share(const FunctionCounts& samples);

// `doses` in dose order, each pooled; `look` counts from 1. Throws Error(usage) when the
// reference has no positive count, `look` is 0, or an option is out of range
// (tolerance not in (0, 1), top 0, min_share not in [0, 1), confidence not in (0, 1)).
FidelityResult assess_fidelity(const PooledProfile& reference, const std::vector<PooledProfile>& doses,
                               const FidelityOptions& options, std::size_t look = 1);

// A dose decided at an earlier look is settled: its rounds stop and that look's
// verdict stands (it held at that look's level, which the later looks' spending leaves
// alone). Replaces each dose with `settled[i]` where it holds one, then the table's
// agreement and stability again. `settled` has one entry per dose (Error(usage)
// otherwise).
void keep_settled(FidelityResult& r, const std::vector<std::optional<DoseFidelity>>& settled);

}  // namespace obscheck
