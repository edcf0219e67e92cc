#include "run/signals.h"

#include <signal.h>

#include <atomic>

namespace obscheck {
namespace {

// The only mutable globals in the driver: a signal handler can reach nothing else.
// Both are lock-free atomics, so the handler stays async-signal-safe.
std::atomic<bool> g_interrupted{false};
std::atomic<int> g_signal{0};
std::atomic<pid_t> g_group{-1};
struct sigaction g_old_int, g_old_term, g_old_hup;

void on_interrupt(int sig) {
  int none = 0;
  g_signal.compare_exchange_strong(none, sig);  // the first signal names the exit code
  g_interrupted.store(true);
  pid_t g = g_group.load();
  if (g > 0) ::kill(-g, SIGKILL);
}

}  // namespace

InterruptGuard::InterruptGuard() {
  struct sigaction sa {};
  sa.sa_handler = on_interrupt;
  sigemptyset(&sa.sa_mask);
  sa.sa_flags = 0;  // no SA_RESTART: a blocking wait returns EINTR and looks again
  sigaction(SIGINT, &sa, &g_old_int);
  sigaction(SIGTERM, &sa, &g_old_term);
  sigaction(SIGHUP, &sa, &g_old_hup);
}

InterruptGuard::~InterruptGuard() {
  sigaction(SIGINT, &g_old_int, nullptr);
  sigaction(SIGTERM, &g_old_term, nullptr);
  sigaction(SIGHUP, &g_old_hup, nullptr);
  g_group.store(-1);
}

bool InterruptGuard::interrupted() { return g_interrupted.load(); }
void InterruptGuard::set_current_group(pid_t pgid) { g_group.store(pgid); }
int InterruptGuard::signal_number() { return g_signal.load(); }
void InterruptGuard::clear_for_tests() {
  g_interrupted.store(false);
  g_signal.store(0);
}

}  // namespace obscheck
