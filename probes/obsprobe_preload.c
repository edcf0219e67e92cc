/* libobsprobe.so: in-process counting, the set-up of Mytkowicz et al., "Observer Effect and Measurement Bias in Performance Analysis" §3.3 and §4.1.1.
 *
 * A precompiled wrapper around main(), installed with LD_PRELOAD and told what to
 * count through environment variables (as PAPI's PAPI_EVENTS, hpmcount and TAU do).
 * The environment grows with the event list, which moves the initial stack; that
 * is the layout effect the paper found behind its cycle counts (§5.1), and the one
 * obscheck's natural / held / sham conditions take apart.
 *
 * Protocol, version 1 (the driver side is src/observe/inprocess.h):
 *
 *   OBSCHECK_EVENTS      the announced events, entries separated by ';', each
 *                        `type:config:config1:config2:name`. Numbers are decimal or
 *                        0x-hex (no octal). The name is the user's spec text, last,
 *                        and may hold ':' '/' '=' ',' but no ';', tab or newline.
 *                        This is the variable that grows with the dose.
 *   OBSCHECK_PROGRAM     how many of the listed events to program, from the first:
 *                        exactly 3 digits ("001", "004"), so its size never changes.
 *                        Sham: "001" with the full list announced. "000" programs
 *                        nothing (the environment alone).
 *   OBSCHECK_RESULT_FD   an inherited, open, writable fd (a pipe), exactly 3 digits.
 *   OBSCHECK_BACKEND     "perf" (perf_event_open) or "papi" (PAPI_add_named_event).
 *
 * None of them is removed from the environment: they stay, as PAPI_EVENTS does.
 *
 * Result, written to the fd with ONE write(2) of at most PIPE_BUF bytes (so it is
 * atomic and never blocks on an empty pipe, and the driver may read it after
 * reaping the target):
 *
 *   obsprobe 1\n
 *   event\t<name>\t<raw>\t<time_enabled>\t<time_running>\n     one per programmed event
 *   user-only\t<name>\n                                         see below
 *   end\n
 *
 * or, on any failure (bad variables, perf_event_open errno, PAPI error code):
 *
 *   obsprobe 1\n
 *   error\t<event name or "-">\t<errno or PAPI code>\t<message>\n
 *   end\n
 *
 * Either way main runs normally: the measured program must behave the same, so the
 * library never aborts it. After a failure main runs uncounted.
 *
 * perf backend: one counter per event on the process itself (pid 0, cpu -1),
 * disabled, inherit (threads and children started inside main are counted),
 * kernel included, read_format TOTAL_TIME_ENABLED|RUNNING. If the kernel refuses
 * with EACCES (perf_event_paranoid >= 2 without privilege) the event is reopened
 * with exclude_kernel and a `user-only\t<name>` line says so. Events are counters
 * of their own, not a group. ENABLE just before the real main, DISABLE right after.
 *
 * papi backend: libpapi is dlopen'ed only when asked for (so the perf backend pulls
 * nothing into the target); PAPI_library_init, PAPI_create_eventset,
 * PAPI_add_named_event(name) per programmed event, PAPI_start / PAPI_stop around
 * main. PAPI has no enabled/running times: both fields carry the CLOCK_MONOTONIC
 * nanoseconds between start and stop (so the reading is exact, scale 1). Errors carry
 * PAPI's code and PAPI_strerror's message.
 *
 * Exactly once: the counts are written when main returns, or by an atexit handler
 * when main calls exit() (the handler then runs after the program's own handlers,
 * which are therefore counted). A process forked inside main does not write (pid
 * check). No result at all means the target never reached main, was killed, called
 * _exit, or exec'ed (the result fd is made close-on-exec; a new image finding no
 * valid fd stays passive). Static binaries and non-glibc targets ignore LD_PRELOAD
 * or have no __libc_start_main to interpose: the driver detects the missing result.
 *
 * The library is small and predictable: no allocation of its own, fixed-size static
 * state, a constant stack frame between __libc_start_main and main (so the dose moves
 * the stack only through the environment, as in the paper). */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <linux/perf_event.h>
