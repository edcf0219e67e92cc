/* forks: forks one child that touches exactly N fresh anonymous pages and ends with
 * exit(0) (so its atexit handlers run), waits for it, and returns. Counters that
 * follow children (inherit) see the N faults; an in-process library must still
 * write its result once, from the parent only. Usage: forks N */
#include <stdio.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <unistd.h>

static void touch(long n) {
  long page = sysconf(_SC_PAGESIZE);
  if (n <= 0) return;
  size_t len = (size_t)n * (size_t)page;
  volatile char *p = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  if (p == MAP_FAILED) {
    perror("mmap");
    exit(1);
  }
  madvise((void *)p, len, MADV_NOHUGEPAGE);
  for (long i = 0; i < n; ++i) p[i * page] = 1;
}

int main(int argc, char **argv) {
  if (argc != 2) {
    fprintf(stderr, "usage: forks N\n");
    return 2;
  }
  long n = strtol(argv[1], NULL, 10);
  pid_t pid = fork();
  if (pid < 0) {
    perror("fork");
    return 1;
  }
  if (pid == 0) {
    touch(n);
    exit(0);
  }
  int status = 0;
  if (waitpid(pid, &status, 0) != pid) return 1;
  return WIFEXITED(status) && WEXITSTATUS(status) == 0 ? 0 : 1;
}
