// Sequential looks: the analysis may be repeated as blocks accumulate (DESIGN.md:
// looks at 10, 20, 40, 80, ... blocks) and stop early once every configuration has a
// verdict. Looking repeatedly at a growing sample with a fixed alpha inflates the
// false-positive rate, so alpha is spent across the planned looks.
//
// The split used is Bonferroni over the planned looks: each look tests at
// alpha / K. By the union bound the probability of any false rejection over all K
// looks is <= alpha whatever the correlation between looks — conservative (Pocock or
// O'Brien-Fleming boundaries would spend alpha more efficiently but need the looks'
// joint normal distribution, which a randomization test does not give). Because the
// looks must be planned before the data are seen, K is fixed by (first, max_n).
#pragma once

#include <cstddef>
#include <optional>
#include <vector>

namespace obscheck::stats {

// DESIGN.md: the first look after 10 blocks, then doubling.
inline constexpr std::size_t kFirstLook = 10;

struct LookPlan {
  std::vector<std::size_t> looks;  // sample sizes at which to analyse, ascending
  double alpha_total;              // family-wise alpha over all looks
  double alpha_per_look;           // alpha_total / looks.size()
};

// Looks at first, 2 first, 4 first, ... while <= max_n, plus max_n itself when the
// doubling does not land on it (the last possible look always happens).
// max_n < first -> a single look at max_n. first >= 1, max_n >= 1, 0 < alpha < 1.
LookPlan plan_looks(std::size_t max_n, double alpha, std::size_t first = kFirstLook);

// Position of n in plan.looks, or nullopt when n is not a planned look.
std::optional<std::size_t> look_index(const LookPlan& plan, std::size_t n);

}  // namespace obscheck::stats