#include <papi.h>
#include <signal.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#define OBSPROBE_EXPORT __attribute__((visibility("default")))

/* Enough for any realistic dose; the result must also fit in RESULT_MAX. */
enum { MAX_EVENTS = 64 };
/* PIPE_BUF: a write of at most this many bytes to a pipe is atomic, and a pipe holds
 * at least one page even when the user's pipe quota is exhausted (pipe(7)). */
enum { RESULT_MAX = PIPE_BUF };
/* PAPI_add_named_event needs a NUL-terminated copy of the name. */
enum { PAPI_NAME_MAX = 1024 };
/* The soname of Debian 12's libpapi7.0 (objdump -p libpapi.so: SONAME). */
static const char kPapiSoname[] = "libpapi.so.7.0";

enum backend { BACKEND_PERF, BACKEND_PAPI };

struct probe_event {
  uint32_t type;
  uint64_t config, config1, config2;
  const char *name; /* points into the environment string, not NUL-terminated */
  size_t name_len;
  int fd;
  int user_only;
  uint64_t value, time_enabled, time_running;
};

typedef int (*main_fn)(int, char **, char **);
typedef int (*libc_start_main_fn)(main_fn, int, char **, void (*)(void), void (*)(void),
                                  void (*)(void), void *);

typedef int (*papi_library_init_fn)(int);
typedef int (*papi_create_eventset_fn)(int *);
typedef int (*papi_add_named_event_fn)(int, const char *);
typedef int (*papi_start_fn)(int);
typedef int (*papi_stop_fn)(int, long long *);
typedef const char *(*papi_strerror_fn)(int);

static struct {
  main_fn real_main;
  enum backend backend;
  struct probe_event ev[MAX_EVENTS];
  int programmed;
  int result_fd;
  pid_t pid;
  int finished; /* set atomically by whoever writes the counts */
  struct {
    papi_create_eventset_fn create_eventset;
    papi_add_named_event_fn add_named_event;
    papi_start_fn start;
    papi_stop_fn stop;
    papi_strerror_fn strerror;
    int eventset;
    long long values[MAX_EVENTS];
    uint64_t t_start;
  } papi;
} g;

/* ---- the result buffer ------------------------------------------------------ */

static char out[RESULT_MAX];
static size_t out_len;
static int out_overflow;

static void out_bytes(const char *s, size_t n) {
  if (out_len + n > sizeof out) {
    out_overflow = 1;
    return;
  }
  memcpy(out + out_len, s, n);
  out_len += n;
}

static void out_str(const char *s) { out_bytes(s, strlen(s)); }

/* Text that must stay on one field of one line: tabs and newlines become spaces. */
static void out_field(const char *s, size_t n) {
  for (size_t i = 0; i < n; ++i) {
    char c = (s[i] == '\t' || s[i] == '\n') ? ' ' : s[i];
    out_bytes(&c, 1);
  }
}

static void out_u64(uint64_t v) {
  char digits[20];
  int n = 0;
  do {
    digits[n++] = (char)('0' + v % 10);
    v /= 10;
  } while (v != 0);
  while (n > 0) out_bytes(&digits[--n], 1);
}

static void out_i64(int64_t v) {
  if (v < 0) {
    out_bytes("-", 1);
    out_u64((uint64_t)0 - (uint64_t)v);
  } else {
    out_u64((uint64_t)v);
  }
}

/* One write(2). SIGPIPE is blocked around it (and a SIGPIPE it raised is consumed),
 * so a driver that went away cannot kill the measured program. */
