// analysis/hosts: the pooled blocks of hosts whose d lay within the margin in every
// block (pooled_range), on fixed comparisons.
#include <catch2/catch.hpp>

#include <cmath>
#include <vector>

#include "analysis/hosts.h"

using namespace obscheck;

namespace {

Comparison within(std::size_t n, double lo, double hi, double margin = 0.5) {
  Comparison c;
  c.n = n;
  c.range_lo = lo;
  c.range_hi = hi;
  c.margin = margin;
  return c;
}

}  // namespace

TEST_CASE("hosts: blocks equal on every host pool into one range once 2^(1-N) is within 1 - coverage") {
  const Comparison a = within(6, 0, 0), b = within(5, 0, 0);
  double lo = 1, hi = 1;
  // 6 + 5 blocks: 2^-10 <= 10%, and 11 blocks would have shown an effect on 1 run in 4
  // ((3/4)^11 = 4.2% <= alpha = (1 - 0.90) / 2).
  CHECK(pooled_range({&a, &b}, 0.5, 0.90, lo, hi) == 11);
  CHECK(lo == 0);
  CHECK(hi == 0);
  // 3 + 3 blocks: the range holds (2^-5 = 3.1%), but 6 runs miss an effect on 1 run in
  // 4 in 18% of checks: nothing pooled.
  const Comparison a3 = within(3, 0, 0), b3 = within(3, 0, 0);
  CHECK(pooled_range({&a3, &b3}, 0.5, 0.90, lo, hi) == 0);
  // 2 + 2 blocks: 2^-3 = 12.5% > 10%: nothing pooled.
  const Comparison c = within(2, 0, 0), d = within(2, 0, 0);
  CHECK(pooled_range({&c, &d}, 0.5, 0.90, lo, hi) == 0);
  // Within the margin but not equal: the range is the smallest and largest d.
  const Comparison e = within(8, -0.2, 0.1), f = within(4, 0, 0.3);
  CHECK(pooled_range({&e, &f}, 0.5, 0.90, lo, hi) == 12);
  CHECK(lo == -0.2);
  CHECK(hi == 0.3);
}

TEST_CASE("hosts: one host beyond the margin, or without the comparison, pools nothing") {
  const Comparison a = within(3, 0, 0), beyond = within(3, 0, 0.5), none{};
  double lo = 0, hi = 0;
  CHECK(pooled_range({&a, &beyond}, 0.5, 0.90, lo, hi) == 0);  // the margin is strict
  CHECK(pooled_range({&a, &none}, 0.5, 0.90, lo, hi) == 0);    // no pairs
  CHECK(pooled_range({&a, nullptr}, 0.5, 0.90, lo, hi) == 0);  // the host has no such comparison
  // A host's own margin, when smaller, is the one its blocks must keep.
  const Comparison narrow = within(3, 0, 0.2, 0.1);
  CHECK(pooled_range({&a, &narrow}, 0.5, 0.90, lo, hi) == 0);
}
