// obscheck's one error type. Library code throws it (or returns it) and never exits;
// cli/ is the single place that prints it, once, and turns its kind into the exit
// code documented in docs/exit-codes.md and the man page.
#pragma once

#include <stdexcept>
#include <string>

namespace obscheck {

// Exit codes, stable and documented. Grouped so scripts can tell "you asked for
// something wrong" from "the target misbehaved" from "the host cannot do this".
enum class ExitCode : int {
  ok = 0,
  findings = 1,          // ran fine; a verdict other than "not perturbed" exists (main job) or doctor found a blocking problem
  usage = 2,             // bad command line: unknown option, malformed value
  target = 3,            // target missing, not executable, a directory, exec format error
  event = 4,             // unknown event, or an event this host cannot count
  target_failed = 5,     // target exited non-zero, was killed by a signal, or timed out
  io = 6,                // journal or output file cannot be written / read / is invalid
  host = 7,              // the host cannot do what was asked (perf_event_open refused, no valgrind, ...)
  busy = 8,              // the journal is being written by another obscheck: nothing was done
  hangup = 129,          // SIGHUP: as interrupted
  interrupted = 130,     // SIGINT: results so far are kept (journal valid, resumable)
  terminated = 143,      // SIGTERM: as interrupted
};

enum class ErrorKind { usage, target, event, target_failed, io, host, busy, internal };

inline ExitCode exit_code_for(ErrorKind k) {
  switch (k) {
    case ErrorKind::usage: return ExitCode::usage;
    case ErrorKind::target: return ExitCode::target;
    case ErrorKind::event: return ExitCode::event;
    case ErrorKind::target_failed: return ExitCode::target_failed;
    case ErrorKind::io: return ExitCode::io;
    case ErrorKind::host: return ExitCode::host;
    case ErrorKind::busy: return ExitCode::busy;
    case ErrorKind::internal: return ExitCode::host;
  }
  return ExitCode::host;
}

// what(): one line saying what failed and why. hint: what to do about it (may be empty).
class Error : public std::runtime_error {
 public:
  Error(ErrorKind kind, std::string what, std::string hint = {})
      : std::runtime_error(std::move(what)), kind_(kind), hint_(std::move(hint)) {}
  ErrorKind kind() const { return kind_; }
  const std::string& hint() const { return hint_; }

 private:
  ErrorKind kind_;
  std::string hint_;
};

}  // namespace obscheck
