// launch/: the target's whole process tree. A target may fork and leave children
// running after it exits (a daemon, a forgotten `cmd &`); they would keep loading
// the machine through the next runs and outlive obscheck. The driver becomes the
// reaper of every orphan below it (PR_SET_CHILD_SUBREAPER), so a descendant whose
// parent has died is reparented to the driver, not to init; after each run, when no
// child of the driver should be left, kill_descendants() kills and reaps whatever
// is. Processes that escape on purpose (a double fork into another session) are
// caught the same way: their parent's death hands them to the driver.
#pragma once

#include <cstddef>

namespace obscheck {

// RAII: the calling process is the reaper of its orphaned descendants for the
// guard's lifetime (the previous setting is restored after); the destructor kills
// and reaps every descendant left, quietly.
class DescendantGuard {
 public:
  DescendantGuard();
  ~DescendantGuard();
  DescendantGuard(const DescendantGuard&) = delete;
  DescendantGuard& operator=(const DescendantGuard&) = delete;

 private:
  bool was_subreaper_ = false;
};

// Kills (SIGKILL) and reaps every process below this one: its children, then the
// children those leave to it, until none is left. Returns how many were still
// running (a zombie, already ended, is reaped but not counted). Call only when no
// child of this process may legitimately be alive: it waits for each of them.
std::size_t kill_descendants();

}  // namespace obscheck