static void out_flush(void) {
  if (g.result_fd < 0) return;
  int saved_errno = errno;
  sigset_t pipe_set, old_set, pending;
  sigemptyset(&pipe_set);
  sigaddset(&pipe_set, SIGPIPE);
  sigpending(&pending);
  int was_pending = sigismember(&pending, SIGPIPE);
  sigprocmask(SIG_BLOCK, &pipe_set, &old_set);
  ssize_t n;
  do n = write(g.result_fd, out, out_len);
  while (n < 0 && errno == EINTR);
  if (n < 0 && errno == EPIPE && !was_pending) {
    struct timespec zero = {0, 0};
    sigtimedwait(&pipe_set, NULL, &zero);
  }
  sigprocmask(SIG_SETMASK, &old_set, NULL);
  errno = saved_errno;
}

static void write_error(const char *name, size_t name_len, long code, const char *message) {
  out_len = 0;
  out_overflow = 0;
  out_str("obsprobe 1\nerror\t");
  if (name != NULL && name_len > 0)
    out_field(name, name_len);
  else
    out_str("-");
  out_str("\t");
  out_i64(code);
  out_str("\t");
  out_field(message, strlen(message));
  out_str("\nend\n");
  if (out_overflow && name != NULL) { /* a name longer than the whole result: drop it */
    write_error(NULL, 0, code, message);
    return;
  }
  out_flush();
}

static const char *errno_text(int err) {
  const char *s = strerrordesc_np(err); /* static, locale-free, never allocates */
  return s != NULL ? s : "unknown error";
}

/* ---- parsing the environment -------------------------------------------------- */

/* Exactly three decimal digits, as the driver writes them. */
static int parse_fixed3(const char *s, int *value) {
  if (s == NULL || strlen(s) != 3) return -1;
  int v = 0;
  for (int i = 0; i < 3; ++i) {
    if (s[i] < '0' || s[i] > '9') return -1;
    v = v * 10 + (s[i] - '0');
  }
  *value = v;
  return 0;
}

static int hex_digit(char c) {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  if (c >= 'A' && c <= 'F') return c - 'A' + 10;
  return -1;
}

/* A decimal or 0x-hex number ending at ':'; returns the character after the ':'. */
static const char *parse_number(const char *p, uint64_t *value) {
  uint64_t v = 0;
  int any = 0;
  if (p[0] == '0' && (p[1] == 'x' || p[1] == 'X')) {
    p += 2;
    for (int d; (d = hex_digit(*p)) >= 0; ++p, any = 1) {
      if (v > (UINT64_MAX >> 4)) return NULL;
      v = (v << 4) | (uint64_t)d;
    }
  } else {
    for (; *p >= '0' && *p <= '9'; ++p, any = 1) {
      uint64_t d = (uint64_t)(*p - '0');
      if (v > (UINT64_MAX - d) / 10) return NULL;
      v = v * 10 + d;
    }
  }
  if (!any || *p != ':') return NULL;
  *value = v;
  return p + 1;
}

/* Parses one entry at p into e; returns the start of the next entry (after ';'),
 * the terminating NUL at the end of the list, or NULL when malformed. */
static const char *parse_entry(const char *p, struct probe_event *e) {
  uint64_t type;
  if ((p = parse_number(p, &type)) == NULL || type > UINT32_MAX) return NULL;
  if ((p = parse_number(p, &e->config)) == NULL) return NULL;
  if ((p = parse_number(p, &e->config1)) == NULL) return NULL;
  if ((p = parse_number(p, &e->config2)) == NULL) return NULL;
  e->type = (uint32_t)type;
  e->name = p;
  while (*p != '\0' && *p != ';') {
    if (*p == '\t' || *p == '\n') return NULL;
    ++p;
  }
  e->name_len = (size_t)(p - e->name);
  if (e->name_len == 0) return NULL;
  return *p == ';' ? p + 1 : p;
}

/* Reads the variables into g. Returns 0 when counting can start; otherwise it has
 * already written the error result (when there is a fd to write it to). */
