// analysis/: profile fidelity — is a sampling profiler's profile right, and does it
// stay right as its rate (the dose) rises? A profiler can cost little and still
// attribute time to the wrong functions (Mytkowicz, Diwan, Hauswirth and Sweeney,
// "Evaluating the accuracy of Java profilers": four profilers disagreed on the hottest
// method), so the cost a check measures is half the answer; this is the other half.
//
// Each dose's profile (samples per function) is compared with a reference that does
// not depend on sampling: per-function counts of an exact tool (cachegrind's
// instructions per function). Pure: counts in, shares, intervals and verdicts out; the
// runner that makes the profiles is run/fidelity.h.
//
// The comparison, per dose:
//   - the universe is the reference's functions: a sample outside them (the kernel,
//     the profiler's own start-up, code the reference never ran) is counted as
//     outside, reported, and left out of the shares, since the reference cannot say
//     where it belongs (code without a symbol is one function, "[unknown]", on both
//     sides: observe/profile.h);
//   - the compared functions are the reference's hot list (its `top` largest shares
//     of at least `min_share`) and any function the profile puts in its own hot list;
//   - a function's share of the dose's samples inside the universe gets a Wilson score
//     interval (Wilson, "Probable inference, the law of succession, and statistical
//     inference", 1927), each sample taken as an independent draw — a model: a timer
//     sampling a deterministic program is closer to systematic sampling, whose error is
//     no larger for a function that runs in many separate stretches. Its level is
//     Bonferroni-adjusted over every function and dose compared, so the whole table
//     holds at `confidence`;
//   - it agrees when the interval lies within reference ± tolerance (absolute share
//     points), differs when it lies wholly outside, and is undecided otherwise (too
//     few samples to tell);
//   - the hot list agrees when the dose's top functions are the reference's in the
//     same order, or the same set in another order.
// Across doses: the largest spread of a compared function's share (max − min of the
// point estimates); the shares are stable when it is within the tolerance.
//
// The reference counts instructions, not time: a function's instruction share is its
// time share only when the functions run at similar instructions per cycle. A report
// says so beside its verdict.
#pragma once

#include <cstddef>
#include <cstdint>
#include <map>
#include <string>
#include <vector>

namespace obscheck {

// Samples (or instructions) per function name.
using FunctionCounts = std::map<std::string, double>;

struct FidelityOptions {
  double tolerance = 0.05;   // ± share points a profile may differ from the reference
  std::size_t top = 5;       // the hot list's length
  double min_share = 0.01;   // a function below this reference share is not on the hot list
  double confidence = 0.95;  // of the whole table (Bonferroni over functions × doses)
};

enum class Agreement { agrees, differs, undecided };
const char* to_string(Agreement a);

enum class HotListMatch { same_order, same_set, differs };
const char* to_string(HotListMatch m);

struct ShareCheck {
  std::string function;
  double reference = 0;  // its share of the reference (within the universe)
  double samples = 0;    // the dose's samples in it
  double share = 0;      // its share of the dose's samples inside the universe
  double lo = 0, hi = 0;  // the share's interval
  Agreement agreement = Agreement::undecided;
};

struct DoseFidelity {
  std::string dose;               // its label, as given
  double samples = 0;             // every sample of the profile
  double outside = 0;             // of them, outside the reference's functions
  std::vector<std::string> hot;   // the profile's hot list, hottest first
  HotListMatch hot_list = HotListMatch::differs;
  std::vector<ShareCheck> functions;  // the compared functions, by reference share
  Agreement agreement = Agreement::undecided;  // differs if one differs, else agrees if all agree
};

struct FidelityResult {
  FidelityOptions options;
  double reference_total = 0;             // the reference's count over its functions
  std::vector<std::string> reference_hot;  // its hot list, hottest first
  std::vector<DoseFidelity> doses;        // in the order given
  double z = 0;                           // the intervals' normal quantile
  double spread = 0;                      // the largest max − min of a share across doses
  std::string spread_function;            // whose
  bool stable = true;                     // spread <= tolerance and every hot list the same set
  Agreement agreement = Agreement::undecided;  // over the doses, as a dose's over its functions
};

// The hot list of `counts`: up to `top` names with the largest counts whose share of
// `total` is at least `min_share`, largest first, ties by name.
std::vector<std::string> hot_list(const FunctionCounts& counts, double total, std::size_t top, double min_share);

// Wilson score interval of k successes in n at normal quantile z; [0, 1] when n == 0.
std::pair<double, double> wilson_interval(double k, double n, double z);

// `profiles`: (dose label, samples per function) in dose order. Throws Error(usage)
// when the reference is empty or has no positive count, or an option is out of range
// (tolerance not in (0, 1), top 0, min_share not in [0, 1), confidence not in (0, 1)).
FidelityResult assess_fidelity(const FunctionCounts& reference,
                               const std::vector<std::pair<std::string, FunctionCounts>>& profiles,
                               const FidelityOptions& options);

}  // namespace obscheck
