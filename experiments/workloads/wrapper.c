/* wrapper: a stand-in for a profiler command, for tests and the lab. It prints a
 * banner to standard error, spends MS milliseconds starting up, runs the program it is
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
  const struct timespec pause = {ms / 1000, (ms % 1000) * 1000000L};
  nanosleep(&pause, NULL);
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
