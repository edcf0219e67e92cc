/* hot: one hot function and one called once, for the software-probe and breakpoint
 * observers. hot_step() is called exactly N times (default 5000) and does ~1.5 us of
 * arithmetic, so the run takes ~8 ms; a uprobe or breakpoint on it costs a trap per
 * call (~35 us each on the KVM guest this was written on: +170 ms), while a probe on
 * cold_setup(), called exactly once, costs one trap in the whole run. N is kept small
 * so that a sweep of many probed runs stays short on such a host.
 * Both are kept out of line and never cloned, so their symbols are the code that runs.
 * Usage: hot [N] */
#include <stdio.h>
#include <stdlib.h>

/* Iterations of the inner mix per call: enough work that the call is not all
 * overhead, little enough that the probe's trap dominates when probed. */
#define MIX_ROUNDS 1000

static unsigned long state = 88172645463325252UL;

__attribute__((noinline, noclone, used)) unsigned long hot_step(unsigned long x) {
  for (int i = 0; i < MIX_ROUNDS; ++i) {
    x ^= x << 13;
    x ^= x >> 7;
    x ^= x << 17;
  }
  return x;
}

__attribute__((noinline, noclone, used)) void cold_setup(long n) { state ^= (unsigned long)n * 2654435761UL; }

int main(int argc, char **argv) {
  long n = argc > 1 ? strtol(argv[1], NULL, 10) : 5000;
  cold_setup(n);
  for (long i = 0; i < n; ++i) state = hot_step(state + (unsigned long)i);
  printf("%lu\n", state);
  return 0;
}
