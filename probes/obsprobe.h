/* obsprobe.h — compile-time software probes (the paper's software metrics,
 * Mytkowicz et al., "Observer Effect and Measurement Bias in Performance Analysis" §4.1.2: "the instrumentation for an event takes the form of an increment
 * to a global variable").
 *
 *   #include "obsprobe.h"
 *   ... OBS_PROBE(3); ...          id: an integer constant 0..63
 *
 *   cc -O2 -DOBS_PROBES=5 prog.c    compiles probes 0 and 2 in, every other one out
 *
 * OBS_PROBES is a compile-time integer (decimal or 0x... hex), default 0: bit `id`
 * set means OBS_PROBE(id) is compiled to one increment of obs_probe_counts[id];
 * clear means it compiles to nothing at all. The choice is made by the preprocessor
 * and the compiler's constant folding, so a compiled-in probe is the bare increment
 * with no run-time test around it, and a compiled-out one leaves no code.
 *
 * The increment is a volatile read-modify-write, so every execution of the site
 * performs its own load, add and store, as a source-level instrumentation does;
 * without it an optimising compiler may sum a loop's increments into one add after
 * the loop, and the probe would no longer cost in proportion to its executions.
 * Increments are not atomic: counts are exact for single-threaded code (threads
 * racing on one site may lose increments, as the paper's global variables would).
 *
 * obs_probe_counts is a weak definition, so every translation unit that includes
 * this header shares one array (the linker keeps one copy; -fno-common is fine).
 *
 * Reading the counts out: when the environment variable OBSCHECK_PROBE_DUMP_FD names
 * an open file descriptor, the counts are written to it when the program exits
 * normally (return from main or exit(); not _exit or a fatal signal), as text:
 *     obsprobe mask=<OBS_PROBES in decimal>
 *     <id> <count>          one line per id compiled in, ascending
 * When the variable is unset nothing is written: the program's output and behaviour
 * are unchanged. The exit hook exists in every build, OBS_PROBES=0 included, so that
 * variants differ only in their probe sites. OBS_PROBE_DUMP() writes the same text
 * at any point (it also marks the counts as written, so the exit hook stays quiet).
 */
#ifndef OBSCHECK_OBSPROBE_H
#define OBSCHECK_OBSPROBE_H

#include <stdlib.h>
#include <unistd.h>

#ifndef OBS_PROBES
#define OBS_PROBES 0
#endif

#define OBS_PROBE_MAX 64

#ifdef __cplusplus
extern "C" {
#endif

__attribute__((weak)) unsigned long long obs_probe_counts[OBS_PROBE_MAX];
__attribute__((weak)) int obs_probe_dumped;

/* Bit `id` of OBS_PROBES, as a constant expression. An id outside 0..63 is a compile
 * error (a negative array size). */
#define OBS_PROBE_ENABLED(id)                                          \
  ((void)sizeof(char[((id) >= 0 && (id) < OBS_PROBE_MAX) ? 1 : -1]), \
   (((unsigned long long)(OBS_PROBES) >> ((id) & 63)) & 1ULL))

#define OBS_PROBE(id)                                                                         \
  do {                                                                                        \
    if (OBS_PROBE_ENABLED(id)) ++*(volatile unsigned long long*)&obs_probe_counts[(id) & 63]; \
  } while (0)

/* Appends the decimal form of v to p; returns the new end. */
static inline char* obs_probe_put_u64_(char* p, unsigned long long v) {
  char tmp[24];
  int n = 0;
  do {
    tmp[n++] = (char)('0' + v % 10);
    v /= 10;
  } while (v);
  while (n) *p++ = tmp[--n];
  return p;
}

/* Writes the counts to OBSCHECK_PROBE_DUMP_FD; nothing when it is unset or invalid.
 * Only async-signal-safe calls (getenv aside): no stdio, so the program's buffered
 * output is not disturbed. Weak, so all translation units share one. */
__attribute__((weak)) void obs_probe_dump(void) {
  const char* s = getenv("OBSCHECK_PROBE_DUMP_FD");
  char* end = 0;
  long fd;
  char buf[64 * 32 + 64];
  char* p = buf;
  const char head[] = "obsprobe mask=";
  unsigned i;
  if (!s || !*s) return;
  fd = strtol(s, &end, 10);
  if (*end || fd < 0) return;
  obs_probe_dumped = 1;
  for (i = 0; i < sizeof head - 1; ++i) *p++ = head[i];
  p = obs_probe_put_u64_(p, (unsigned long long)(OBS_PROBES));
  *p++ = '\n';
  for (i = 0; i < OBS_PROBE_MAX; ++i) {
    if (!((((unsigned long long)(OBS_PROBES)) >> i) & 1ULL)) continue;
    p = obs_probe_put_u64_(p, i);
    *p++ = ' ';
    p = obs_probe_put_u64_(p, obs_probe_counts[i]);
    *p++ = '\n';
  }
  {
    const char* q = buf;
    while (q < p) {
      ssize_t w = write((int)fd, q, (size_t)(p - q));
      if (w <= 0) break;
      q += w;
    }
  }
}

/* Every translation unit registers this hook; they all resolve to one definition,
 * and the flag makes it write once. */
__attribute__((weak, destructor)) void obs_probe_dump_at_exit(void) {
  if (!obs_probe_dumped) obs_probe_dump();
}

#define OBS_PROBE_DUMP() obs_probe_dump()

#ifdef __cplusplus
}
#endif

#endif /* OBSCHECK_OBSPROBE_H */
