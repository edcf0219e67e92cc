/* crash: dies of SIGSEGV, so tests and `obscheck` can check that a target killed by a
 * signal is recorded as such (signal 11, no exit code) and never taken as a result.
 * Usage: crash */
#include <signal.h>
#include <stdio.h>

int main(void) {
  fflush(stdout);
  raise(SIGSEGV);
  return 0; /* not reached: SIGSEGV's default action terminates */
}
