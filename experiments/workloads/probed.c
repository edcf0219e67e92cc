/* probed: eight compile-time probe sites (probes/obsprobe.h) in one loop, site i
 * executed on every (i+1)-th iteration, so with N iterations site i runs exactly
 * floor((N-1)/(i+1)) + 1 times. Build a variant with -DOBS_PROBES=<mask> (and -I to
 * probes/) and read the counts through OBSCHECK_PROBE_DUMP_FD. The default build here
 * has OBS_PROBES=0: no probe compiled in. Usage: probed [N]   (default 100000) */
#include <stdio.h>
#include <stdlib.h>

#if __has_include("obsprobe.h")
#include "obsprobe.h"
#else
#include "../../probes/obsprobe.h"
#endif

volatile long sink;

int main(int argc, char **argv) {
  long n = argc > 1 ? strtol(argv[1], NULL, 10) : 100000;
  for (long r = 0; r < n; ++r) {
    sink += r;
    if (r % 1 == 0) OBS_PROBE(0);
    if (r % 2 == 0) OBS_PROBE(1);
    if (r % 3 == 0) OBS_PROBE(2);
    if (r % 4 == 0) OBS_PROBE(3);
    if (r % 5 == 0) OBS_PROBE(4);
    if (r % 6 == 0) OBS_PROBE(5);
    if (r % 7 == 0) OBS_PROBE(6);
    if (r % 8 == 0) OBS_PROBE(7);
  }
  printf("%ld\n", (long)sink);
  return 0;
}
