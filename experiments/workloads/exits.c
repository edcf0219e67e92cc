/* exits: touches exactly N fresh anonymous pages (as pagetouch does), then ends with
 * exit(0) called from a nested function, so main never returns: an in-process
 * counter library must still report, from its atexit handler, with the N faults
 * counted. Usage: exits N */
#include <stdio.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <unistd.h>

__attribute__((noinline)) static void leave(int status) { exit(status); }

__attribute__((noinline)) static void touch_and_leave(long n) {
  long page = sysconf(_SC_PAGESIZE);
  if (n > 0) {
    size_t len = (size_t)n * (size_t)page;
    volatile char *p = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (p == MAP_FAILED) {
      perror("mmap");
      leave(1);
    }
    madvise((void *)p, len, MADV_NOHUGEPAGE);
    for (long i = 0; i < n; ++i) p[i * page] = 1;
  }
  leave(0);
}

int main(int argc, char **argv) {
  if (argc != 2) {
    fprintf(stderr, "usage: exits N\n");
    return 2;
  }
  touch_and_leave(strtol(argv[1], NULL, 10));
  return 3; /* never reached */
}
