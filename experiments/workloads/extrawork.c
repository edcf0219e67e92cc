/* extrawork: a known amount of extra work that leaves the output unchanged, so two
 * variants are comparable (same exit status, same output digest) and one of them is
 * known to be slower: `obscheck compare -- extrawork 200 ::: extrawork 200 10` must
 * say "worse" (10% more iterations of the same kernel).
 * Usage: extrawork SCALE [EXTRA_PERCENT]   (SCALE thousand iterations, plus that %) */
#include <stdio.h>
#include <stdlib.h>

static unsigned kernel(long iterations, unsigned x) {
  for (long i = 0; i < iterations; ++i) x = x * 1103515245u + 12345u + (x >> 7);
  return x;
}

int main(int argc, char **argv) {
  const long scale = argc > 1 ? strtol(argv[1], NULL, 10) : 200;
  const long extra_percent = argc > 2 ? strtol(argv[2], NULL, 10) : 0;
  const unsigned result = kernel(scale * 1000, 1);
  unsigned extra = kernel(scale * 10 * extra_percent, 2);
  /* The extra result must be computed but must not reach the output. */
  __asm__ volatile("" : : "r"(extra) : "memory");
  printf("%u\n", result);
  return 0;
}
