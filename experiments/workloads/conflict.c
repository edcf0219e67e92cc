/* conflict: a cache-set conflict that only the layout decides. A 64-byte global
 * buffer (fixed address: ASLR off) and a 64-byte stack buffer (its address moves
 * with the environment's size) are touched alternately, ITERATIONS times each. In a
 * direct-mapped L1 data cache the two lines share a set exactly when their addresses
 * agree modulo the cache size: then every touch evicts the other line and misses (two
 * misses per iteration); otherwise the loop misses nothing after its first touch.
 * Example: under --backend sim --sim-cache D1=4096,1,64 (64 sets) an environment
 * sweep in steps of 64 bytes over 4 KiB meets the conflict at one size in 64.
 * Usage: conflict [ITERATIONS]   (default 100000) */
#include <stdio.h>
#include <stdlib.h>

#define LINE 64

static volatile char global_buf[LINE] __attribute__((aligned(LINE)));

/* Kept out of main so the stack buffer sits in a frame of its own, below main's. */
static __attribute__((noinline)) void touch_alternately(long iterations) {
  volatile char stack_buf[LINE] __attribute__((aligned(LINE)));
  stack_buf[0] = 0;
  printf("stack=%p global=%p\n", (void *)stack_buf, (void *)global_buf);
  fflush(stdout);
  for (long i = 0; i < iterations; ++i) {
    global_buf[0] += 1;
    stack_buf[0] += 1;
  }
}

int main(int argc, char **argv) {
  long iterations = argc > 1 ? strtol(argv[1], NULL, 10) : 100000;
  touch_alternately(iterations);
  return 0;
}
