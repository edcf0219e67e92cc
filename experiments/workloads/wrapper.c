/* wrapper: a stand-in for a profiler command, for tests and the lab. It prints a
 * banner to standard error, spends MS milliseconds of CPU starting up (as a profiler
 * parsing its symbols does, so that counting the wrapper with the program would show
 * at once), runs the program it is
 * given as a child, waits for it, prints a closing line and exits with the program's
 * status: what `perf record ... --` does, minus the profiling. Nothing of its own
 * reaches the program but its environment and descriptors.
 * Usage: wrapper MS [--] PROG [ARGS...] */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

int main(int argc, char **argv) {
  if (argc < 3) {
    fprintf(stderr, "usage: wrapper MS [--] PROG [ARGS...]\n");
    return 2;
  }
  const long ms = strtol(argv[1], NULL, 10);
  int first = 2;
  if (strcmp(argv[first], "--") == 0) ++first;
  if (first >= argc) return 2;
  fprintf(stderr, "wrapper: starting %s after %ld ms\n", argv[first], ms);
  struct timespec start, now;
  clock_gettime(CLOCK_MONOTONIC, &start);
  volatile unsigned long spin = 0;
  do {
    for (int i = 0; i < 10000; ++i) spin = spin + 1;
    clock_gettime(CLOCK_MONOTONIC, &now);
  } while ((now.tv_sec - start.tv_sec) * 1000L + (now.tv_nsec - start.tv_nsec) / 1000000L < ms);
  const pid_t child = fork();
  if (child < 0) return 125;
  if (child == 0) {
    execvp(argv[first], argv + first);
    fprintf(stderr, "wrapper: cannot execute %s: %s\n", argv[first], strerror(errno));
    _exit(127);
  }
  int status = 0;
  while (waitpid(child, &status, 0) < 0 && errno == EINTR) {
  }
  fprintf(stderr, "wrapper: %s finished\n", argv[first]);
  return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
}
