/* layout: cache conflicts that only the layout decides, in a program whose output
 * does not depend on its layout (so natural, held and sham runs stay comparable).
 * A global buffer (fixed address: ASLR off) and a stack buffer of SPAN bytes each
 * (the stack one moves with the environment's size) are touched alternately every 32
 * bytes, ITERATIONS times. In a direct-mapped L1d a touched line misses whenever the
 * other buffer's line in the same set was touched since: the misses count how far the
 * two buffers' cache sets overlap, which depends on nothing but where the stack landed.
 *   - SPAN = half the cache (e.g. 1024 bytes in --sim-cache D1=2048,1,32): the buffers
 *     are two half-circles on the ring of sets, so every move of the stack by a line
 *     changes the misses (the counters' own environment variable is enough).
 *   - SPAN small (e.g. 256 bytes in D1=4096,1,64): the misses spike only where the
 *     two buffers meet, once every cache size (4 KiB) of environment.
 * Prints a checksum of the buffers, the same for every layout.
 * Usage: layout [ITERATIONS [SPAN]]   (defaults 2000 and 1024; SPAN at most 4096) */
#include <stdio.h>
#include <stdlib.h>

#define STRIDE 32
#define MAX_SPAN 4096

static volatile char global_buf[MAX_SPAN] __attribute__((aligned(64)));

/* Kept out of main so the stack buffer sits in a frame of its own, below main's. */
static __attribute__((noinline)) unsigned touch_alternately(long iterations, long span) {
  volatile char stack_buf[MAX_SPAN];
  unsigned sum = 0;
  for (long at = 0; at < span; at += STRIDE) stack_buf[at] = 0;
  for (long i = 0; i < iterations; ++i)
    for (long at = 0; at < span; at += STRIDE) {
      global_buf[at] += 1;
      stack_buf[at] += 1;
    }
  for (long at = 0; at < span; at += STRIDE) sum += (unsigned char)stack_buf[at] + (unsigned char)global_buf[at];
  return sum;
}

int main(int argc, char **argv) {
  const long iterations = argc > 1 ? strtol(argv[1], NULL, 10) : 2000;
  long span = argc > 2 ? strtol(argv[2], NULL, 10) : 1024;
  if (span < STRIDE || span > MAX_SPAN) {
    fprintf(stderr, "layout: SPAN must be %d..%d bytes\n", STRIDE, MAX_SPAN);
    return 2;
  }
  printf("%u\n", touch_alternately(iterations, span));
  return 0;
}