static int read_settings(void) {
  int fd;
  g.result_fd = -1;
  if (parse_fixed3(getenv("OBSCHECK_RESULT_FD"), &fd) != 0) return -1;
  /* Not ours (a program exec'ed from the target inherits the variables but, the fd
   * being close-on-exec, not the fd): stay passive. */
  if (fcntl(fd, F_GETFD) < 0) return -1;
  fcntl(fd, F_SETFD, FD_CLOEXEC);
  g.result_fd = fd;
  g.pid = getpid();

  const char *backend = getenv("OBSCHECK_BACKEND");
  if (backend != NULL && strcmp(backend, "perf") == 0) {
    g.backend = BACKEND_PERF;
  } else if (backend != NULL && strcmp(backend, "papi") == 0) {
    g.backend = BACKEND_PAPI;
  } else {
    write_error(NULL, 0, EINVAL, "OBSCHECK_BACKEND must be \"perf\" or \"papi\"");
    return -1;
  }
  if (parse_fixed3(getenv("OBSCHECK_PROGRAM"), &g.programmed) != 0) {
    write_error(NULL, 0, EINVAL, "OBSCHECK_PROGRAM must be exactly 3 digits");
    return -1;
  }
  if (g.programmed > MAX_EVENTS) {
    write_error(NULL, 0, E2BIG, "OBSCHECK_PROGRAM asks for more than 64 events");
    return -1;
  }
  const char *p = getenv("OBSCHECK_EVENTS");
  if (p == NULL) {
    write_error(NULL, 0, EINVAL, "OBSCHECK_EVENTS is not set");
    return -1;
  }
  /* Every announced entry is checked, programmed or not, so a sham run rejects the
   * same lists a real one does. */
  int listed = 0;
  while (*p != '\0') {
    struct probe_event scratch;
    struct probe_event *e = listed < g.programmed ? &g.ev[listed] : &scratch;
    memset(e, 0, sizeof *e);
    e->fd = -1;
    if ((p = parse_entry(p, e)) == NULL) {
      write_error(NULL, 0, EINVAL,
                  "OBSCHECK_EVENTS: malformed entry (want type:config:config1:config2:name)");
      return -1;
    }
    ++listed;
  }
  if (listed < g.programmed) {
    write_error(NULL, 0, EINVAL, "OBSCHECK_PROGRAM asks for more events than OBSCHECK_EVENTS lists");
    return -1;
  }
  return 0;
}

/* ---- perf backend ------------------------------------------------------------- */

static int perf_open(struct probe_event *e) {
  struct perf_event_attr attr;
  memset(&attr, 0, sizeof attr);
  attr.size = sizeof attr;
  attr.type = e->type;
  attr.config = e->config;
  attr.config1 = e->config1;
  attr.config2 = e->config2;
  attr.disabled = 1;
  attr.inherit = 1;
  attr.read_format = PERF_FORMAT_TOTAL_TIME_ENABLED | PERF_FORMAT_TOTAL_TIME_RUNNING;
  long fd = syscall(SYS_perf_event_open, &attr, 0, -1, -1, PERF_FLAG_FD_CLOEXEC);
  if (fd < 0 && errno == EACCES) {
    /* perf_event_paranoid >= 2 without privilege: count user level only, and say so. */
    attr.exclude_kernel = 1;
    fd = syscall(SYS_perf_event_open, &attr, 0, -1, -1, PERF_FLAG_FD_CLOEXEC);
    if (fd >= 0) e->user_only = 1;
  }
  e->fd = (int)fd;
  return fd < 0 ? -1 : 0;
}

static void perf_close_all(void) {
  for (int i = 0; i < g.programmed; ++i)
    if (g.ev[i].fd >= 0) {
      close(g.ev[i].fd);
      g.ev[i].fd = -1;
    }
}

static int perf_setup(void) {
  for (int i = 0; i < g.programmed; ++i) {
    if (perf_open(&g.ev[i]) != 0) {
      int err = errno;
      perf_close_all();
      char message[160] = "perf_event_open: ";
      strncat(message, errno_text(err), sizeof message - strlen(message) - 1);
      write_error(g.ev[i].name, g.ev[i].name_len, err, message);
      return -1;
    }
  }
  return 0;
}

