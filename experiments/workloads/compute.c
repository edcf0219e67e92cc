/* compute: the default workload. A deterministic integer and floating-point kernel
 * over a 64 KiB array, long enough (~20 ms at the default scale) for task-clock to
 * be well above timer resolution, short enough to repeat hundreds of times.
 * Usage: compute [SCALE]   (work grows linearly with SCALE, default 1000) */
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
  /* The result goes to stdout so the output digest pins the computation. */
  printf("%.6f\n", acc);
  return 0;
}
