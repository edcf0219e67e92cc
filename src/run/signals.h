// run/: Ctrl-C handling for the runner. SIGINT, SIGTERM and SIGHUP set a flag
// (which signal came) and kill the process group of the target that is running at
// that moment, so the runner stops at once without waiting for the target; the
// interrupted run is not recorded (it is not a measurement), everything before it
// is. The command then exits with the shell's code for that signal, 128 + its
// number: 130 (SIGINT), 143 (SIGTERM), 129 (SIGHUP).
#pragma once

#include <sys/types.h>

namespace obscheck {

// RAII: installs the handlers for its lifetime, restores the previous ones after.
class InterruptGuard {
 public:
  InterruptGuard();
  ~InterruptGuard();
  InterruptGuard(const InterruptGuard&) = delete;
  InterruptGuard& operator=(const InterruptGuard&) = delete;

  static bool interrupted();
  // The signal that interrupted the run (SIGINT, SIGTERM or SIGHUP); 0 if none came.
  static int signal_number();
  // The process group the handler kills; -1 when no target runs.
  static void set_current_group(pid_t pgid);
  static void clear_for_tests();
};

}  // namespace obscheck
