/* obscheck-exec: the target's own cork under a profiler command. obscheck runs
 *   WRAPPER... obscheck-exec PATH ARGV0 ARGS...
 * so that the counters describe the target alone, from its exec to its exit, and not
 * the profiler that starts it. Handed two descriptors through the wrapper:
 *   3: a socket to obscheck. This process writes its pid, then waits for one byte:
 *      obscheck has then opened the counters on it, armed to start at the next exec;
 *   4: the write end of a pipe that becomes the target's standard output and error, so
 *      that obscheck compares the target's own output, not the profiler's messages.
 * Then it executes PATH with ARGV0 ARGS... in its place. Exit 125 when obscheck is gone
 * before it says to go, 127 when PATH cannot be executed (the reason on the pipe). */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

enum { kControlFd = 3, kOutputFd = 4 };

int main(int argc, char **argv) {
  if (argc < 3) {
    fprintf(stderr, "usage: obscheck-exec PATH ARGV0 [ARGS...] (run by obscheck, with descriptors 3 and 4)\n");
    return 2;
  }
  const pid_t self = getpid();
  if (write(kControlFd, &self, sizeof self) != (ssize_t)sizeof self) return 125;
  char go = 0;
  ssize_t n;
  while ((n = read(kControlFd, &go, 1)) < 0 && errno == EINTR) {
  }
  if (n != 1) return 125;
  close(kControlFd);
  if (dup2(kOutputFd, 1) < 0 || dup2(kOutputFd, 2) < 0) return 125;
  close(kOutputFd);
  execv(argv[1], argv + 2);
  fprintf(stderr, "obscheck-exec: cannot execute %s: %s\n", argv[1], strerror(errno));
  return 127;
}