static void perf_start(void) {
  for (int i = 0; i < g.programmed; ++i) ioctl(g.ev[i].fd, PERF_EVENT_IOC_ENABLE, 0);
}

static int perf_stop(void) {
  for (int i = 0; i < g.programmed; ++i) ioctl(g.ev[i].fd, PERF_EVENT_IOC_DISABLE, 0);
  for (int i = 0; i < g.programmed; ++i) {
    uint64_t words[3];
    ssize_t n = read(g.ev[i].fd, words, sizeof words);
    if (n != (ssize_t)sizeof words) {
      int err = n < 0 ? errno : EIO;
      perf_close_all();
      write_error(g.ev[i].name, g.ev[i].name_len, err, "reading the counter failed");
      return -1;
    }
    g.ev[i].value = words[0];
    g.ev[i].time_enabled = words[1];
    g.ev[i].time_running = words[2];
  }
  perf_close_all();
  return 0;
}

/* ---- PAPI backend ------------------------------------------------------------- */

static uint64_t monotonic_ns(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

static void papi_error(const struct probe_event *e, int code) {
  const char *message = g.papi.strerror != NULL ? g.papi.strerror(code) : NULL;
  write_error(e != NULL ? e->name : NULL, e != NULL ? e->name_len : 0, code,
              message != NULL ? message : "PAPI error");
}

static int papi_setup(void) {
  if (g.programmed == 0) return 0;
  void *lib = dlopen(kPapiSoname, RTLD_NOW | RTLD_LOCAL);
  if (lib == NULL) {
    const char *why = dlerror();
    write_error(NULL, 0, ELIBACC, why != NULL ? why : "cannot load libpapi.so.7.0");
    return -1;
  }
  papi_library_init_fn library_init = (papi_library_init_fn)dlsym(lib, "PAPI_library_init");
  g.papi.create_eventset = (papi_create_eventset_fn)dlsym(lib, "PAPI_create_eventset");
  g.papi.add_named_event = (papi_add_named_event_fn)dlsym(lib, "PAPI_add_named_event");
  g.papi.start = (papi_start_fn)dlsym(lib, "PAPI_start");
  g.papi.stop = (papi_stop_fn)dlsym(lib, "PAPI_stop");
  g.papi.strerror = (papi_strerror_fn)dlsym(lib, "PAPI_strerror");
  if (library_init == NULL || g.papi.create_eventset == NULL || g.papi.add_named_event == NULL ||
      g.papi.start == NULL || g.papi.stop == NULL || g.papi.strerror == NULL) {
    write_error(NULL, 0, ELIBBAD, "libpapi.so.7.0 lacks a PAPI function");
    return -1;
  }
  int version = library_init(PAPI_VER_CURRENT);
  if (version != PAPI_VER_CURRENT) {
    if (version > 0)
      write_error(NULL, 0, version, "PAPI library version differs from the one built against");
    else
      papi_error(NULL, version);
    return -1;
  }
  g.papi.eventset = PAPI_NULL;
  int rc = g.papi.create_eventset(&g.papi.eventset);
  if (rc != PAPI_OK) {
    papi_error(NULL, rc);
    return -1;
  }
  for (int i = 0; i < g.programmed; ++i) {
    static char name[PAPI_NAME_MAX];
    const struct probe_event *e = &g.ev[i];
    if (e->name_len >= sizeof name) {
      write_error(e->name, e->name_len, ENAMETOOLONG, "event name too long for PAPI");
      return -1;
    }
    memcpy(name, e->name, e->name_len);
    name[e->name_len] = '\0';
    if ((rc = g.papi.add_named_event(g.papi.eventset, name)) != PAPI_OK) {
      papi_error(e, rc);
      return -1;
    }
  }
  return 0;
}

static int papi_start_counting(void) {
  if (g.programmed == 0) return 0;
  int rc = g.papi.start(g.papi.eventset);
  if (rc != PAPI_OK) {
    papi_error(NULL, rc);
    return -1;
  }
  g.papi.t_start = monotonic_ns();
  return 0;
}

static int papi_stop_counting(void) {
  if (g.programmed == 0) return 0;
  int rc = g.papi.stop(g.papi.eventset, g.papi.values);
  uint64_t elapsed = monotonic_ns() - g.papi.t_start;
  if (rc != PAPI_OK) {
    papi_error(NULL, rc);
    return -1;
  }
  for (int i = 0; i < g.programmed; ++i) {
    g.ev[i].value = (uint64_t)g.papi.values[i];
    g.ev[i].time_enabled = elapsed;
    g.ev[i].time_running = elapsed;
  }
  return 0;
}

/* ---- around main -------------------------------------------------------------- */

static void write_counts(void) {
  out_len = 0;
  out_overflow = 0;
  out_str("obsprobe 1\n");
  for (int i = 0; i < g.programmed; ++i) {
    const struct probe_event *e = &g.ev[i];
    out_str("event\t");
    out_bytes(e->name, e->name_len);
    out_str("\t");
    out_u64(e->value);
    out_str("\t");
    out_u64(e->time_enabled);
    out_str("\t");
    out_u64(e->time_running);
    out_str("\n");
  }
  for (int i = 0; i < g.programmed; ++i) {
    if (!g.ev[i].user_only) continue;
    out_str("user-only\t");
    out_bytes(g.ev[i].name, g.ev[i].name_len);
    out_str("\n");
  }
  out_str("end\n");
  if (out_overflow) {
    write_error(NULL, 0, E2BIG, "the result does not fit in PIPE_BUF (4096 bytes): fewer events or shorter names");
    return;
  }
  out_flush();
}

/* Stops, reads and writes, once: whichever of main's return and exit() comes first,
 * and only in the process that started counting. */
static void finish(void) {
  if (getpid() != g.pid) return;
  if (__atomic_exchange_n(&g.finished, 1, __ATOMIC_ACQ_REL)) return;
  int saved_errno = errno;
  int rc = g.backend == BACKEND_PERF ? perf_stop() : papi_stop_counting();
  if (rc == 0) write_counts();
  errno = saved_errno;
}

static void finish_at_exit(void) { finish(); }

static int probe_main(int argc, char **argv, char **envp) {
  int counting = read_settings() == 0;
  if (counting) counting = (g.backend == BACKEND_PERF ? perf_setup() : papi_setup()) == 0;
  if (counting && atexit(finish_at_exit) != 0) {
    if (g.backend == BACKEND_PERF) perf_close_all();
    write_error(NULL, 0, ENOMEM, "atexit: cannot register the exit handler");
    counting = 0;
  }
  if (counting) {
    if (g.backend == BACKEND_PERF)
      perf_start();
    else if (papi_start_counting() != 0)
      g.finished = 1; /* the error is written; the handler must stay silent */
  } else {
    g.finished = 1;
  }
  int rc = g.real_main(argc, argv, envp);
  finish();
  return rc;
}

/* glibc's entry point from _start (same signature on x86-64 and aarch64). The real
 * one is found with RTLD_NEXT; main is swapped for the wrapper. */
OBSPROBE_EXPORT int __libc_start_main(main_fn main, int argc, char **argv, void (*init)(void),
                                      void (*fini)(void), void (*rtld_fini)(void), void *stack_end) {
  libc_start_main_fn next = (libc_start_main_fn)dlsym(RTLD_NEXT, "__libc_start_main");
  if (next == NULL) {
    /* Not glibc underneath: there is no way to start the program from here. */
    static const char message[] = "obsprobe: __libc_start_main not found (not a glibc program?)\n";
    ssize_t ignored = write(2, message, sizeof message - 1);
    (void)ignored;
    _exit(127);
  }
  g.real_main = main;
  return next(probe_main, argc, argv, init, fini, rtld_fini, stack_end);
}
