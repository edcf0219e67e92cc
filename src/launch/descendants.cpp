#include "launch/descendants.h"

#include <dirent.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <fstream>
#include <string>
#include <vector>

namespace obscheck {
namespace {

// A tree that forks faster than it is killed is cut down one generation per round;
// this many rounds is far beyond any real program and keeps a fork bomb from
// holding the driver for ever (what is left then is reaped by init after we exit).
constexpr int kMaxKillRounds = 1000;

// The children of every thread of this process (orphans are reparented to one of
// them), from /proc/self/task/*/children; else (a kernel without that file) every
// process whose parent is this one, from /proc/*/stat.
std::vector<pid_t> children_of_self() {
  std::vector<pid_t> out;
  bool have_children_files = false;
  if (DIR* tasks = ::opendir("/proc/self/task")) {
    while (const dirent* e = ::readdir(tasks)) {
      if (e->d_name[0] == '.') continue;
      std::ifstream in(std::string("/proc/self/task/") + e->d_name + "/children");
      if (!in) continue;
      have_children_files = true;
      for (long pid; in >> pid;) out.push_back(static_cast<pid_t>(pid));
    }
    ::closedir(tasks);
  }
  if (have_children_files) return out;
  const pid_t self = ::getpid();
  if (DIR* proc = ::opendir("/proc")) {
    while (const dirent* e = ::readdir(proc)) {
      if (e->d_name[0] < '0' || e->d_name[0] > '9') continue;
      std::ifstream in(std::string("/proc/") + e->d_name + "/stat");
      std::string stat;
      if (!std::getline(in, stat)) continue;
      // "pid (comm) state ppid ...": comm may hold spaces and parentheses.
      const auto close = stat.rfind(')');
      if (close == std::string::npos || close + 4 >= stat.size()) continue;
      if (std::atol(stat.c_str() + close + 4) == self) out.push_back(static_cast<pid_t>(std::atol(e->d_name)));
    }
    ::closedir(proc);
  }
  return out;
}

bool is_zombie(pid_t pid) {
  std::ifstream in("/proc/" + std::to_string(pid) + "/stat");
  std::string stat;
  if (!std::getline(in, stat)) return true;  // gone already
  const auto close = stat.rfind(')');
  return close != std::string::npos && close + 2 < stat.size() && stat[close + 2] == 'Z';
}

// Whether this process has no child at all, running or a zombie, of any kind (__WALL):
// one system call, against a read of /proc per thread, for the common case after a run.
bool has_no_children() {
  siginfo_t si{};
  return ::waitid(P_ALL, 0, &si, WEXITED | WSTOPPED | WCONTINUED | WNOHANG | WNOWAIT | __WALL) < 0 && errno == ECHILD;
}

}  // namespace

DescendantGuard::DescendantGuard() {
  int was = 0;
  if (::prctl(PR_GET_CHILD_SUBREAPER, &was, 0, 0, 0) == 0) was_subreaper_ = was != 0;
  ::prctl(PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0);
}

DescendantGuard::~DescendantGuard() {
  try {
    kill_descendants();
  } catch (...) {
  }
  if (!was_subreaper_) ::prctl(PR_SET_CHILD_SUBREAPER, 0, 0, 0, 0);
}

std::size_t kill_descendants() {
  if (has_no_children()) return 0;
  std::size_t killed = 0;
  for (int round = 0; round < kMaxKillRounds; ++round) {
    const std::vector<pid_t> kids = children_of_self();
    if (kids.empty()) break;
    for (pid_t pid : kids) {
      if (!is_zombie(pid)) ++killed;
      ::kill(pid, SIGKILL);
    }
    for (pid_t pid : kids) {
      while (::waitpid(pid, nullptr, __WALL) < 0 && errno == EINTR) {
      }
    }
  }
  return killed;
}

}  // namespace obscheck
