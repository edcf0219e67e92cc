/* calls: calls obs_hot() N times and obs_once() once, both kept out of line, so a
 * uprobe or breakpoint on them must count exactly N and 1. Usage: calls [N] */
#include <stdio.h>
#include <stdlib.h>

volatile long sink;

__attribute__((noinline, used)) void obs_hot(long i) { sink += i; }
__attribute__((noinline, used)) void obs_once(void) { sink ^= 0x5a5a; }

int main(int argc, char **argv) {
  long n = argc > 1 ? strtol(argv[1], NULL, 10) : 100000;
  obs_once();
  for (long i = 0; i < n; ++i) obs_hot(i);
  printf("%ld\n", (long)sink);
  return 0;
}
