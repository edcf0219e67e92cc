/* compute: the default workload. A deterministic integer and floating-point kernel
 * over a 64 KiB array, long enough (~20 ms at the default scale) for task-clock to
 * be well above timer resolution, short enough to repeat hundreds of times.
 * Usage: compute [SCALE]   (work grows linearly with SCALE, default 1000)
 * COMPUTE_EXTRA_PERMILLE=P in the environment adds P/1000 of the work again (the same
 * kernel, its result kept out of the output, so the output digest stays the same): a
 * known effect for tools/bench/time_to_answer, set at a dose by an --observer-cmd
 * `env COMPUTE_EXTRA_PERMILLE={level} {argv}`. */
#include <stdio.h>
#include <stdlib.h>

#define N 8192

static double data[N];

int main(int argc, char **argv) {
  long scale = argc > 1 ? strtol(argv[1], NULL, 10) : 1000;
  unsigned x = 12345;
  for (int i = 0; i < N; ++i) {
    x = x * 1103515245u + 12345u;
    data[i] = (double)(x >> 8) / 16777216.0;
  }
  double acc = 0;
  for (long r = 0; r < scale; ++r)
    for (int i = 0; i < N; ++i) {
      acc += data[i] * data[(i * 7 + r) % N];
      if (acc > 1e9) acc *= 0.5;
    }
  const char *extra = getenv("COMPUTE_EXTRA_PERMILLE");
  const long extra_rounds = extra ? scale * strtol(extra, NULL, 10) / 1000 : 0;
  double spare = 0;
  for (long r = 0; r < extra_rounds; ++r)
    for (int i = 0; i < N; ++i) {
      spare += data[i] * data[(i * 7 + r) % N];
      if (spare > 1e9) spare *= 0.5;
    }
  __asm__ volatile("" : : "r"(&spare) : "memory");
  /* The result goes to stdout so the output digest pins the computation. */
  printf("%.6f\n", acc);
  return 0;
}
