/* linkorder: a program of several objects whose functions call across files in a
 * hot loop, so the order in which the objects are linked moves every function to a
 * different address (Mytkowicz et al., "Observer Effect and Measurement Bias in Performance Analysis" §4.2.2). Build each .c with cc -O2 -c, link them in
 * any order: the output is the same, the layout is not.
 * Usage: linkorder [ITERATIONS]   (default 200000) */
#include <stdio.h>
#include <stdlib.h>

#include "linkorder.h"

int main(int argc, char **argv) {
  const long n = argc > 1 ? strtol(argv[1], NULL, 10) : 200000;
  unsigned acc = 1;
  for (long i = 0; i < n; ++i) acc = step_a(acc) ^ step_b(acc) ^ step_c(acc) ^ step_d(acc);
  printf("%u\n", acc);
  return 0;
}
