/* split: a known hot-function split for profile fidelity (obscheck fidelity). Two
 * functions run the same loop — one multiply-add a step, so the same instructions per
 * cycle — for 70% and 30% of the iterations, interleaved in 100 rounds, so a right
 * profile gives them 70% and 30% of its samples, as an exact instruction count does
 * (timesplit.c splits time between functions whose instructions per cycle differ).
 * The multipliers differ so the compiler cannot fold the two functions into one
 * symbol.
 * Usage: split [MILLIONS]   (default 1000: about a second here) */
#include <stdio.h>
#include <stdlib.h>

#define ROUNDS 100

volatile unsigned long sink;

__attribute__((noinline, noclone)) void work_major(long n) {
  unsigned long s = sink;
  for (long i = 0; i < n; ++i) s = s * 6364136223846793005UL + (unsigned long)i;
  sink = s;
}

__attribute__((noinline, noclone)) void work_minor(long n) {
  unsigned long s = sink;
  for (long i = 0; i < n; ++i) s = s * 2862933555777941757UL + (unsigned long)i;
  sink = s;
}

int main(int argc, char **argv) {
  const long millions = argc > 1 ? strtol(argv[1], NULL, 10) : 1000;
  if (millions < 1) {
    fprintf(stderr, "usage: split [MILLIONS]  (at least 1)\n");
    return 2;
  }
  const long per_round = millions * 1000000 / ROUNDS;
  for (int r = 0; r < ROUNDS; ++r) {
    work_major(per_round / 10 * 7);
    work_minor(per_round / 10 * 3);
  }
  printf("%lu\n", sink);
  return 0;
}
