/* pagetouch: touches exactly N fresh anonymous pages, one write each, with huge pages
 * advised off for the region, so page-faults grow by exactly N (plus the fixed cost
 * of starting a process). Usage: pagetouch N */
#include <stdio.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <unistd.h>

int main(int argc, char **argv) {
  if (argc != 2) {
    fprintf(stderr, "usage: pagetouch N\n");
    return 2;
  }
  long n = strtol(argv[1], NULL, 10);
  long page = sysconf(_SC_PAGESIZE);
  if (n <= 0) return 0;
  size_t len = (size_t)n * (size_t)page;
  volatile char *p = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  if (p == MAP_FAILED) {
    perror("mmap");
    return 1;
  }
  madvise((void *)p, len, MADV_NOHUGEPAGE);
  for (long i = 0; i < n; ++i) p[i * page] = 1;
  return 0;
}
