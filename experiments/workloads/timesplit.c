/* timesplit: a known split of CPU time between two functions that run at very different
 * instructions per cycle, for profile fidelity (obscheck fidelity). time_slow() runs a
 * chain of dependent divisions (a few instructions per division, tens of cycles each);
 * time_fast() runs independent additions (several per cycle). Each runs until the
 * thread's own CPU clock (CLOCK_THREAD_CPUTIME_ID) says its part of a slice has passed,
 * PERCENT% of each slice for time_slow and the rest for time_fast, in 20 slices, so a
 * right profile of time gives them PERCENT% and 100 - PERCENT% of its samples, while an
 * instruction count gives time_fast by far the most. The clock is read every 0.3 ms or
 * so of work (a system call, well under 1% of the time). It prints the split it
 * measured.
 * Usage: timesplit [MILLISECONDS [PERCENT]]   (defaults 300 ms, 70%) */
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#define SLICES 20
/* Work between two reads of the clock: about 0.3 ms either way here, so that the reads
 * (a system call of a few microseconds on a virtual machine) stay well under 1%. */
#define SLOW_STEPS 24000
#define FAST_STEPS 600000

volatile unsigned long sink;

static long long thread_ns(void) {
  struct timespec t;
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t);
  return (long long)t.tv_sec * 1000000000LL + t.tv_nsec;
}

/* Runs until the thread's CPU clock reaches `until`; returns the nanoseconds it took. */
__attribute__((noinline, noclone)) long long time_slow(long long until) {
  const long long from = thread_ns();
  unsigned long x = sink | 0x8000000000000000UL, d = 3;
  long long now = from;
  while (now < until) {
    for (int i = 0; i < SLOW_STEPS; ++i) x = x / d + 0x8000000000000000UL; /* each division waits for the last */
    now = thread_ns();
  }
  sink = x;
  return now - from;
}

__attribute__((noinline, noclone)) long long time_fast(long long until) {
  const long long from = thread_ns();
  unsigned long a = sink, b = 1, c = 2, e = 3;
  long long now = from;
  while (now < until) {
    for (int i = 0; i < FAST_STEPS; ++i) {
      a += 1;
      b += 3;
      c += 5;
      e += 7;
      __asm__ volatile("" : "+r"(a), "+r"(b), "+r"(c), "+r"(e)); /* each step kept, not folded into one */
    }
    now = thread_ns();
  }
  sink = a ^ b ^ c ^ e;
  return now - from;
}

int main(int argc, char **argv) {
  const long ms = argc > 1 ? strtol(argv[1], NULL, 10) : 300;
  const long percent = argc > 2 ? strtol(argv[2], NULL, 10) : 70;
  if (ms < 1 || ms > 3600000 || percent < 0 || percent > 100) {
    fprintf(stderr, "usage: timesplit [MILLISECONDS [PERCENT]]  (1..3600000 ms, 0..100%%)\n");
    return 2;
  }
  const long long slice = ms * 1000000LL / SLICES;
  long long slow = 0, fast = 0, at = thread_ns();
  for (int s = 0; s < SLICES; ++s) {
    slow += time_slow(at + slice * percent / 100);
    fast += time_fast(at + slice);
    at += slice;
  }
  printf("time_slow %.1f%% time_fast %.1f%% of %.0f ms of CPU time\n", 100.0 * slow / (slow + fast),
         100.0 * fast / (slow + fast), (slow + fast) / 1e6);
  return 0;
}
