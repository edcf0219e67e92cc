// Pooling one effect measured on several hosts, the host as a random factor
// (Kalibera & Jones, "Rigorous benchmarking in reasonable time": the machine is an
// upper level of the experiment, and a pooled answer must carry its variation).
//
// Each host gives an estimate y_i with a standard error s_i. The effects may truly
// differ between hosts: y_i = mu + u_i + e_i, u_i ~ (0, tau^2), e_i ~ (0, s_i^2).
//   - tau^2 by DerSimonian & Laird's moment estimator ("Meta-analysis in clinical
//     trials", 1986): max(0, (Q - (k - 1)) / (S1 - S2 / S1)), Q = sum w_i (y_i - y_w)^2,
//     w_i = 1 / s_i^2, S1 = sum w_i, S2 = sum w_i^2;
//   - mu by weights 1 / (s_i^2 + tau^2);
//   - its interval by Hartung & Knapp's variance with a t quantile on k - 1 degrees of
//     freedom ("A refined method for the meta-analysis of controlled clinical trials
//     with binary outcome", 2001), which keeps its coverage with few hosts, where the
//     normal interval of DerSimonian and Laird is too narrow;
//   - heterogeneity by Cochran's Q against chi^2 on k - 1 degrees of freedom, and
//     Higgins & Thompson's I^2 = max(0, (Q - (k - 1)) / Q) ("Quantifying heterogeneity
//     in a meta-analysis", 2002).
#pragma once

#include <cstddef>
#include <span>

namespace obscheck::stats {

struct RandomEffects {
  std::size_t k = 0;          // hosts
  double mean = 0;            // mu
  double lo = 0, hi = 0;      // its interval at `level`
  double se = 0;              // Hartung-Knapp standard error of mu
  double tau2 = 0;            // between-host variance
  double q = 0;               // Cochran's Q
  double p_heterogeneity = 1; // P(chi^2_{k-1} >= Q); 1 when k < 2
  double i2 = 0;              // share of the spread that is between hosts, 0..1
};

// y and se of equal length >= 1; se > 0 and finite. k == 1 gives the host's own
// estimate with a normal interval of its standard error. Throws std::invalid_argument
// otherwise, or for a level outside (0, 1).
RandomEffects random_effects(std::span<const double> y, std::span<const double> se, double level);

}  // namespace obscheck::stats
